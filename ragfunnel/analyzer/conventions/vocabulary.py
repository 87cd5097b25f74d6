"""The vocabulary of span conventions: plain frozen data, no SQL.

A :class:`Convention` says how the spans of one source (ragfunnel's decorators, OpenInference,
OpenTelemetry GenAI, ...) are recognised and, stage by stage, where each column of the stage
row comes from. ``assemble.py`` turns the declared conventions into the one SELECT that
normalises ``otel_traces`` rows; nothing here knows SQL, so a declaration reads as the
convention's documentation does. This module must never import the store or anything above it.

Values are read from one ``otel_traces`` row. An :class:`Attr` is parsed as the column it fills
needs: text as is, numbers as numbers (null when absent or not a number), flags as
``value == 'true'``, string lists as a JSON array. Absent attributes read as empty text.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace

from ragfunnel.instrumentation.contract import Stage

__all__ = [
    "AllOf",
    "Attr",
    "Condition",
    "Convention",
    "Documents",
    "FirstOf",
    "FlatDocuments",
    "Has",
    "JsonDocuments",
    "JsonList",
    "JsonText",
    "OneOf",
    "RunSettings",
    "SpanName",
    "SpanNamed",
    "StageFields",
    "StageRule",
    "Text",
]


@dataclass(frozen=True)
class Attr:
    """A span attribute, parsed as the column it fills needs."""

    key: str


@dataclass(frozen=True)
class SpanName:
    """The span's own name (``otel_traces.SpanName``)."""


@dataclass(frozen=True)
class JsonText:
    """A string inside an attribute that holds JSON, reached by 1-based indexes and keys.

    ``JsonText("gen_ai.output.messages", (1, "parts", 1, "content"))`` is the first part's
    content of the first message. Present when the attribute is.
    """

    key: str
    path: tuple[int | str, ...]


@dataclass(frozen=True)
class FirstOf:
    """The value of the first of these attributes the span has (present if any is)."""

    keys: tuple[str, ...]


Text = Attr | SpanName | JsonText | FirstOf
"""Where a text column comes from."""


@dataclass(frozen=True)
class JsonList:
    """Ids as a JSON array of strings in one attribute, scores (optional) in another.

    Present when the ids attribute is, even if its list is empty.
    """

    ids: str
    scores: str | None = None
    texts: str | None = None
    """The chunks' texts as a JSON array of strings, in the ids' order (read by the judges)."""


@dataclass(frozen=True)
class FlatDocuments:
    """Documents flattened into numbered attributes (OpenInference's shape).

    ``{prefix}.{N}.{id_field}`` and ``{prefix}.{N}.{score_field}``, in the order of ``N``.
    Present when at least one numbered attribute exists.
    """

    prefix: str
    id_field: str = "document.id"
    score_field: str | None = "document.score"
    text_field: str | None = None
    """``{prefix}.{N}.{text_field}`` holds the chunk's text (read by the judges)."""


@dataclass(frozen=True)
class JsonDocuments:
    """Documents as a JSON array of objects in one attribute.

    ``[{id_field: ..., score_field: ...}, ...]``. Present when the attribute is.
    """

    key: str
    id_field: str = "id"
    score_field: str | None = "score"
    text_field: str | None = None
    """Each object's field with the chunk's text (read by the judges)."""


Documents = JsonList | FlatDocuments | JsonDocuments
"""Where a ranked list of ids (and their scores) comes from."""


@dataclass(frozen=True)
class Has:
    """The attribute is set to a non-empty value."""

    key: str


@dataclass(frozen=True)
class OneOf:
    """The attribute's value is one of ``values``."""

    key: str
    values: tuple[str, ...]


@dataclass(frozen=True)
class SpanNamed:
    """The span's name is one of ``names``."""

    names: tuple[str, ...]


@dataclass(frozen=True)
class AllOf:
    """Every one of ``conditions`` holds."""

    conditions: tuple[Condition, ...]


Condition = Has | OneOf | SpanNamed | AllOf
"""A test on one span: its attributes or its name."""


@dataclass(frozen=True)
class StageFields:
    """Where each column of a stage row comes from; ``None`` leaves the column's default.

    Defaults: empty text, null numbers, false flags, empty lists; ``mode`` ``'pipeline'``.
    Without a ``question_key`` each trace is one question, keyed ``trace:<TraceId>``.
    ``documents`` fills ``Ids``, ``IdHashes``, ``HasIds``, ``Scores`` and ``TopScore``;
    ``input_documents`` (ids only) ``InputHashes`` and ``HasInput``; ``answer`` ``AnswerText``
    and ``HasAnswer``.
    """

    question_key: Text | None = None
    run_id: Text | None = None
    question_hash: Text | None = None
    question_text: Text | None = None
    question_mime: Text | None = None
    index_version: Text | None = None
    abstained: Attr | None = None
    name: Text | None = None
    fused_from: Attr | None = None
    top_k: Attr | None = None
    cut_k: Attr | None = None
    cut_threshold: Attr | None = None
    cut_token_budget: Attr | None = None
    documents: Documents | None = None
    input_documents: Documents | None = None
    document_id: Text | None = None
    mode: Text | None = None
    sample_index: Attr | None = None
    answer: Text | None = None
    logprobs_min: Attr | None = None
    low_confidence: Attr | None = None

    def over(self, common: StageFields) -> StageFields:
        """These fields, with ``common``'s filling the ones left ``None``."""
        merged = {f.name: getattr(self, f.name) for f in fields(self)}
        defaults = {k: getattr(common, k) for k, v in merged.items() if v is None}
        return replace(self, **defaults)


@dataclass(frozen=True)
class StageRule:
    """Spans for which ``when`` holds are ``stage`` spans, with these fields."""

    stage: Stage
    when: Condition
    fields: StageFields = field(default_factory=StageFields)


@dataclass(frozen=True)
class RunSettings:
    """Where a convention's spans record how the pipeline was set up: a run's configuration.

    A report shows, per run, each setting's value (``docs/report.md``). Settings are read from
    the spans ``on`` selects, of this convention only.

    Attributes:
        on: the spans that carry the settings.
        prefix: every attribute under this prefix is a setting, named without it.
        keys: these attributes are settings, named as the span names them.
        run_id: the attribute holding the span's run id; without one, the run id is ``""``
            (a foreign trace's run, as its stage rows have it).
        per_trace: a question is a trace (foreign traces): a value is counted once per trace
            however many spans repeat it; otherwise once per span.
    """

    on: Condition
    prefix: str | None = None
    keys: tuple[str, ...] = ()
    run_id: Attr | None = None
    per_trace: bool = False


@dataclass(frozen=True)
class Convention:
    """One source of spans.

    A span belongs to the first convention (in the order they are assembled) whose ``marker``
    holds, whatever else it carries; the first of its ``rules`` that holds gives its stage, and
    a claimed span that no rule matches is no stage span. ``common`` fields apply to every
    rule, under the rule's own.

    Attributes:
        name: the ``Source`` column's value for its spans.
        marker: what claims a span for this convention.
        rules: the stages it knows, first match wins.
        common: fields shared by all of its stages.
        settings: where its spans record the run's configuration, first match wins.
    """

    name: str
    marker: Condition
    rules: tuple[StageRule, ...]
    common: StageFields = field(default_factory=StageFields)
    settings: tuple[RunSettings, ...] = ()
