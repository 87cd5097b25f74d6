"""The LLM judges' prompts, their versions, and the schemas their replies must follow.

A prompt's version is part of every cache key: changing a prompt's wording must bump its
version, or cached verdicts of the old wording would be served for the new one. The JSON
schemas go to the endpoint as structured output; replies are validated here again (msgspec)
whatever the server claims, because many OpenAI-compatible servers ignore the schema.
docs/judges.md shows every prompt in full.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Literal

import msgspec

from ragfunnel.analyzer.judges.verdict_types import Chunk

__all__ = [
    "CLAIMS_SCHEMA",
    "CLAIMS_VERSION",
    "CORRECTNESS_SCHEMA",
    "CORRECTNESS_VERSION",
    "FACTCHECK_VERSION",
    "VERDICTS_SCHEMA",
    "VERDICTS_VERSION",
    "ClaimsReply",
    "CorrectnessReply",
    "VerdictItem",
    "VerdictsReply",
    "claims_messages",
    "correctness_messages",
    "factcheck_messages",
    "verdicts_messages",
]

CLAIMS_VERSION = "claims-v1"
VERDICTS_VERSION = "verdicts-v1"
FACTCHECK_VERSION = "factcheck-v1"
CORRECTNESS_VERSION = "correctness-v1"


class ClaimsReply(msgspec.Struct, forbid_unknown_fields=True):
    """The decomposition call's reply: the answer's claims (none for a refusal)."""

    claims: list[str]


class VerdictItem(msgspec.Struct, forbid_unknown_fields=True):
    """One claim's verdict in the batched verdict reply."""

    claim: int
    verdict: Literal["supported", "partial", "unsupported"]
    supporting_ids: list[str]
    missing: str


class VerdictsReply(msgspec.Struct, forbid_unknown_fields=True):
    """The verdict call's reply: one item per numbered claim."""

    verdicts: list[VerdictItem]


class CorrectnessReply(msgspec.Struct, forbid_unknown_fields=True):
    """The correctness call's reply, against the reference answer."""

    verdict: Literal["correct", "incomplete", "wrong"]
    missing: str
    reason: str


def _object(properties: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": properties,
        "required": list(properties),
        "additionalProperties": False,
    }


_STRINGS = {"type": "array", "items": {"type": "string"}}
CLAIMS_SCHEMA = _object({"claims": _STRINGS})
VERDICTS_SCHEMA = _object(
    {
        "verdicts": {
            "type": "array",
            "items": _object(
                {
                    "claim": {"type": "integer"},
                    "verdict": {"type": "string", "enum": ["supported", "partial", "unsupported"]},
                    "supporting_ids": _STRINGS,
                    "missing": {"type": "string"},
                }
            ),
        }
    }
)
CORRECTNESS_SCHEMA = _object(
    {
        "verdict": {"type": "string", "enum": ["correct", "incomplete", "wrong"]},
        "missing": {"type": "string"},
        "reason": {"type": "string"},
    }
)

_CLAIMS_SYSTEM = """\
You split an answer into atomic claims. A claim is one checkable statement of fact, \
self-contained (resolve pronouns, keep numbers, units, dates, names, negations and qualifiers \
such as "always", "never", "only", "jederzeit" exactly as written). Keep the answer's language. \
Drop greetings, hedges and statements about the answerer. If the answer declines to answer \
(for example "I don't know", "Dazu habe ich keine Informationen"), return no claims.
Reply with JSON only: {"claims": ["...", "..."]}"""

_VERDICTS_SYSTEM = """\
You check claims against a context. For each numbered claim decide, using only the context \
(all of its chunks together; their order does not matter):
- "supported": the context states everything the claim says, including every number, unit, \
date, time, name, negation and qualifier;
- "partial": the context supports the main point but not every detail;
- "unsupported": the context does not say it, or contradicts it.
Give the ids of the chunks that support the claim, and for a claim that is not supported, the \
term or detail that is missing or contradicted (quote it), else "".
Reply with JSON only: {"verdicts": [{"claim": 1, "verdict": "supported", \
"supporting_ids": ["chunk-id"], "missing": ""}]} with one item per claim."""

_FACTCHECK_SYSTEM = (
    "Determine whether the provided claim is consistent with the corresponding document. "
    "Consistency here means every part of the claim is supported by the document. "
    "Answer with Yes or No only."
)

_CORRECTNESS_SYSTEM = """\
You compare an answer with a reference answer to the same question. Decide:
- "correct": the answer states everything the reference states (wording may differ);
- "incomplete": the answer states part of it and contradicts none of it; name the missing part;
- "wrong": the answer contradicts the reference, or states none of it.
Reply with JSON only: {"verdict": "correct", "missing": "", "reason": "one sentence"}"""


def _context_text(chunks: Sequence[Chunk]) -> str:
    return "\n\n".join(f"[{c.id}]\n{c.text}" for c in chunks)


def claims_messages(answer: str, question: str | None) -> list[dict[str, str]]:
    """The decomposition call (prompt ``claims-v1``)."""
    user = (f"Question: {question}\n\n" if question else "") + f"Answer:\n{answer}"
    return [{"role": "system", "content": _CLAIMS_SYSTEM}, {"role": "user", "content": user}]


def verdicts_messages(claims: Sequence[str], chunks: Sequence[Chunk]) -> list[dict[str, str]]:
    """The batched verdict call (prompt ``verdicts-v1``): claims numbered from 1."""
    numbered = "\n".join(f"{n}. {claim}" for n, claim in enumerate(claims, start=1))
    user = f"Context:\n{_context_text(chunks)}\n\nClaims:\n{numbered}"
    return [{"role": "system", "content": _VERDICTS_SYSTEM}, {"role": "user", "content": user}]


def factcheck_messages(claim: str, chunks: Sequence[Chunk]) -> list[dict[str, str]]:
    """One fact-checking call (prompt ``factcheck-v1``), MiniCheck's document/claim form."""
    document = "\n\n".join(c.text for c in chunks)
    return [
        {"role": "system", "content": _FACTCHECK_SYSTEM},
        {"role": "user", "content": f"Document: {document}\nClaim: {claim}"},
    ]


def correctness_messages(question: str, answer: str, reference: str) -> list[dict[str, str]]:
    """The correctness call (prompt ``correctness-v1``)."""
    user = f"Question: {question}\n\nReference answer:\n{reference}\n\nAnswer:\n{answer}"
    return [{"role": "system", "content": _CORRECTNESS_SYSTEM}, {"role": "user", "content": user}]


def response_format(schema: dict[str, Any], name: str, style: str) -> dict[str, Any] | None:
    """The ``response_format`` argument for ``style`` (``json_schema``, ``json_object``, ``none``)."""
    if style == "json_schema":
        return {
            "type": "json_schema",
            "json_schema": {"name": name, "schema": schema, "strict": True},
        }
    if style == "json_object":
        return {"type": "json_object"}
    return None


def schema_text(schema: dict[str, Any]) -> str:
    """A schema as compact JSON, for a corrective retry message."""
    return json.dumps(schema, separators=(",", ":"))
