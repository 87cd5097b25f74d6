"""The span contract: attribute names and the stage table.

Every attribute name is a ``Final`` constant with a one-line docstring, as the OpenTelemetry
semantic-conventions packages write theirs; nothing outside this module (and the analyzer's
``conventions`` package, which reads other tools' names) spells an attribute name.

This module is the single source that both the decorators (which write spans) and the analyzer
(which reads them) import. It holds names and small immutable tables only: it must never import
anything beyond the standard library, so that either side can depend on it for free.
The prose version, with types and examples, is ``docs/span-contract.md``.
"""

from __future__ import annotations

import enum
import hashlib
import re
import unicodedata
from dataclasses import dataclass
from typing import Final

SCHEMA_VERSION: Final = "1"
"""Bumped when an attribute changes meaning; the analyzer reads every version it knows."""

INSTRUMENTATION_SCOPE: Final = "ragfunnel"


class Stage(str, enum.Enum):
    """The funnel stages, in funnel order (question is the root)."""

    QUESTION = "question"
    INGEST = "ingest"
    RETRIEVE = "retrieve"
    RERANK = "rerank"
    CUT = "cut"
    GENERATE = "generate"


class Mode(str, enum.Enum):
    """How a generate step was fed: the real pipeline, or the gold evidence (oracle)."""

    PIPELINE = "pipeline"
    ORACLE = "oracle"


# Common to every ragfunnel span.
STAGE: Final = "ragfunnel.stage"
"""The funnel stage of a span: one of :class:`Stage`'s values."""
SCHEMA: Final = "ragfunnel.schema.version"
"""The span contract's version (:data:`SCHEMA_VERSION`) the span was written with."""
QUESTION_ID: Final = "ragfunnel.question.id"
"""The question's id: the case id a cases file names (``id=`` on ``@question``)."""
RUN_ID: Final = "ragfunnel.run.id"
"""The evaluation run the question belongs to (``configure(run_id=)``)."""
SERVICE_NAME: Final = "service.name"
"""The OpenTelemetry resource attribute naming the service (``configure(service_name=)``)."""

# Question (root) span.
QUESTION_HASH: Final = "ragfunnel.question.hash"
"""16 hex digits of the normalised question text (:func:`question_hash`)."""
QUESTION_TEXT: Final = "ragfunnel.question.text"
"""The question's text. *Content* (kind ``question``)."""
PIPELINE_PREFIX: Final = "ragfunnel.pipeline."
"""Prefix of the pipeline snapshot's settings on the question span (``ragfunnel.pipeline.k``)."""
ANSWER_ABSTAINED: Final = "ragfunnel.answer.abstained"
"""The pipeline abstained (``ragfunnel.abstain()`` was called)."""
ABSTAIN_REASON: Final = "ragfunnel.answer.abstain_reason"
"""Why it abstained, as the app said."""
STREAM_PARTIAL: Final = "ragfunnel.stream.partial"
"""A stream ended by an error: the span holds what was produced before it."""

# Ingest.
DOCUMENT_ID: Final = "ragfunnel.document.id"
"""The ingested document's id (URLs without their secrets)."""
CHUNKS_IDS: Final = "ragfunnel.chunks.ids"
"""The ids of the chunks an ingest produced, in order."""
CHUNKS_TEXTS: Final = "ragfunnel.chunks.texts"
"""The ingested chunks' texts. *Content* (kind ``chunks``)."""
CHUNKS_STARTS: Final = "ragfunnel.chunks.starts"
"""Each chunk's first character offset in its document, when every chunk has one."""
CHUNKS_ENDS: Final = "ragfunnel.chunks.ends"
"""Each chunk's end offset (exclusive) in its document, when every chunk has one."""
INDEX_VERSION: Final = "ragfunnel.index.version"
"""The index version the chunks were ingested into."""
PAGES_WITHOUT_TEXT: Final = "ragfunnel.ingest.pages_without_text"
"""Pages the parser found no text on (a scanned page without OCR)."""
PARTS_WITHOUT_TEXT: Final = "ragfunnel.ingest.parts_without_text"
"""Other parts the parser found no text in."""

# Ranking stages (retrieve, rerank, cut) share the output lists.
DOCUMENTS_IDS: Final = "ragfunnel.documents.ids"
"""A ranking stage's output ids, in rank (or prompt) order."""
DOCUMENTS_SCORES: Final = "ragfunnel.documents.scores"
"""Their scores, when every document has a finite one."""
INPUT_IDS: Final = "ragfunnel.input.ids"
"""The ids a rerank or cut was given, in order."""
RETRIEVER_NAME: Final = "ragfunnel.retriever.name"
"""The retriever's name (``name=``, else the function's)."""
RETRIEVER_FUSED_FROM: Final = "ragfunnel.retriever.fused_from"
"""The retrievers a fusing retrieve span combined."""
QUERY: Final = "ragfunnel.query"
"""The retrieval query. *Content* (kind ``question``)."""
TOP_K: Final = "ragfunnel.top_k"
"""How many documents the retriever was asked for."""
RERANKER_MODEL: Final = "ragfunnel.reranker.model"
"""The reranker's model (``model=``)."""
TOP_N: Final = "ragfunnel.top_n"
"""How many documents the reranker was asked to keep."""
CUT_K: Final = "ragfunnel.cut.k"
"""The cut's k: at most this many documents enter the prompt."""
CUT_THRESHOLD: Final = "ragfunnel.cut.threshold"
"""The cut's score threshold."""
CUT_TOKEN_BUDGET: Final = "ragfunnel.cut.token_budget"  # noqa: S105 - a name, not a secret
"""The cut's token budget."""
DOCUMENTS_READ_AS: Final = "ragfunnel.documents.read_as"
"""How a list of plain strings was read: ``ids`` or ``texts`` (then the ids are text ids)."""

# Generate.
CONTEXT_IDS: Final = "ragfunnel.context.ids"
"""The ids of the prompt's chunks, in prompt order."""
CONTEXT_TEXTS: Final = "ragfunnel.context.texts"
"""The prompt's chunk texts. *Content* (kind ``chunks``)."""
CONTEXT_READ_AS: Final = "ragfunnel.context.read_as"
"""How a prompt of plain strings was read: ``ids`` or ``texts`` (then the ids are text ids)."""
ANSWER_TEXT: Final = "ragfunnel.answer.text"
"""The generated answer. *Content* (kind ``answer``)."""
LOGPROBS_MIN: Final = "ragfunnel.logprobs.min"
"""The lowest token log-probability of the answer."""
LOGPROBS_LOW_CONFIDENCE: Final = "ragfunnel.logprobs.low_confidence"
"""Content tokens generated with a probability below :data:`LOW_CONFIDENCE_PROBABILITY`."""
SAMPLE_INDEX: Final = "ragfunnel.sample.index"
"""Which self-consistency sample a generate span is (0 is the answer)."""
MODE: Final = "ragfunnel.mode"
"""``pipeline`` or ``oracle`` (fed the gold evidence): :class:`Mode`."""
GEN_AI_REQUEST_MODEL: Final = "gen_ai.request.model"
"""The model asked for (OTel GenAI semantic conventions)."""
GEN_AI_RESPONSE_MODEL: Final = "gen_ai.response.model"
"""The model that answered (OTel GenAI semantic conventions)."""
GEN_AI_INPUT_TOKENS: Final = "gen_ai.usage.input_tokens"
"""Prompt tokens (OTel GenAI semantic conventions)."""
GEN_AI_OUTPUT_TOKENS: Final = "gen_ai.usage.output_tokens"
"""Answer tokens (OTel GenAI semantic conventions)."""

# Compatibility attributes for Phoenix, Langfuse, Jaeger users.
OPENINFERENCE_KIND: Final = "openinference.span.kind"
"""The OpenInference span kind, for Phoenix and Langfuse."""
GEN_AI_OPERATION: Final = "gen_ai.operation.name"
"""The OTel GenAI operation name (``retrieval``, ``chat``)."""

# Export: what ragfunnel records when its export queue drops spans (docs/reliability.md).
SPANS_DROPPED_EVENT: Final = "ragfunnel.spans_dropped"
"""The span event on the next span to start after spans were dropped."""
SPANS_DROPPED: Final = "ragfunnel.dropped"
"""That event's count of spans dropped since the last such event."""
SPANS_DROPPED_TOTAL: Final = "ragfunnel.dropped_total"
"""That event's count of spans dropped by the process so far."""
SPANS_DROPPED_METRIC: Final = "ragfunnel.spans.dropped"
"""The counter metric of dropped spans (unit ``{span}``)."""

# Evaluation events: one per verdict, `ragfunnel judge --emit otlp` (docs/span-contract.md,
# "Evaluation events"); the gen_ai.* names are the GenAI semantic conventions'.
EVALUATION_EVENT: Final = "gen_ai.evaluation.result"
"""The event's name (GenAI semantic conventions, Development status)."""
EVALUATION_NAME: Final = "gen_ai.evaluation.name"
"""What was evaluated: ``faithfulness``."""
EVALUATION_SCORE: Final = "gen_ai.evaluation.score.value"
"""The answer's faithfulness, 0–1 (absent when it abstained)."""
EVALUATION_LABEL: Final = "gen_ai.evaluation.score.label"
"""``supported``, ``partial``, ``unsupported`` or ``abstained``."""
EVALUATION_EXPLANATION: Final = "gen_ai.evaluation.explanation"
"""Why, in words (the first unsupported claim and what it lacks)."""
EVALUATION_JUDGE: Final = "ragfunnel.evaluation.judge"
"""The judge: ``offline``, ``llm:<model>``, ``factcheck:<model>``."""
EVALUATION_POLICY: Final = "ragfunnel.evaluation.policy"
"""The judging policy: ``offline``, ``llm``, ``factcheck``, ``tiered``."""
EVALUATION_QUESTION_KEY: Final = "ragfunnel.question.key"
"""The question instance the verdict is about (its id, or ``trace:<id>``)."""
EVALUATION_SAMPLED: Final = "ragfunnel.evaluation.sampled"
"""The tiered policy's random sample sent the answer to the LLM."""
EVALUATION_CONFIDENCE: Final = "ragfunnel.evaluation.confidence"
"""The answer's confidence, 0–1: the mean claim confidence (absent when it abstained)."""
EVALUATION_CORRECTNESS: Final = "ragfunnel.evaluation.correctness"
"""``correct``, ``incomplete`` or ``wrong``, when the case allowed a check."""
EVALUATION_CORRECTNESS_REASON: Final = "ragfunnel.evaluation.correctness.reason"
"""Why the answer is (in)correct."""
EVALUATION_CLAIMS_TEXT: Final = "ragfunnel.evaluation.claims.text"
"""Each claim's text."""
EVALUATION_CLAIMS_SCORE: Final = "ragfunnel.evaluation.claims.score"
"""Each claim's verdict: 1 supported, 0.5 partial or uncertain, 0 unsupported."""
EVALUATION_CLAIMS_CONFIDENCE: Final = "ragfunnel.evaluation.claims.confidence"
"""Each claim's confidence that it is supported, 0–1 (its verdict where the judge gave none)."""
EVALUATION_CLAIMS_LABEL: Final = "ragfunnel.evaluation.claims.label"
"""Each claim's label."""
EVALUATION_CLAIMS_MISSING: Final = "ragfunnel.evaluation.claims.missing"
"""Each claim's missing or contradicted term."""
EVALUATION_CLAIMS_SUPPORTING_IDS: Final = "ragfunnel.evaluation.claims.supporting_ids"
"""Each claim's supporting chunk ids, space-separated (OTLP holds no nested arrays)."""
EVALUATION_SIGNALS: Final = "ragfunnel.evaluation.signals"
"""The answer's signals (low logprobs, disagreeing samples …)."""

CONTENT_ATTRIBUTES = frozenset({QUESTION_TEXT, QUERY, CONTEXT_TEXTS, CHUNKS_TEXTS, ANSWER_TEXT})
"""Attributes recorded only when content capture is on, after the redaction hook."""

LOW_CONFIDENCE_PROBABILITY = 0.5
"""Content tokens generated with a probability below this are listed as low-confidence."""


@dataclass(frozen=True)
class StageInfo:
    """How one stage presents itself to OpenTelemetry-aware tools."""

    openinference_kind: str
    gen_ai_operation: str | None


STAGES: dict[Stage, StageInfo] = {
    Stage.QUESTION: StageInfo("CHAIN", None),
    Stage.INGEST: StageInfo("CHAIN", None),
    Stage.RETRIEVE: StageInfo("RETRIEVER", "retrieval"),
    Stage.RERANK: StageInfo("RERANKER", None),
    Stage.CUT: StageInfo("CHAIN", None),
    Stage.GENERATE: StageInfo("LLM", "chat"),
}

_WS = re.compile(r"\s+")
_TRAILING_PUNCT = re.compile(r"[\s?.!。？！]+$")


def normalize_question(text: str) -> str:
    """Normalise question text so that trivially different spellings match.

    NFKC, case-folded, whitespace collapsed, trailing punctuation dropped. Both the decorators
    (for ``question.hash``) and the analyzer (to match traces to cases) use this one function.
    """
    folded = unicodedata.normalize("NFKC", text).casefold()
    return _TRAILING_PUNCT.sub("", _WS.sub(" ", folded).strip())


READ_AS_IDS, READ_AS_TEXTS = "ids", "texts"
TEXT_ID_PREFIX = "text:"


def looks_like_id(value: str) -> bool:
    """A plain string is a chunk id when it holds no whitespace (``"tep-en#taxi"``), else text."""
    return _WS.search(value) is None


def text_id(text: str) -> str:
    """The id of a chunk known only by its text: ``text:`` plus 16 hex digits of its hash.

    Stable across spans and processes, so a text handed from retriever to cut to prompt keeps
    one id along the funnel, and no text is ever recorded as an id.
    """
    return TEXT_ID_PREFIX + hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def question_hash(text: str) -> str:
    """Stable 16-hex-digit hash of the normalised question text."""
    return hashlib.sha256(normalize_question(text).encode("utf-8")).hexdigest()[:16]


def derived_question_id(text: str) -> str:
    """The question id used when the app gives none: ``q-`` plus the normalised-text hash."""
    return "q-" + question_hash(text)
