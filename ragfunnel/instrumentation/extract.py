"""Reading ids, scores and text out of the values a RAG app already has.

The decorators never ask the app to change its return values: they recognise the shapes that
retrievers, rerankers and LLM clients commonly return — plain ids, ``(id, score)`` pairs, dicts,
objects with ``.id``/``.score``, LangChain ``Document`` (``metadata["id"]``), LlamaIndex
``NodeWithScore`` and OpenAI ``ChatCompletion`` objects — by duck typing, without importing any of
those libraries. Everything here is pure and may raise on shapes it cannot read; the caller turns
that into a counted internal error.

It must never consume what it reads: iterators, generators, async iterators and iterables of
unknown kind are one-shot or lazy, and iterating them would hand the app an exhausted or
re-run value. Only materialised containers (list, tuple, deque, range — not subclasses that
override iteration), mappings and the document objects above are read; anything else raises
:class:`Unread`, which the caller counts instead of recording.
"""

from __future__ import annotations

import math
import operator
from collections import deque
from collections.abc import AsyncIterable, Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from itertools import repeat
from operator import countOf
from typing import Any

from ragfunnel.instrumentation.contract import (
    READ_AS_IDS,
    READ_AS_TEXTS,
    looks_like_id,
    text_id,
)
from ragfunnel.instrumentation.redaction import redact_ids, redact_urls

_ID_KEYS = ("id", "doc_id", "document_id", "chunk_id", "node_id", "_id", "uuid")
_SCORE_KEYS = ("score", "relevance_score", "similarity", "distance_score")
_TEXT_KEYS = ("text", "page_content", "content", "document", "chunk")


class ExtractionError(ValueError):
    """A value had a shape the extractors do not understand."""


class Unread(Exception):
    """A value left unread on purpose: reading it could change what the app sees."""

    def __init__(self, value: Any):
        self.kind = type(value).__name__
        super().__init__(f"a {self.kind} (one-shot or lazy: reading it would consume it)")


_MATERIALISED: dict[type, tuple[Any, ...]] = {
    t: (t.__iter__, t.__len__, t.__getitem__) for t in (list, tuple, deque, range)
}


def _materialised(value: Any) -> bool:
    """True for list/tuple/deque/range, and subclasses that keep their base's iteration."""
    cls = type(value)
    if cls in _MATERIALISED:
        return True
    for base, methods in _MATERIALISED.items():
        if isinstance(value, base):
            return (cls.__iter__, cls.__len__, cls.__getitem__) == methods
    return False


def is_stream(value: Any) -> bool:
    """One-shot values: iterators, generators, async iterators (never passed to user callables)."""
    return isinstance(value, (Iterator, AsyncIterable)) or hasattr(type(value), "__anext__")


@dataclass
class Ranked:
    """A ranked list as recorded on a span: ids in rank order and, when known, their scores."""

    ids: list[str] = field(default_factory=list)
    scores: list[float] | None = None
    texts: list[str] | None = None
    redacted: bool = False
    """The ids' URLs are redacted already (``redaction.redact_ids`` need not look again)."""
    read_as: str | None = None
    """For a list of plain strings: whether they were read as ``ids`` or as ``texts``."""


def field_of(obj: Any, key: str) -> Any:
    """``obj[key]`` for a mapping, else ``obj.key``; None when missing."""
    if isinstance(obj, Mapping):
        return obj.get(key)
    return getattr(obj, key, None)


def _as_id(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, (int, bytes)) and not isinstance(value, bool):
        return value.decode() if isinstance(value, bytes) else str(value)
    raise ExtractionError(f"cannot use {type(value).__name__} as a document id")


def _item_id(item: Any) -> str:
    if isinstance(item, (str, int)) and not isinstance(item, bool):
        return _as_id(item)
    if isinstance(item, tuple) and item:
        return _item_id(item[0])
    node = field_of(item, "node")  # LlamaIndex NodeWithScore
    if node is not None and not isinstance(item, Mapping):
        return _item_id(node)
    for key in _ID_KEYS:
        value = field_of(item, key)
        if value is not None:
            return _as_id(value)
    metadata = field_of(item, "metadata")  # LangChain Document, LlamaIndex nodes
    if isinstance(metadata, Mapping):
        for key in _ID_KEYS:
            value = metadata.get(key)
            if value is not None:
                return _as_id(value)
    raise ExtractionError(f"no id found on {type(item).__name__}; pass ids= to the decorator")


def _item_score(item: Any) -> float | None:
    if isinstance(item, tuple) and len(item) >= 2 and isinstance(item[1], (int, float)):
        return float(item[1])
    for key in _SCORE_KEYS:
        value = field_of(item, key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            return float(value)
    metadata = field_of(item, "metadata")
    if isinstance(metadata, Mapping):
        # LangChain document compressors (Cohere, FlashRank, cross-encoder rerankers) put
        # their score in metadata["relevance_score"].
        for key in ("score", "relevance_score"):
            value = metadata.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                return float(value)
    return None


def _item_text(item: Any) -> str | None:
    if isinstance(item, str):
        return item
    if isinstance(item, tuple) and item:
        return _item_text(item[0]) if not isinstance(item[0], str) else None
    node = field_of(item, "node")
    if node is not None and not isinstance(item, Mapping):
        return _item_text(node)
    for key in _TEXT_KEYS:
        value = field_of(item, key)
        if isinstance(value, str):
            return value
    getter = getattr(item, "get_content", None)  # LlamaIndex BaseNode
    if callable(getter):
        value = getter()
        if isinstance(value, str):
            return value
    return None


def items_of(value: Any) -> Sequence[Any]:
    """The list of documents inside a value (a list, or a dict/object holding one).

    Raises :class:`Unread` for anything that cannot be read without consuming it.
    """
    cls = type(value)
    if cls is list or cls is tuple:  # the common case, before any other check
        return value  # type: ignore[no-any-return]
    if value is None:
        return []
    if _materialised(value):
        return value if isinstance(value, (list, tuple)) else list(value)
    if is_stream(value):
        raise Unread(value)
    for key in ("documents", "docs", "results", "nodes", "source_nodes", "chunks", "hits"):
        inner = field_of(value, key)
        if inner is None or isinstance(inner, (str, bytes)):
            continue
        if _materialised(inner):
            return inner if isinstance(inner, (list, tuple)) else list(inner)
        if isinstance(inner, (Iterable, AsyncIterable)):
            raise Unread(inner)
    if isinstance(value, Iterable) and not isinstance(value, (str, bytes, Mapping)):
        raise Unread(value)
    raise ExtractionError(f"cannot find a document list in {type(value).__name__}")


def fast_ranked(items: Sequence[Any]) -> tuple[Sequence[str], Sequence[float] | None] | None:
    """Ids (URLs redacted) and scores of the common homogeneous shapes, or ``None``.

    Checked and split by C-level builtins, not per-item probing. Every item's type is proven
    before it is touched — indexing or iterating any other item would run app code — by one
    ``countOf(map(type, ...))`` pass for the usual list of plain tuples (a set of types for the
    mixed and dict shapes); ``zip(*items)`` splits ids from scores; one more counting pass
    proves every score a float (or int); ``"".join`` proves every id a string and gives the
    text searched once for ``://`` (ids holding a URL are redacted). ``None`` when the list is
    not uniformly one of the fast shapes: the general path of :func:`ranked` then handles it.
    This keeps a 50-document span within the overhead budget of bench/RESULTS.md ("Decorator
    overhead"). ``items`` must be non-empty.
    """
    first = type(items[0])
    n = len(items)
    if first is tuple and countOf(map(type, items), tuple) == n:
        # Plain tuples: the general path reads item[0] and item[1] of each; so do the columns
        # (zip stops at the shortest tuple, and a 1-tuple leaves fewer than two columns).
        pairs = zip(*items)  # noqa: B905 - lazily: a third column is never built
        ids: Sequence[Any] = next(pairs, ())
        scores: Sequence[Any] = next(pairs, ())
        if not scores:
            return None
        if countOf(map(type, scores), float) == n:  # the usual case, _checked() inlined
            kept = scores if math.isfinite(sum(scores)) else None
            try:
                joined = "".join(ids)
            except TypeError:
                return None
            if "://" in joined:
                return [redact_urls(i) for i in ids], kept
            return ids, kept
    elif first is dict:
        if countOf(map(type, items), dict) != n:
            return None
        try:
            ids = list(map(_get_id, items))
        except KeyError:
            return None
        scores = list(map(dict.get, items, repeat("score", n)))
        if countOf(map(type, scores), _NONE_TYPE) == n:
            return _checked(ids, None)
    elif first is tuple or first is list:
        # Only plain tuples/lists are split: an arbitrary item's __iter__ is app code.
        if not set(map(type, items)) <= _PAIRS:
            return None
        try:  # (id, score, ...) or [id, score, ...], all of one length
            columns = tuple(zip(*items, strict=True))
        except ValueError:
            return None
        if len(columns) < 2:
            return None
        ids, scores = columns[0], columns[1]
    elif first is str:
        try:
            joined = "".join(items)
        except TypeError:
            return None
        # Strings with whitespace are texts, not ids: the general path reads them (strings).
        return _checked(items, None) if looks_like_id(joined) else None
    else:
        return None
    if countOf(map(type, scores), float) == n:
        floats: Sequence[float] = scores
    elif set(map(type, scores)) <= _NUMBER:  # ints become doubles, as the contract's type says
        floats = list(map(float, scores))
    else:
        return None
    # One NaN or infinity makes the sum non-finite: keep the ids, drop the scores. (A sum of
    # finite scores near 1e308 would overflow too; such scores are dropped the same way.)
    return _checked(ids, floats if math.isfinite(sum(floats)) else None)


def _fast_ranked(items: Sequence[Any]) -> Ranked | None:
    found = fast_ranked(items)
    if found is None:
        return None
    ids, scores = found
    return Ranked(list(ids), None if scores is None else list(scores), redacted=True)


def _checked(
    ids: Sequence[Any], scores: Sequence[float] | None
) -> tuple[Sequence[str], Sequence[float] | None] | None:
    """``ids`` (URLs redacted) and ``scores``; ``None`` when an id is not a string.

    The sequences may be the app's own list or tuples: they are only ever handed to the SDK,
    which copies every attribute value into a tuple of its own when it is set.
    """
    try:
        joined = "".join(ids)
    except TypeError:
        return None
    if "://" in joined:
        return [redact_urls(i) for i in ids], scores
    return ids, scores


_NONE_TYPE, _PAIRS, _NUMBER = type(None), {tuple, list}, {float, int}
_get_id, _first, _second = operator.itemgetter("id"), operator.itemgetter(0), operator.itemgetter(1)


def strings_read(items: Sequence[Any], read_as: str | None) -> Ranked | None:
    """A list of plain strings read as ids or as texts; ``None`` when not every item is a str.

    ``read_as`` (the decorator's ``ids=True``/``ids=False``) decides; unset, the strings are
    ids when none holds whitespace (``"tep-en#taxi"``), else texts (contract ``looks_like_id``).
    Texts get text ids (``contract.text_id``): a chunk's text is never recorded as its id.
    """
    n = len(items)
    if not n or countOf(map(type, items), str) != n:
        return None
    if read_as is None:
        read_as = READ_AS_IDS if looks_like_id("".join(items)) else READ_AS_TEXTS
    if read_as == READ_AS_IDS:
        return Ranked(redact_ids(list(items)), read_as=READ_AS_IDS, redacted=True)
    return Ranked([text_id(t) for t in items], texts=list(items), read_as=READ_AS_TEXTS)


def ids_by_text(results: list[Any]) -> dict[str, str]:
    """Text (stripped) → id of every document in these stage results that has both (first wins).

    Reads what ``ranked`` reads (an item's id and text fields); items without either, and
    results that cannot be read without consuming them, are passed over.
    """
    known: dict[str, str] = {}
    for result in results:
        try:
            items = items_of(result)
        except (Unread, ExtractionError):
            continue
        for item in items:
            if type(item) is str:
                continue
            try:
                text, chunk = _item_text(item), _item_id(item)
            except ExtractionError:
                continue
            if text:
                known.setdefault(text.strip(), chunk)
    return known


def ids_of(value: Any, read_as: str | None = None) -> list[str]:
    """Only the ids of a ranked list (a stage's input), URLs redacted: no score work."""
    items = items_of(value)
    if items and (type(items[0]) is str or read_as is not None):
        strings = strings_read(items, read_as)
        if strings is not None:
            return strings.ids
    if items:
        n = len(items)
        if type(items[0]) is tuple:
            # Plain, non-empty tuples only: indexing anything else could run app code. All of
            # them plain: the first column in one C pass (shorter when one tuple is empty).
            ids: Sequence[Any] = ()
            if countOf(map(type, items), tuple) == n:
                ids = next(zip(*items), ())  # noqa: B905 - only the first column is built
            if len(ids) != n:
                ids = [x[0] if type(x) is tuple and x else None for x in items]
        else:
            ids = items
        if (found := _checked(ids, None)) is not None:
            return list(found[0])
    return redact_ids([_item_id(item) for item in items])


def ranked(
    value: Any,
    *,
    ids: Callable[[Any], Iterable[Any]] | None = None,
    scores: Callable[[Any], Iterable[Any]] | None = None,
    texts: bool = False,
    read_as: str | None = None,
) -> Ranked:
    """Extract a :class:`Ranked` list from a stage's input or output.

    ``ids``/``scores`` are the user's callables; they receive the whole value. Scores are kept
    only when every item has a finite one, so ids and scores always align. A list of plain
    strings is read by :func:`strings_read` (``read_as`` forces ids or texts); with an ``ids``
    callable, plain strings are the chunks' texts.
    """
    if (ids is not None or scores is not None) and is_stream(value):
        raise Unread(value)  # the user's callable would consume it
    if ids is not None:
        id_list = [_as_id(i) for i in ids(value)]
        items: Sequence[Any] = ()
        if texts:  # the texts still come from the value's items
            try:
                items = items_of(value)
            except ExtractionError:
                items = ()
            if len(items) != len(id_list):
                items = ()
    else:
        items = items_of(value)
        if items and type(items[0]) is str:
            strings = strings_read(items, read_as)
            if strings is not None:
                if not texts:
                    strings.texts = None
                if scores is not None:
                    strings.scores = _aligned_scores(list(scores(value)), len(items))
                return strings
        if items and scores is None and not texts and (fast := _fast_ranked(items)) is not None:
            return fast
        id_list = [_item_id(item) for item in items]
    if scores is not None:
        raw: list[Any] = list(scores(value))
    else:
        raw = [_item_score(item) for item in items] if items else []
    score_list = _aligned_scores(raw, len(id_list))
    text_list: list[str] | None = None
    if texts and items:
        found = [_item_text(item) for item in items]
        if all(t is not None for t in found):
            text_list = [t for t in found if t is not None]
    return Ranked(id_list, score_list, text_list)


def _aligned_scores(raw: list[Any], n: int) -> list[float] | None:
    """The scores when there is a finite one for each of ``n`` items, else ``None``."""
    if raw and len(raw) == n and all(is_finite(s) for s in raw):
        return [float(s) for s in raw]
    return None


def is_finite(value: Any) -> bool:
    """A real, finite number (not a bool): a score or logprob worth recording."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


# --- chunk offsets (ingest) --------------------------------------------------------------------
_START_KEYS = ("start", "start_char_idx", "start_index")
_END_KEYS = ("end", "end_char_idx", "end_index")


def _offset(item: Any, keys: tuple[str, ...]) -> int | None:
    """The first integer among ``keys`` on the item, then in its ``metadata`` (LangChain)."""
    for source in (item, field_of(item, "metadata")):
        if source is None or (source is not item and not isinstance(source, Mapping)):
            continue
        for key in keys:
            value = field_of(source, key)
            if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
                return value
    return None


def chunk_offsets(value: Any) -> tuple[list[int], list[int]] | None:
    """Each chunk's character range ``[start, end)`` in its document, when every chunk has one.

    A chunk's start is its ``start`` / LlamaIndex ``start_char_idx`` / LangChain
    ``metadata["start_index"]`` (``add_start_index=True``); its end is ``end`` /
    ``end_char_idx``, else the start plus the length of its text. None when a chunk has none
    (offsets of some chunks only would place a span wrongly).
    """
    items = items_of(value)
    starts: list[int] = []
    ends: list[int] = []
    for item in items:
        if isinstance(item, (str, int, tuple)):
            return None
        node = field_of(item, "node")  # LlamaIndex NodeWithScore
        chunk = node if node is not None and not isinstance(item, Mapping) else item
        start = _offset(chunk, _START_KEYS)
        if start is None:
            return None
        end = _offset(chunk, _END_KEYS)
        if end is None:
            text = _item_text(chunk)
            if text is None:
                return None
            end = start + len(text)
        starts.append(start)
        ends.append(end)
    return (starts, ends) if starts else None
