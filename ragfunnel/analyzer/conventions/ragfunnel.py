"""ragfunnel's own spans, as its decorators write them (``docs/span-contract.md``).

A span carrying ``ragfunnel.stage`` is ragfunnel's, whatever else it carries (the decorators
also set OpenInference and GenAI attributes for other tools). Each attribute is read on the
stage the contract puts it on. This module holds the declaration only.
"""

from __future__ import annotations

from ragfunnel.analyzer.conventions.vocabulary import (
    Attr,
    Convention,
    Has,
    JsonList,
    OneOf,
    RunSettings,
    StageFields,
    StageRule,
)
from ragfunnel.instrumentation import contract as c

__all__ = ["RAGFUNNEL"]

_RANKED = JsonList(c.DOCUMENTS_IDS, scores=c.DOCUMENTS_SCORES)


def _is(stage: c.Stage) -> OneOf:
    return OneOf(c.STAGE, (stage.value,))


RAGFUNNEL = Convention(
    name="ragfunnel",
    marker=Has(c.STAGE),
    common=StageFields(question_key=Attr(c.QUESTION_ID), abstained=Attr(c.ANSWER_ABSTAINED)),
    # The question span's snapshot of the pipeline (``@ragfunnel.question(pipeline=...)``).
    settings=(RunSettings(_is(c.Stage.QUESTION), prefix=c.PIPELINE_PREFIX, run_id=Attr(c.RUN_ID)),),
    rules=(
        StageRule(
            c.Stage.QUESTION,
            _is(c.Stage.QUESTION),
            StageFields(
                run_id=Attr(c.RUN_ID),
                question_hash=Attr(c.QUESTION_HASH),
                question_text=Attr(c.QUESTION_TEXT),
                index_version=Attr(c.PIPELINE_PREFIX + "index_version"),
            ),
        ),
        StageRule(
            c.Stage.INGEST,
            _is(c.Stage.INGEST),
            StageFields(
                document_id=Attr(c.DOCUMENT_ID),
                documents=JsonList(c.CHUNKS_IDS),
                index_version=Attr(c.INDEX_VERSION),
            ),
        ),
        StageRule(
            c.Stage.RETRIEVE,
            _is(c.Stage.RETRIEVE),
            StageFields(
                name=Attr(c.RETRIEVER_NAME),
                top_k=Attr(c.TOP_K),
                fused_from=Attr(c.RETRIEVER_FUSED_FROM),
                documents=_RANKED,
            ),
        ),
        StageRule(
            c.Stage.RERANK,
            _is(c.Stage.RERANK),
            StageFields(
                name=Attr(c.RERANKER_MODEL),
                top_k=Attr(c.TOP_N),
                input_documents=JsonList(c.INPUT_IDS),
                documents=_RANKED,
            ),
        ),
        StageRule(
            c.Stage.CUT,
            _is(c.Stage.CUT),
            StageFields(
                cut_k=Attr(c.CUT_K),
                cut_threshold=Attr(c.CUT_THRESHOLD),
                cut_token_budget=Attr(c.CUT_TOKEN_BUDGET),
                input_documents=JsonList(c.INPUT_IDS),
                documents=_RANKED,
            ),
        ),
        StageRule(
            c.Stage.GENERATE,
            _is(c.Stage.GENERATE),
            StageFields(
                name=Attr(c.GEN_AI_REQUEST_MODEL),
                documents=JsonList(c.CONTEXT_IDS, texts=c.CONTEXT_TEXTS),
                answer=Attr(c.ANSWER_TEXT),
                mode=Attr(c.MODE),
                sample_index=Attr(c.SAMPLE_INDEX),
                logprobs_min=Attr(c.LOGPROBS_MIN),
                low_confidence=Attr(c.LOGPROBS_LOW_CONFIDENCE),
            ),
        ),
    ),
)
