"""OpenInference spans (semantic conventions 0.1.x), as Phoenix instrumentations write them.

``RETRIEVER`` spans list documents flattened into ``retrieval.documents.N.document.id|score``
(and ``…document.content``, the chunk text the judges read);
``RERANKER`` spans take ``reranker.input_documents.N…`` and give ``reranker.output_documents.N…``;
``LLM`` spans answer in ``llm.output_messages.0.message.content``, else ``output.value``; a
``CHAIN`` or ``AGENT`` span with an ``input.value`` is a question candidate (the analysis takes
the earliest of the trace). Each trace is one question. A run's configuration is what its
``LLM``, ``EMBEDDING`` and ``RERANKER`` spans record of their model and parameters
(:data:`LLM_SETTINGS`, :data:`EMBEDDING_SETTINGS`, :data:`RERANKER_SETTINGS`, named as the
spans name them). This module holds the declaration only.
"""

from __future__ import annotations

from ragfunnel.analyzer.conventions.vocabulary import (
    AllOf,
    Attr,
    Convention,
    FirstOf,
    FlatDocuments,
    Has,
    OneOf,
    RunSettings,
    SpanName,
    StageFields,
    StageRule,
)
from ragfunnel.instrumentation import contract as c

__all__ = [
    "DOCUMENT_CONTENT",
    "EMBEDDING_SETTINGS",
    "INPUT_MIME",
    "INPUT_VALUE",
    "LLM_MODEL",
    "LLM_OUTPUT_CONTENT",
    "LLM_SETTINGS",
    "OPENINFERENCE",
    "OUTPUT_VALUE",
    "RERANKER_INPUT",
    "RERANKER_MODEL",
    "RERANKER_OUTPUT",
    "RERANKER_SETTINGS",
    "RERANKER_TOP_K",
    "RETRIEVAL_DOCUMENTS",
]

KIND = c.OPENINFERENCE_KIND
INPUT_VALUE = "input.value"
INPUT_MIME = "input.mime_type"
OUTPUT_VALUE = "output.value"
RETRIEVAL_DOCUMENTS = "retrieval.documents"
RERANKER_INPUT = "reranker.input_documents"
RERANKER_OUTPUT = "reranker.output_documents"
RERANKER_MODEL = "reranker.model_name"
RERANKER_TOP_K = "reranker.top_k"
LLM_MODEL = "llm.model_name"
LLM_OUTPUT_CONTENT = "llm.output_messages.0.message.content"
DOCUMENT_CONTENT = "document.content"

LLM_SETTINGS = (LLM_MODEL, "llm.invocation_parameters", "llm.provider", "llm.system")
"""What an ``LLM`` span records of its set-up: model, invocation parameters (JSON), provider."""
EMBEDDING_SETTINGS = ("embedding.model_name",)
"""What an ``EMBEDDING`` span records of its set-up."""
RERANKER_SETTINGS = (RERANKER_MODEL, RERANKER_TOP_K)
"""What a ``RERANKER`` span records of its set-up."""

OPENINFERENCE = Convention(
    name="openinference",
    marker=Has(KIND),
    settings=(
        RunSettings(OneOf(KIND, ("LLM",)), keys=LLM_SETTINGS, per_trace=True),
        RunSettings(OneOf(KIND, ("EMBEDDING",)), keys=EMBEDDING_SETTINGS, per_trace=True),
        RunSettings(OneOf(KIND, ("RERANKER",)), keys=RERANKER_SETTINGS, per_trace=True),
    ),
    rules=(
        StageRule(
            c.Stage.RETRIEVE,
            OneOf(KIND, ("RETRIEVER",)),
            StageFields(
                name=SpanName(),
                question_text=Attr(INPUT_VALUE),
                documents=FlatDocuments(RETRIEVAL_DOCUMENTS, text_field=DOCUMENT_CONTENT),
            ),
        ),
        StageRule(
            c.Stage.RERANK,
            OneOf(KIND, ("RERANKER",)),
            StageFields(
                name=Attr(RERANKER_MODEL),
                top_k=Attr(RERANKER_TOP_K),
                input_documents=FlatDocuments(RERANKER_INPUT, score_field=None),
                documents=FlatDocuments(RERANKER_OUTPUT, text_field=DOCUMENT_CONTENT),
            ),
        ),
        StageRule(
            c.Stage.GENERATE,
            OneOf(KIND, ("LLM",)),
            StageFields(
                name=Attr(LLM_MODEL),
                answer=FirstOf((LLM_OUTPUT_CONTENT, OUTPUT_VALUE)),
            ),
        ),
        StageRule(
            c.Stage.QUESTION,
            AllOf((OneOf(KIND, ("CHAIN", "AGENT")), Has(INPUT_VALUE))),
            StageFields(question_text=Attr(INPUT_VALUE), question_mime=Attr(INPUT_MIME)),
        ),
    ),
)
