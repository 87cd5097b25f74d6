"""The span contract: attribute names and the stage table.

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

SCHEMA_VERSION = "1"
"""Bumped when an attribute changes meaning; the analyzer reads every version it knows."""

INSTRUMENTATION_SCOPE = "ragfunnel"


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
STAGE = "ragfunnel.stage"
SCHEMA = "ragfunnel.schema.version"
QUESTION_ID = "ragfunnel.question.id"
RUN_ID = "ragfunnel.run.id"

# Question (root) span.
QUESTION_HASH = "ragfunnel.question.hash"
QUESTION_TEXT = "ragfunnel.question.text"  # content
PIPELINE_PREFIX = "ragfunnel.pipeline."
ANSWER_ABSTAINED = "ragfunnel.answer.abstained"
ABSTAIN_REASON = "ragfunnel.answer.abstain_reason"
STREAM_PARTIAL = "ragfunnel.stream.partial"

# Ingest.
DOCUMENT_ID = "ragfunnel.document.id"
CHUNKS_IDS = "ragfunnel.chunks.ids"
CHUNKS_TEXTS = "ragfunnel.chunks.texts"  # content
CHUNKS_STARTS = "ragfunnel.chunks.starts"
CHUNKS_ENDS = "ragfunnel.chunks.ends"
INDEX_VERSION = "ragfunnel.index.version"
PAGES_WITHOUT_TEXT = "ragfunnel.ingest.pages_without_text"
PARTS_WITHOUT_TEXT = "ragfunnel.ingest.parts_without_text"

# Ranking stages (retrieve, rerank, cut) share the output lists.
DOCUMENTS_IDS = "ragfunnel.documents.ids"
DOCUMENTS_SCORES = "ragfunnel.documents.scores"
INPUT_IDS = "ragfunnel.input.ids"
RETRIEVER_NAME = "ragfunnel.retriever.name"
RETRIEVER_FUSED_FROM = "ragfunnel.retriever.fused_from"
QUERY = "ragfunnel.query"  # content
TOP_K = "ragfunnel.top_k"
RERANKER_MODEL = "ragfunnel.reranker.model"
TOP_N = "ragfunnel.top_n"
CUT_K = "ragfunnel.cut.k"
CUT_THRESHOLD = "ragfunnel.cut.threshold"
CUT_TOKEN_BUDGET = "ragfunnel.cut.token_budget"  # noqa: S105 - a name, not a secret
DOCUMENTS_READ_AS = "ragfunnel.documents.read_as"
"""How a list of plain strings was read: ``ids`` or ``texts`` (then the ids are text ids)."""

# Generate.
CONTEXT_IDS = "ragfunnel.context.ids"
CONTEXT_TEXTS = "ragfunnel.context.texts"  # content
CONTEXT_READ_AS = "ragfunnel.context.read_as"
"""How a prompt of plain strings was read: ``ids`` or ``texts`` (then the ids are text ids)."""
ANSWER_TEXT = "ragfunnel.answer.text"  # content
LOGPROBS_MIN = "ragfunnel.logprobs.min"
LOGPROBS_LOW_CONFIDENCE = "ragfunnel.logprobs.low_confidence"
SAMPLE_INDEX = "ragfunnel.sample.index"
MODE = "ragfunnel.mode"
GEN_AI_REQUEST_MODEL = "gen_ai.request.model"
GEN_AI_RESPONSE_MODEL = "gen_ai.response.model"
GEN_AI_INPUT_TOKENS = "gen_ai.usage.input_tokens"
GEN_AI_OUTPUT_TOKENS = "gen_ai.usage.output_tokens"

# Compatibility attributes for Phoenix, Langfuse, Jaeger users.
OPENINFERENCE_KIND = "openinference.span.kind"
GEN_AI_OPERATION = "gen_ai.operation.name"

CONTENT_ATTRIBUTES = frozenset({QUESTION_TEXT, QUERY, CONTEXT_TEXTS, ANSWER_TEXT})
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
