"""``ragfunnel store migrate`` and ``ragfunnel store info``: prepare a store, and see what it holds."""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.exits import reported
from ragfunnel.analyzer.cli.options import JsonOption, QuietOption, StoreOption
from ragfunnel.analyzer.cli.output import STDOUT, iso, say, write_json
from ragfunnel.analyzer.nouns import count

if TYPE_CHECKING:
    from ragfunnel.analyzer.workflows import StageCheck, StoreInventory

STORE_HELP = """Prepare a store for the analyzer, or see what it holds.

\b
Examples:
  ragfunnel store info
  ragfunnel store migrate --store http://admin@clickhouse:8123/otel
"""

MIGRATE_HELP = """Create or update every table and view the analyzer owns in the store: the \
typed stage-span table, the materialized view that fills it from otel_traces as spans arrive \
(backfilled from the spans already there), and the schema marker. Superseded objects of an \
older ragfunnel are dropped. A stage table out of step with otel_traces (an ingest killed \
between the two tables' inserts) is repaired. Safe to run again: a current store is left as it is.

Needs CREATE TABLE, CREATE VIEW, INSERT and DROP on the database (docs/deployment.md). \
Without it, analysis still works, parsing otel_traces at read time.

\b
Examples:
  ragfunnel store migrate
  ragfunnel store migrate --store http://admin@clickhouse:8123/otel
"""

INFO_HELP = """Show what the store holds: the traces table and every analyzer object, with \
row counts, the schema revision applied, whether the view that parses new spans is \
attached, and whether the stage table holds every stage span of otel_traces exactly once (if \
not, it says how to repair it). Reads only: the store is opened read-only.

\b
Examples:
  ragfunnel store info
  ragfunnel store info --store http://reader@clickhouse:8123/otel
"""

store_app = typer.Typer(name="store", help=STORE_HELP, no_args_is_help=True)
app.add_typer(store_app, name="store")


@store_app.command("migrate", help=MIGRATE_HELP)
def migrate_command(*, store: StoreOption = None, quiet: QuietOption = False) -> None:
    """Bring the store to the current revision (see MIGRATE_HELP)."""
    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.workflows import migrate_store

    with reported("store migrate"), Store.open(store, create=False) as opened:
        migrated = migrate_store(opened)
    done, repaired = migrated.migration, migrated.repair
    if repaired is not None and not repaired.consistent:
        say(
            f"stage table repaired: {count(repaired.missing, 'missing stage span')} parsed, "
            f"{count(repaired.extra, 'extra row')} removed",
            quiet=quiet,
        )
    if not done.applied:
        say(f"{opened.dsn_redacted}: at revision {done.after}, nothing to do", quiet=quiet)
        return
    for revision in done.applied:
        say(f"revision {revision.number}: {revision.summary}", quiet=quiet)
    say(f"{opened.dsn_redacted}: revision {done.before} → {done.after}", quiet=quiet)


@store_app.command("info", help=INFO_HELP)
def info_command(
    *, store: StoreOption = None, json_out: JsonOption = None, quiet: QuietOption = False
) -> None:
    """Print what the store holds (see INFO_HELP)."""
    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.workflows import store_info

    with reported("store info"), Store.open(store, read_only=True) as opened:
        info = store_info(opened)
    found, check = info.inventory, info.stage
    quiet = quiet or (json_out is not None and str(json_out) == STDOUT)
    say(info_text(found, check), quiet=quiet)
    if json_out is not None and write_json(info_document(found, check), json_out, "store info"):
        say(f"wrote the inventory to {json_out}", quiet=quiet)


def info_document(found: StoreInventory, check: StageCheck | None = None) -> dict[str, Any]:
    """``ragfunnel store info --json``: the inventory (and the stage table's check) as data."""
    stage = None
    if check is not None:
        stage = {"expected": check.expected, "rows": check.rows, "missing": check.missing,
                 "extra": check.extra, "consistent": check.consistent}  # fmt: skip
    return {
        "command": "store info",
        "generated_at": iso(dt.datetime.now(dt.timezone.utc)),
        "store": found.dsn,
        "database": found.database,
        "revision": found.revision,
        "current_revision": found.current_revision,
        "view_attached": found.view_attached,
        "objects": [
            {"name": o.name, "exists": o.exists, "engine": o.engine, "rows": o.rows,
             "role": o.role}
            for o in found.objects
        ],
        "stage_table": stage,
    }  # fmt: skip


def info_text(found: StoreInventory, check: StageCheck | None = None) -> str:
    """``ragfunnel store info``'s text; ``check`` compares the stage table with otel_traces."""
    lines = [
        f"store {found.dsn}, database {found.database}",
        f"revision {found.revision} of {found.current_revision}"
        + ("" if found.revision >= found.current_revision else " (ragfunnel store migrate)"),
    ]
    width = max(len(o.name) for o in found.objects)
    for o in found.objects:
        if not o.exists:
            state = "absent"
        elif o.rows is None:
            state = o.engine
        else:
            state = f"{o.engine}, {count(o.rows, 'row')}"
        lines.append(f"  {o.name:<{width}}  {state:<28}  {o.role}")
    lines.append(
        "view attached: new spans are parsed as they arrive"
        if found.view_attached
        else "view not attached: analysis parses otel_traces at read time"
    )
    if check is not None:
        lines.append(check.describe())
    return "\n".join(lines)
