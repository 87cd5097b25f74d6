"""What a report shows that the funnel's records do not carry, read from the store.

Small read-only queries (their statements in ``store/tables/``): each run's
configuration (the settings its spans recorded, as each span convention names them —
ragfunnel's question spans' ``ragfunnel.pipeline.*`` attributes, an OpenInference ``LLM``
span's ``llm.model_name`` and ``llm.invocation_parameters``, a GenAI span's
``gen_ai.request.*``: ``conventions/run_settings.py``, docs/report.md), the documents whose
ingestion recorded pages or parts without text, and the texts — question, answer, prompt
chunks — of the few questions a report drills into, read through the stage source the analysis
used (``store/stage_source.py``). All only SELECT: this module never writes to the store, and
never fetches texts for more than the questions it is given.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from ragfunnel.analyzer.judges.answers import read_answers
from ragfunnel.analyzer.report import wording
from ragfunnel.analyzer.store import Store
from ragfunnel.analyzer.store.stage_source import stage_source
from ragfunnel.analyzer.store.tables import stage_spans, traces

__all__ = ["QuestionTexts", "pipeline_snapshots", "question_texts", "textless_documents"]

_BATCH = 5_000


@dataclass(frozen=True)
class QuestionTexts:
    """A question's captured texts (content capture on); each is ``None`` when not recorded."""

    question: str | None = None
    answer: str | None = None
    context_ids: tuple[str, ...] = ()
    context_texts: tuple[str, ...] = ()


def pipeline_snapshots(store: Store, runs: Iterable[str]) -> dict[str, dict[str, Any]]:
    """Per run, its configuration: each setting its spans recorded, by name.

    ragfunnel's ``ragfunnel.pipeline.*`` settings lose the prefix (``prompt_version``); a
    foreign trace's keep the name its convention gives them (``llm.model_name``).

    A setting with one value over the run's questions maps to it; one that changed during the
    run maps to a list of ``"value (n questions)"``, commonest first — a run should have one.
    """
    wanted = sorted(set(runs))
    if not wanted:
        return {}
    rows = traces.run_settings(store, wanted)
    found: dict[str, dict[str, list[tuple[str, int]]]] = {run: {} for run in wanted}
    for run_id, key, value, n in rows.iter_rows():
        found[str(run_id)].setdefault(str(key), []).append((str(value), int(n)))
    return {
        run: {
            name: _value(values[0][0])
            if len(values) == 1
            else [f"{v} ({wording.count(n, 'question')})" for v, n in values]
            for name, values in sorted(settings.items())
        }
        for run, settings in found.items()
    }


def _value(text: str) -> Any:
    """Arrays were stored as JSON text: give them back as lists; everything else as stored."""
    if text.startswith("["):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def question_texts(
    store: Store, keys: Sequence[tuple[str, str]]
) -> dict[tuple[str, str], QuestionTexts]:
    """The texts of the questions ``(trace_id, question_key)`` as their spans recorded them.

    Read through the span conventions, as the funnel and the judges read them, so a LlamaIndex
    (OpenInference) or GenAI trace's texts show too: the question span's text, else the
    retrieval query; the answer the funnel counts — the lowest-numbered pipeline sample, its
    last attempt (docs/funnel.md §2) — and its prompt's chunks with their texts from wherever
    they were recorded (``judges/answers.py``).
    """
    out: dict[tuple[str, str], QuestionTexts] = {}
    wanted = set(keys)
    traces_wanted = sorted({trace for trace, _ in wanted})
    source = stage_source(store).sql
    for start in range(0, len(traces_wanted), _BATCH):
        batch = traces_wanted[start : start + _BATCH]
        found: dict[tuple[str, str], dict[str, Any]] = {}
        for trace, key, question in stage_spans.question_texts(store, source, batch).iter_rows():
            if (trace, key) in wanted:
                found[(trace, key)] = {"question": question or None}
        answers = read_answers(store, traces=batch).select(
            "trace_id", "question_key", "answer", "has_answer", "context_ids", "context_texts"
        )
        for trace, key, answer, has_answer, ids, texts in answers.iter_rows():
            if (trace, key) in wanted:
                found.setdefault((trace, key), {}).update(
                    answer=answer if has_answer and answer else None,
                    context_ids=tuple(ids),
                    context_texts=tuple(texts),  # "" where no span recorded the chunk's text
                )
        out.update({key: QuestionTexts(**entry) for key, entry in found.items()})
    return out


def textless_documents(store: Store, index_versions: Iterable[str]) -> dict[str, tuple[str, ...]]:
    """Per index version, the documents whose ingestion recorded pages or parts without text.

    That is a successful ingest span with ``ragfunnel.ingest.pages_without_text`` or
    ``parts_without_text`` above 0: scanned pages without a text layer, images, empty parses.
    """
    wanted = sorted(set(index_versions))
    if not wanted:
        return {}
    rows = traces.textless_ingests(store, wanted)
    out: dict[str, list[str]] = {}
    for version, document in rows.iter_rows():
        if document:
            out.setdefault(str(version), []).append(str(document))
    return {version: tuple(documents) for version, documents in out.items()}
