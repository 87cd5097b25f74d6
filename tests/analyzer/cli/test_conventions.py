"""The conventions every command shares (docs/cli.md): flags, metavars, JSON, times, exit codes."""

from __future__ import annotations

import datetime as dt
import json
import re
from pathlib import Path

import pytest
import typer
from typer.main import get_command
from typer.testing import CliRunner

from ragfunnel.analyzer.cli import app
from ragfunnel.analyzer.cli.app import COMMANDS
from ragfunnel.analyzer.cli.exits import EXIT_CODES
from ragfunnel.analyzer.cli.output import iso, jsonable
from tests.support.decisions import A_ID, B_ID, WRONG, Q, ranked
from tests.support.traces import TraceBuilder

ROOT = Path(__file__).resolve().parents[3]
CASES = f"""\
- id: q-017
  question: {Q}
  evidence: {{all_of: ["{A_ID}", "{B_ID}"]}}
  facts: ["4.2.0", "4.2.1"]
"""


def leaf_commands() -> dict[str, typer.core.TyperCommand]:
    group = get_command(app)
    assert isinstance(group, typer.core.TyperGroup)
    ctx = typer.Context(group)
    found = {}
    for name in COMMANDS:
        command = group.get_command(ctx, name)
        subs = getattr(command, "commands", None)
        if subs:
            found |= {f"{name} {sub}": c for sub, c in subs.items()}
        else:
            found[name] = command
    return found


@pytest.fixture(scope="module")
def dsn(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("conventions-store")
    b = TraceBuilder()
    cands = ranked(50, **{A_ID: 3, B_ID: 41})
    with b.question("q-017", Q, run="r1") as q:
        q.retrieve(cands, name="bm25", top_k=50)
        q.cut(cands[:10], input_ids=cands, k=10)
        q.generate(cands[:10], WRONG)
    return b.into_new_store(path)


@pytest.fixture
def cases_file(tmp_path: Path) -> Path:
    path = tmp_path / "cases.yaml"
    path.write_text(CASES, encoding="utf-8")
    return path


def invoke(*args: str) -> typer.testing.Result:
    return CliRunner().invoke(app, list(args), env={"COLUMNS": "200"})


def test_every_command_has_quiet_and_short_help() -> None:
    for name, command in leaf_commands().items():
        options = {opt for p in command.params for opt in p.opts}
        assert {"--quiet", "-q"} <= options, f"ragfunnel {name} has no --quiet/-q"
        result = invoke(*name.split(), "-h")
        assert result.exit_code == 0 and f"ragfunnel {name}" in result.output, name


def test_json_means_one_thing_everywhere() -> None:
    helps = {}
    for name, command in leaf_commands().items():
        for param in command.params:
            if "--json" in param.opts:
                helps[name] = param.help
    assert {"analyze", "judge", "threshold", "report", "diff", "store info"} <= set(helps)
    documented = re.search(r"\| `--json OUT` \|(.*)\|", (ROOT / "docs/cli.md").read_text())
    assert documented is not None
    for name in helps:
        assert f"`{name}`" in documented.group(1), f"docs/cli.md does not list {name} under --json"
    for name, text in helps.items():
        assert "JSON" in (text or "") and "'-'" in (text or ""), (name, text)


def test_no_metavar_is_a_python_type() -> None:
    for name in leaf_commands():
        output = invoke(*name.split(), "--help").output
        assert not re.search(r"<(bool|str|int|float|path|list\[[^]]*\])[^>]*>", output), (
            name,
            output,
        )


def test_the_exit_code_table_in_the_docs_is_the_code() -> None:
    text = (ROOT / "docs/cli.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^\| (\d) \| (.+) \|$", text, re.MULTILINE))
    assert {int(k): v for k, v in rows.items()} == dict(EXIT_CODES)
    for command in ("report", "diff"):  # they exit with the table's gate code, named once
        source = (ROOT / f"ragfunnel/analyzer/cli/{command}.py").read_text(encoding="utf-8")
        assert "typer.Exit(EXIT_GATE)" in source and "= 3" not in source


def test_each_exit_code_as_documented(dsn: str, cases_file: Path, tmp_path: Path) -> None:
    assert invoke("--version").exit_code == 0
    assert invoke("analyze", "--store", dsn, "--cases", str(cases_file)).exit_code == 0
    assert invoke("analyze", "--no-such-flag").exit_code == 2
    assert invoke("report", "--store", dsn, "--cases", str(cases_file),
                  "--fail-under", "faithfulness=high").exit_code == 2  # fmt: skip
    assert invoke("analyze", "--store", dsn, "--run", "r2").exit_code == 2
    assert invoke("analyze", "--store", str(tmp_path / "absent")).exit_code == 1
    gate = invoke("report", "--store", dsn, "--cases", str(cases_file), "--quiet",
                  "--fail-over", "share.search=0")  # fmt: skip
    assert gate.exit_code == 3, gate.output


def test_analyze_json_is_the_summary_with_zoned_times(dsn: str, cases_file: Path) -> None:
    result = invoke("analyze", "--store", dsn, "--cases", str(cases_file), "--json", "-")
    assert result.exit_code == 0, result.output
    document = json.loads(result.stdout)  # only the document on stdout: no text around it
    assert document["command"] == "analyze" and document["questions"] == 1
    assert dt.datetime.fromisoformat(document["generated_at"]).tzinfo is not None
    assert {row["first_failure"] for row in document["failures"]} >= {"search"}


def test_quiet_prints_nothing_on_stdout(dsn: str, cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "records.jsonl"
    result = invoke(
        "analyze", "--store", dsn, "--cases", str(cases_file), "-q", "--jsonl", str(out)
    )
    assert result.exit_code == 0 and result.stdout == ""
    assert out.read_text(encoding="utf-8").count("\n") == 1
    for args in (["threshold", "--cases", str(cases_file)], ["store", "info"],
                 ["funnel", "q-017", "--cases", str(cases_file)]):  # fmt: skip
        quiet = invoke(*args, "--store", dsn, "--quiet")
        assert quiet.exit_code == 0 and quiet.stdout == "", (args, quiet.output)
    loud = invoke("store", "info", "--store", dsn)
    assert loud.stdout.strip()


def test_counts_of_one_are_singular(dsn: str, cases_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "records.jsonl"
    result = invoke("analyze", "--store", dsn, "--cases", str(cases_file), "--jsonl", str(out))
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("1 question record from ")
    assert "· 1 question (latest of each)" in result.stdout
    assert f"wrote 1 record to {out}" in result.stdout
    one_plural = r"(?<![\d.,–-])1 (records|questions|question records|ids|candidates|answers)\b"
    assert not re.search(one_plural, result.stdout), result.stdout


def test_times_are_iso_with_a_zone() -> None:
    naive = dt.datetime(2026, 12, 1, 21, 0, 5)
    assert iso(naive) == "2026-12-01T21:00:05+00:00"
    aware = dt.datetime(2026, 12, 1, 22, 0, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert iso(aware) == "2026-12-01T22:00:00+01:00"
    assert jsonable({"t": [naive], "x": float("nan")}) == {"t": ["2026-12-01T21:00:05+00:00"],
                                                           "x": None}  # fmt: skip
