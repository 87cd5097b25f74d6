"""Answers of the local OpenAI-compatible server for the worked example (hotel and taxi)."""

from __future__ import annotations

import json
import re
from typing import Any

from ragfunnel.analyzer.language.claims import split_claims
from tests.support.fake_openai import request_kind, user_text


def numbered_claims(body: dict[str, Any]) -> list[str]:
    return re.findall(r"^\d+\. (.*)$", user_text(body).split("Claims:\n", 1)[1], re.MULTILINE)


def worked_example_responder(body: dict[str, Any]) -> str:
    """Splits like a careful model, and rates the 'jederzeit' claim unsupported."""
    kind = request_kind(body)
    if kind == "claims":
        answer = user_text(body).split("Answer:\n", 1)[1]
        return json.dumps({"claims": list(split_claims(answer).claims)})
    verdicts = []
    present = re.findall(r"^\[([^\]]+)\]$", user_text(body), re.MULTILINE)
    for n, claim in enumerate(numbered_claims(body), start=1):
        if "jederzeit" in claim:
            verdicts.append(
                {
                    "claim": n,
                    "verdict": "unsupported",
                    "supporting_ids": ["taxi"],
                    "missing": "jederzeit (the context allows a taxi from 22:00 only)",
                }
            )
        else:
            ids = ["taxi"] if "Taxi" in claim else ["hotel-allowance"]
            ids = [i for i in ids if i in present] or present[:1]
            verdicts.append(
                {"claim": n, "verdict": "supported", "supporting_ids": ids, "missing": ""}
            )
    return json.dumps({"verdicts": verdicts})


def responder(body: dict[str, Any]) -> str:
    if request_kind(body) == "correctness":
        answer = user_text(body).split("Answer:\n", 1)[1]
        if "jederzeit" in answer:
            return json.dumps(
                {
                    "verdict": "incomplete",
                    "missing": "ein Taxi ist ab 22 Uhr erlaubt",
                    "reason": "the taxi rule is stated wrongly",
                }
            )
        return json.dumps({"verdict": "correct", "missing": "", "reason": "same facts"})
    return worked_example_responder(body)
