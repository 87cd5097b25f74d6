import ragfunnel
import ragfunnel.instrumentation


def test_public_api_is_pinned() -> None:
    assert sorted(ragfunnel.__all__) == [
        "ConfigError",
        "ContextThreadPoolExecutor",
        "ExportStats",
        "Mode",
        "SCHEMA_VERSION",
        "Stage",
        "StageHandle",
        "abstain",
        "configure",
        "cut",
        "dropped_counts",
        "export_stats",
        "flush",
        "generate",
        "ingest",
        "internal_error_counts",
        "question",
        "rerank",
        "retrieve",
        "stage",
        "unread_counts",
        "with_context",
    ]
    assert ragfunnel.__all__ == ragfunnel.instrumentation.__all__
    for name in ragfunnel.__all__:
        assert getattr(ragfunnel, name) is not None


def test_decorators_have_help() -> None:
    for deco in (ragfunnel.question, ragfunnel.retrieve, ragfunnel.generate):
        assert deco.__doc__ and "return value" in deco.__doc__
