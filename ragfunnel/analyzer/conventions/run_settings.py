"""How each convention names a run's configuration: SQL expressions over an ``otel_traces`` row.

Every :class:`RunSettings` a convention declares gives a settings rule: the first convention
whose marker holds claims a span (as for stage rows), then the first of its settings whose
``on`` holds. :func:`run_setting_columns` gives the expressions of one setting row — the
span's settings rule, its run, each attribute key's setting name (``''``: not a setting) and
whether a question is a trace — and the store's SELECT (``store/tables/traces.py``,
``run_settings``) runs them. ragfunnel's question spans name their settings
``ragfunnel.pipeline.<name>``; OpenInference and GenAI spans by their own attributes
(``llm.model_name``, ``gen_ai.request.temperature``, ...). Expressions only: no statement, and
it never talks to a store.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ragfunnel.analyzer.conventions import catalog
from ragfunnel.analyzer.conventions.assemble import _a, _by_rule, _condition, _lit
from ragfunnel.analyzer.conventions.vocabulary import Convention, RunSettings

__all__ = ["RunSettingColumns", "run_setting_columns"]


@dataclass(frozen=True)
class RunSettingColumns:
    """The expressions of a setting row.

    Attributes:
        where: a condition on ``otel_traces``' own columns that every settings span meets
            (the table's skip indexes can use it).
        rule: the span's settings rule (0: none), to be named ``Rule`` — the others read it.
        run: the span's run id.
        per_trace: whether the span's questions are its trace (count traces, not spans).
        name: the setting an attribute key (the expression ``key``) names; ``''`` for none.
    """

    where: str
    rule: str
    run: str
    per_trace: str
    name: str


def _name(settings: RunSettings) -> str:
    branches = []
    if settings.prefix:
        start = len(settings.prefix) + 1
        branches.append(f"startsWith(key, {_lit(settings.prefix)}), substring(key, {start})")
    if settings.keys:
        branches.append(f"key IN ({', '.join(_lit(k) for k in settings.keys)}), key")
    return f"multiIf({', '.join(branches)}, '')" if branches else "''"


def run_setting_columns(
    conventions: Sequence[Convention] | None = None,
) -> RunSettingColumns | None:
    """The expressions of the module docstring; None when no convention declares settings."""
    conventions = catalog.CONVENTIONS if conventions is None else tuple(conventions)
    declared = [(c, s) for c in conventions for s in c.settings]
    if not declared:
        return None
    branches, number = [], 0
    for convention in conventions:
        inner = []
        for settings in convention.settings:
            number += 1
            inner.append(f"{_condition(settings.on)}, {number}")
        rule = f"multiIf({', '.join(inner)}, 0)" if inner else "0"
        branches.append(f"{_condition(convention.marker)}, {rule}")
    where = " OR ".join(f"({_condition(c.marker)} AND {_condition(s.on)})" for c, s in declared)
    return RunSettingColumns(
        where=where,
        rule=f"toUInt8(multiIf({', '.join(branches)}, 0))",
        run=_by_rule([None if s.run_id is None else _a(s.run_id.key) for _, s in declared], "''"),
        per_trace=_by_rule(["1" if s.per_trace else None for _, s in declared], "0"),
        name=_by_rule([_name(s) for _, s in declared], "''"),
    )
