"""``ragfunnel funnel``: one question's funnel, stage by stage, and where it was lost."""

from __future__ import annotations

import difflib
from typing import Annotated

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.exits import fail, reported, show_notices, usage_error
from ragfunnel.analyzer.cli.options import (
    CasesOption,
    IndexManifestOption,
    JaegerUrlOption,
    QuietOption,
    ReadOnlyOption,
    RunOption,
    StoreOption,
)
from ragfunnel.analyzer.cli.output import say

FUNNEL_HELP = """Show one question's funnel: where each expected chunk was (indexed, \
candidate rank, rerank rank, prompt position), where it was lost and why, the answer \
verdict, flags and the trace id (a Jaeger link with --jaeger).

QUESTION_ID is a case id (with --cases) or, without cases, the question id of a trace.

\b
Examples:
  ragfunnel funnel q-017 --cases cases.yaml
  ragfunnel funnel q-017 --cases cases.yaml --run 2024-06-01 --jaeger http://localhost:16686
  ragfunnel funnel q-3f2a9c01d2e4b5a6
"""


@app.command("funnel", help=FUNNEL_HELP)
def funnel_command(
    question_id: Annotated[str, typer.Argument(metavar="QUESTION_ID", show_default=False)],
    *,
    store: StoreOption = None,
    cases: CasesOption = None,
    run: RunOption = None,
    index_manifest: IndexManifestOption = None,
    jaeger: JaegerUrlOption = None,
    read_only: ReadOnlyOption = False,
    quiet: QuietOption = False,
) -> None:
    """Print one question's funnel record (see FUNNEL_HELP)."""
    from ragfunnel.analyzer.cases import load_cases
    from ragfunnel.analyzer.funnel import FunnelResult
    from ragfunnel.analyzer.report import describe_record, describe_shape
    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.workflows import question_funnel

    with reported("funnel"):
        case_set = load_cases(cases) if cases is not None else None
        with Store.open_for_analysis(store, read_only=read_only or None) as opened:
            found = question_funnel(
                opened, case_set, question_id, runs=run, index_manifest=index_manifest
            )
            if case_set is None or not isinstance(found, FunnelResult):
                blocks = [describe_shape(r) for r in found.records.iter_rows(named=True)]
                notices = found.notices
            else:
                result = found
                case = case_set.by_id(question_id)
                text = case.question if case else ""
                blocks = [
                    describe_record(r, question=text, jaeger=jaeger or "")
                    for r in result.records.sort("started", "run_id").iter_rows(named=True)
                ]
                notices = result.notices
    show_notices("funnel", notices)
    if not blocks:
        where = " for that run" if run else ""
        if case_set is not None and case_set.by_id(question_id) is None:
            ids = [str(i) for i in case_set.columns.frame.get_column("id").to_list()]
            close = difflib.get_close_matches(question_id, ids, n=3)
            hint = f" (did you mean {' or '.join(repr(c) for c in close)}?)" if close else ""
            usage_error(
                "funnel",
                f"no question {question_id!r} in the store{where}, and no case in {cases} "
                f"has that id{hint}",
            )
        fail("funnel", f"no question {question_id!r} in the store{where}")
    say("\n\n".join(blocks), quiet=quiet)
