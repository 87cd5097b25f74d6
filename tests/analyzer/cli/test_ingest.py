"""``ragfunnel ingest`` through typer's test runner."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from ragfunnel.analyzer import cli
from ragfunnel.analyzer.cli import ingest as ingest_command

LINE = json.dumps(
    {
        "resourceSpans": [
            {
                "resource": {
                    "attributes": [{"key": "service.name", "value": {"stringValue": "svc"}}]
                },
                "scopeSpans": [
                    {
                        "spans": [
                            {
                                "traceId": "5b8efff798038103d269b633813fc60c",
                                "spanId": f"eee19b7ec3c1b17{n}",
                                "name": "s",
                                "startTimeUnixNano": "1800000000000000000",
                                "endTimeUnixNano": "1800000000000001000",
                            }
                            for n in range(3)
                        ]
                    }
                ],
            }
        ]
    }
)


@pytest.fixture
def app() -> typer.Typer:
    return cli.app


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("RAGFUNNEL_STORE", raising=False)
    return tmp_path


runner = CliRunner()


def test_the_command_is_registered() -> None:
    assert ingest_command in cli.COMMAND_MODULES
    assert any(c.name == "ingest" for c in cli.app.registered_commands)


def test_help_has_an_example(app: typer.Typer) -> None:
    result = runner.invoke(app, ["ingest", "--help"])
    assert result.exit_code == 0
    assert "ragfunnel ingest --from-jaeger http://localhost:16686 --service" in result.output


def test_default_folder_twice(app: typer.Typer, workdir: Path) -> None:
    traces = workdir / ".ragfunnel" / "traces"
    traces.mkdir(parents=True)
    (traces / "spans-123.jsonl").write_text(LINE + "\n")
    first = runner.invoke(app, ["ingest"])
    assert first.exit_code == 0, first.output
    assert "3 spans read: 3 inserted, 0 duplicates from 1 file" in first.stdout
    assert (workdir / ".ragfunnel" / "store").is_dir()
    second = runner.invoke(app, ["ingest"])
    assert second.exit_code == 0, second.output
    assert "1 file was already ingested and unchanged" in second.stdout
    rescan = runner.invoke(app, ["ingest", "--rescan"])
    assert "3 spans read: 0 inserted, 3 duplicates" in rescan.stdout


@pytest.mark.parametrize("native", ["1", "0"])
def test_a_large_ingest_without_the_native_converter_says_so(
    app: typer.Typer, workdir: Path, monkeypatch: pytest.MonkeyPatch, native: str
) -> None:
    monkeypatch.setattr(ingest_command, "SLOW_HINT_SPANS", 3)
    monkeypatch.setenv("RAGFUNNEL_NATIVE", native)
    path = workdir / "spans.jsonl"
    path.write_text(LINE + "\n")
    result = runner.invoke(app, ["ingest", str(path), "--store", "chdb://st"])
    assert result.exit_code == 0, result.output
    hinted = "converted by the Python converter" in result.stderr
    assert hinted == (native == "0")


def test_problems_go_to_stderr_and_strict_fails(app: typer.Typer, workdir: Path) -> None:
    path = workdir / "mixed.jsonl"
    path.write_text(LINE + "\nnot json\n")
    result = runner.invoke(app, ["ingest", str(path), "--store", "chdb://st"])
    assert result.exit_code == 0
    assert f"{path}:2: skipped: invalid JSON" in result.stderr
    assert "1 problem skipped" in result.stdout
    strict = runner.invoke(
        app, ["ingest", str(path), "--store", "chdb://st", "--strict", "--quiet", "--rescan"]
    )
    assert strict.exit_code == 1
    assert strict.stdout == ""


def test_json_is_the_summary_as_data(app: typer.Typer, workdir: Path) -> None:
    """Issue 21: --json means the command's summary document on every command, ingest too."""
    path = workdir / "mixed.jsonl"
    path.write_text(LINE + "\nnot json\n")
    printed = runner.invoke(app, ["ingest", str(path), "--store", "chdb://st", "--json", "-"])
    assert printed.exit_code == 0, printed.output
    document = json.loads(printed.stdout)  # the document instead of the text: nothing else
    assert document["command"] == "ingest" and document["generated_at"].endswith("+00:00")
    assert (document["read"], document["inserted"], document["duplicates"]) == (3, 3, 0)
    assert document["files"] == 1 and document["store"] == f"chdb://{workdir / 'st'}"
    assert document["skipped"] == [
        {"file": str(path), "line": 2, "reason": "invalid JSON: Expecting value (column 1)"}
    ]
    out = workdir / "ingest.json"
    again = runner.invoke(
        app, ["ingest", str(path), "--store", "chdb://st", "--rescan", "--json", str(out)]
    )
    assert again.exit_code == 0 and f"wrote the summary to {out}" in again.stdout
    assert json.loads(out.read_text())["duplicates"] == 3


def test_nothing_readable_is_a_failure(app: typer.Typer, workdir: Path) -> None:
    path = workdir / "junk.jsonl"
    path.write_text("{not json}\n")
    result = runner.invoke(app, ["ingest", str(path)])
    assert result.exit_code == 1
    missing = runner.invoke(app, ["ingest", "nope.jsonl"])
    assert missing.exit_code == 1
    assert "no such file, folder or match: nope.jsonl" in missing.stderr
    no_default = runner.invoke(app, ["ingest"])
    assert no_default.exit_code == 1
    assert "no trace folder at .ragfunnel/traces/" in no_default.stderr


def test_long_problem_lists_are_cut(app: typer.Typer, workdir: Path) -> None:
    path = workdir / "many.jsonl"
    path.write_text(LINE + "\n" + "x\n" * 30)
    result = runner.invoke(app, ["ingest", str(path)])
    assert result.stderr.count("skipped: invalid JSON") == ingest_command.SHOWN_PROBLEMS
    assert "… and 10 more" in result.stderr


def test_jaeger_options_go_together(app: typer.Typer, workdir: Path) -> None:
    result = runner.invoke(app, ["ingest", "--from-jaeger", "http://127.0.0.1:9"])
    assert result.exit_code == 2  # a usage error
    assert "--from-jaeger URL and --service NAME go together" in result.stderr
    unreachable = runner.invoke(
        app, ["ingest", "--from-jaeger", "http://127.0.0.1:9", "--service", "svc"]
    )
    assert unreachable.exit_code == 1
    assert "cannot reach Jaeger at http://127.0.0.1:9" in unreachable.stderr


def test_store_errors_are_one_clear_line(app: typer.Typer, workdir: Path) -> None:
    (workdir / "a.jsonl").write_text(LINE + "\n")
    result = runner.invoke(
        app, ["ingest", "a.jsonl", "--store", "http://u:topsecret@127.0.0.1:9/db"]
    )
    assert result.exit_code == 1
    assert "topsecret" not in result.output
    assert result.stderr.startswith(
        "ragfunnel ingest: cannot connect to http://u:***@127.0.0.1:9/db"
    )


def test_the_store_an_ingest_creates_is_named(app: typer.Typer, workdir: Path) -> None:
    """Issue 31, Deliver 7: ``--store mistyped/path`` says it creates a store there."""
    path = workdir / "spans.jsonl"
    path.write_text(LINE + "\n")
    first = runner.invoke(app, ["ingest", str(path), "--store", "chdb://stroe"])
    assert first.exit_code == 0, first.output
    assert f"created a new store at {workdir / 'stroe'}" in first.stdout
    again = runner.invoke(app, ["ingest", str(path), "--store", "chdb://stroe", "--rescan"])
    assert again.exit_code == 0 and "created a new store" not in again.output


@pytest.mark.parametrize("settled", [False, True])
def test_a_cut_last_line_fails_strict_once_the_file_has_settled(
    app: typer.Typer, workdir: Path, settled: bool
) -> None:
    """Issue 31, Deliver 3: a file still being written is a note; one untouched for longer
    than SETTLED_AFTER_S was truncated by a writer that died mid-line: a problem, exit 1."""
    import os
    import time

    from ragfunnel.analyzer.ingest.otlp import SETTLED_AFTER_S

    path = workdir / "spans.jsonl"
    path.write_text(LINE + "\n" + LINE[:50])
    if settled:
        old = time.time() - SETTLED_AFTER_S - 5
        os.utime(path, (old, old))
    result = runner.invoke(app, ["ingest", str(path), "--store", "chdb://st", "--strict"])
    assert "3 spans read" in result.stdout
    if settled:
        assert result.exit_code == 1
        assert f"{path}:2: skipped: the last line is cut short" in result.stderr
        assert f"has not changed for over {SETTLED_AFTER_S} s" in result.stderr
    else:
        assert result.exit_code == 0, result.output
        assert f"{path}:2: note: the last line has no newline yet" in result.stderr
