"""OpenTelemetry GenAI spans (semantic conventions, development status).

``gen_ai.operation.name = retrieval`` spans list ``gen_ai.retrieval.documents`` as a JSON array
of ``{id, score}`` objects (a ``content`` field, when present, is the chunk text the judges
read), with the query in ``gen_ai.retrieval.query.text`` (it stands in for
the question when matching cases: GenAI has no question span); ``chat``, ``text_completion`` and
``generate_content`` spans answer in ``gen_ai.output.messages`` (the first message's first
part). Each trace is one question. A run's configuration is what those generating spans record
of their request (:data:`REQUEST_SETTINGS`: model, temperature, ... named as the spans name
them). This module holds the declaration only.
"""

from __future__ import annotations

from ragfunnel.analyzer.conventions.vocabulary import (
    Attr,
    Convention,
    Has,
    JsonDocuments,
    JsonText,
    OneOf,
    RunSettings,
    SpanName,
    StageFields,
    StageRule,
)
from ragfunnel.instrumentation import contract as c

__all__ = ["GENAI", "GENERATE_OPERATIONS", "OUTPUT_MESSAGES", "REQUEST_SETTINGS",
           "RETRIEVAL_DOCUMENTS", "RETRIEVAL_QUERY"]  # fmt: skip

OPERATION = c.GEN_AI_OPERATION
RETRIEVAL_DOCUMENTS = "gen_ai.retrieval.documents"
RETRIEVAL_QUERY = "gen_ai.retrieval.query.text"
OUTPUT_MESSAGES = "gen_ai.output.messages"
GENERATE_OPERATIONS = ("chat", "text_completion", "generate_content")
REQUEST_SETTINGS = (
    c.GEN_AI_REQUEST_MODEL,
    "gen_ai.request.temperature",
    "gen_ai.request.top_p",
    "gen_ai.request.top_k",
    "gen_ai.request.max_tokens",
    "gen_ai.provider.name",
    "gen_ai.system",
)
"""What a generating span records of its request's set-up."""

GENAI = Convention(
    name="genai",
    marker=Has(OPERATION),
    settings=(
        RunSettings(OneOf(OPERATION, GENERATE_OPERATIONS), keys=REQUEST_SETTINGS, per_trace=True),
    ),
    rules=(
        StageRule(
            c.Stage.RETRIEVE,
            OneOf(OPERATION, ("retrieval",)),
            StageFields(
                name=SpanName(),
                question_text=Attr(RETRIEVAL_QUERY),
                documents=JsonDocuments(RETRIEVAL_DOCUMENTS, text_field="content"),
            ),
        ),
        StageRule(
            c.Stage.GENERATE,
            OneOf(OPERATION, GENERATE_OPERATIONS),
            StageFields(
                name=Attr(c.GEN_AI_REQUEST_MODEL),
                answer=JsonText(OUTPUT_MESSAGES, (1, "parts", 1, "content")),
            ),
        ),
    ),
)
