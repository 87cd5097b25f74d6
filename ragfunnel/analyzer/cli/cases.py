"""``ragfunnel cases rebase``: rewrite a cases file's chunk ids for every later index."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.exits import reported
from ragfunnel.analyzer.cli.options import ChunksOption, QuietOption, StoreOption
from ragfunnel.analyzer.cli.output import say
from ragfunnel.analyzer.nouns import count

CASES_HELP = """Work on evaluation cases files.

\b
Examples:
  ragfunnel cases rebase cases.yaml --from-index v1
"""

REBASE_HELP = """Rewrite a cases file from chunk ids to document + quote, so it survives \
re-chunking.

Each chunk id of the cases' evidence becomes {document, quote} with the chunk's text — or \
{document, start, end} when only its character offsets are known — read from the ingest \
spans of the index version the cases were written against (--from-index), their texts \
completed by --chunks where the spans recorded none. Every later index resolves such evidence \
against its own chunks (docs/funnel.md, "Cases"). Groups, other fields and document leaves are \
kept. The cases are written to --output (default: CASES.rebased with the same extension, in \
the same format); the input is overwritten only with --in-place. Every chunk id that could \
not be rewritten is listed on stderr with the reason, and stays a chunk id.

\b
Examples:
  ragfunnel cases rebase cases.yaml --from-index v1
  ragfunnel cases rebase cases.csv --from-index 2024-06 --chunks chunks.jsonl -o new.csv
"""

cases_app = typer.Typer(name="cases", help=CASES_HELP, no_args_is_help=True)
app.add_typer(cases_app, name="cases")


@cases_app.command("rebase", help=REBASE_HELP)
def rebase_command(
    cases: Annotated[
        Path, typer.Argument(metavar="CASES", help="The cases file: YAML, JSON, JSONL or CSV.")
    ],
    *,
    from_index: Annotated[
        str,
        typer.Option(
            "--from-index",
            metavar="VERSION",
            help="The index version the cases' chunk ids belong to (its ingest spans' "
            "ragfunnel.index.version).",
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output", "-o", metavar="OUT", help="Where to write (default CASES.rebased.EXT)."
        ),
    ] = None,
    in_place: Annotated[
        bool, typer.Option("--in-place", help="Overwrite the cases file itself.")
    ] = False,
    chunks: ChunksOption = None,
    store: StoreOption = None,
    quiet: QuietOption = False,
) -> None:
    """Rewrite a cases file's chunk ids (see REBASE_HELP)."""
    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.workflows import rebase_from_store

    flags = {"from_index": "--from-index", "output": "--output"}
    with (
        reported("cases rebase", flags=flags),
        Store.open_for_analysis(store, read_only=True) as opened,
    ):
        done = rebase_from_store(
            opened, cases, from_index=from_index, output=output, in_place=in_place, chunks=chunks
        )
    for problem in done.problems:
        typer.echo(f"ragfunnel cases rebase: not rewritten: {problem}", err=True)
    left = len(done.problems)
    say(
        f"wrote {count(done.cases, 'case')} to {done.output}: "
        f"{count(done.rewritten, 'chunk id')} rewritten "
        f"as document + quote or span"
        + (f", {left:,} left as they were (listed above)" if left else ""),
        quiet=quiet,
    )
