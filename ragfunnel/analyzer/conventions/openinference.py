"""OpenInference spans (semantic conventions 0.1.x), as Phoenix instrumentations write them.

``RETRIEVER`` spans list documents flattened into ``retrieval.documents.N.document.id|score``
(and ``…document.content``, the chunk text the judges read);
``RERANKER`` spans take ``reranker.input_documents.N…`` and give ``reranker.output_documents.N…``;
``LLM`` spans answer in ``llm.output_messages.0.message.content``, else ``output.value``; a
``CHAIN`` or ``AGENT`` span with an ``input.value`` is a question candidate (the analysis takes
the earliest of the trace). Each trace is one question. This module holds the declaration only.
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
    SpanName,
    StageFields,
    StageRule,
)
from ragfunnel.instrumentation import contract as c

__all__ = [
    "DOCUMENT_CONTENT",
    "INPUT_MIME",
    "INPUT_VALUE",
    "LLM_MODEL",
    "LLM_OUTPUT_CONTENT",
    "OPENINFERENCE",
    "OUTPUT_VALUE",
    "RERANKER_INPUT",
    "RERANKER_MODEL",
    "RERANKER_OUTPUT",
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

OPENINFERENCE = Convention(
    name="openinference",
    marker=Has(KIND),
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
