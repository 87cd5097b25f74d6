"""``ragfunnel judge``: rate every stored answer's claims against its prompt, and store the verdicts."""

from __future__ import annotations

import datetime as dt
import json
import math
import warnings
from collections.abc import Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Annotated, Any

import typer

from ragfunnel.analyzer.cli.app import app
from ragfunnel.analyzer.cli.defaults import JUDGE_POLICIES as POLICIES
from ragfunnel.analyzer.cli.defaults import SAMPLE_RATE as DEFAULT_SAMPLE_RATE
from ragfunnel.analyzer.cli.exits import reported, usage_error
from ragfunnel.analyzer.cli.options import (
    CasesOption,
    JsonOption,
    QuietOption,
    RunOption,
    StoreOption,
)
from ragfunnel.analyzer.cli.output import STDOUT, iso, jsonable, say, write_json
from ragfunnel.analyzer.cli.progress import progress_bar
from ragfunnel.analyzer.nouns import count

if TYPE_CHECKING:
    from ragfunnel.analyzer.export import EmitError
    from ragfunnel.analyzer.judges import JudgeRun

JUDGE_HELP = """Rate each stored answer's claims against its prompt, and store the verdicts.

Every answer is split into claims, each rated against the whole prompt context: supported (1), partial (0.5) or unsupported (0), with the supporting chunk ids and \
the missing term. The verdicts go to the store's verdicts table, where `ragfunnel analyze` \
reads them (an unsupported claim fails the question at generation, quoted).

Policies: offline (deterministic, no network; the default), llm (an OpenAI-compatible judge, \
at most two calls per answer, a third for a case judged against its reference; cached: a rerun \
makes no call), factcheck (a Yes/No fact-checking \
model, one call per claim), tiered (offline and signals for all; flagged answers and a seeded \
random sample to the LLM; rates estimated from the sample alone). With --cases, each answer's \
correctness (facts, else reference) is judged too. The judge endpoint comes from the flags, \
else RAGFUNNEL_JUDGE_MODEL / RAGFUNNEL_JUDGE_BASE_URL / RAGFUNNEL_JUDGE_API_KEY (or OPENAI_*). \
Needs the answer text and the prompt's chunk texts: recorded with content capture on the generate, retrieve or rerank spans (ragfunnel, OpenInference and GenAI traces alike), or given with --chunks. Exits 1 when it judged none of the answers, or when more than 10% of the LLM \
calls failed; a circuit breaker stops calling an endpoint after 3 failures in a row. \
docs/judges.md states every rule.

\b
Examples:
  ragfunnel judge --cases cases.yaml
  ragfunnel judge --policy tiered --judge-model gpt-4o-mini --sample-rate 0.05
  ragfunnel judge --policy llm --judge-base-url http://127.0.0.1:8000/v1 --judge-model qwen2.5
  ragfunnel judge --policy factcheck --judge-model bespoke-minicheck --run 2024-06-01
  ragfunnel judge --emit otlp --otlp-endpoint http://127.0.0.1:4318
"""


@app.command("judge", help=JUDGE_HELP)
def judge_command(
    *,
    store: StoreOption = None,
    cases: CasesOption = None,
    run: RunOption = None,
    policy: Annotated[
        str, typer.Option("--policy", help=f"One of {', '.join(POLICIES)}.")
    ] = "offline",
    judge_model: Annotated[
        str | None,
        typer.Option(
            "--judge-model", metavar="NAME", help="The judge model (else RAGFUNNEL_JUDGE_MODEL)."
        ),
    ] = None,
    judge_base_url: Annotated[
        str | None,
        typer.Option(
            "--judge-base-url",
            metavar="URL",
            help="The OpenAI-compatible API root (else RAGFUNNEL_JUDGE_BASE_URL).",
        ),
    ] = None,
    sample_rate: Annotated[
        float,
        typer.Option(
            "--sample-rate", min=0.0, max=1.0, help="tiered: the random share sent to the LLM."
        ),
    ] = DEFAULT_SAMPLE_RATE,
    seed: Annotated[
        int, typer.Option("--seed", help="tiered: the random sample's seed; LLM: the request seed.")
    ] = 0,
    concurrency: Annotated[
        int, typer.Option("--concurrency", min=1, help="Answers judged at the same time.")
    ] = 4,
    timeout: Annotated[
        float, typer.Option("--timeout", min=0.1, help="Seconds per request.")
    ] = 60.0,
    input_price: Annotated[
        float, typer.Option("--input-price", min=0.0, help="Cost per million input tokens.")
    ] = 0.0,
    output_price: Annotated[
        float, typer.Option("--output-price", min=0.0, help="Cost per million output tokens.")
    ] = 0.0,
    split: Annotated[
        str, typer.Option("--split", help="How the LLM splits answers: llm or offline.")
    ] = "llm",
    json_out: JsonOption = None,
    jsonl_out: Annotated[
        Path | None,
        typer.Option("--jsonl", metavar="OUT", help="Write the verdict rows as JSON Lines."),
    ] = None,
    quiet: QuietOption = False,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Judge, but write nothing to the store.")
    ] = False,
    chunks: Annotated[
        Path | None,
        typer.Option(
            "--chunks",
            metavar="PATH",
            help="Chunk texts (JSON Lines or Parquet with id and text) for prompts whose spans "
            "record ids only.",
        ),
    ] = None,
    emit: Annotated[
        str | None,
        typer.Option(
            "--emit",
            metavar="otlp",
            help="Also send each verdict as an OpenTelemetry gen_ai.evaluation.result event "
            "(OTLP/HTTP logs), parented to the judged generate span.",
        ),
    ] = None,
    workers: Annotated[
        int | None,
        typer.Option(
            "--workers",
            min=1,
            metavar="N",
            show_default="one per core, at most 8",
            help="Processes the offline screen (offline, tiered) is spread over, with the "
            "verdicts of 1; runs of fewer than 400 answers are judged in process. 1 judges "
            "in process, with the least memory (docs/judges.md, 'Both cores').",
        ),
    ] = None,
    otlp_endpoint: Annotated[
        str | None,
        typer.Option(
            "--otlp-endpoint",
            metavar="URL",
            help="With --emit otlp: the collector's OTLP/HTTP endpoint (default "
            "OTEL_EXPORTER_OTLP_[LOGS_]ENDPOINT, else http://127.0.0.1:4318).",
        ),
    ] = None,
) -> None:
    """Judge the stored answers and store the verdicts (see JUDGE_HELP)."""
    from ragfunnel.analyzer.cases import load_cases
    from ragfunnel.analyzer.judges import Endpoint, SameModelWarning
    from ragfunnel.analyzer.store import Store
    from ragfunnel.analyzer.workflows import judge_from_store

    flags = {"policy": "--policy", "model": "--judge-model", "sample_rate": "--sample-rate",
             "endpoint": "--otlp-endpoint"}  # fmt: skip
    if emit not in (None, "otlp"):
        usage_error("judge", f"--emit {emit}: the only target is otlp")
    to_stdout = json_out is not None and str(json_out) == STDOUT
    quiet = quiet or to_stdout
    sink = _RowSink(jsonl_out, emit=emit == "otlp", endpoint=otlp_endpoint)
    with reported("judge", flags=flags), sink, progress_bar(not quiet) as step:
        case_set = load_cases(cases) if cases is not None else None
        endpoint = None
        if policy != "offline":
            endpoint = Endpoint.from_env(
                model=judge_model, base_url=judge_base_url, timeout=timeout,
                max_concurrency=concurrency, seed=seed, input_price=input_price,
                output_price=output_price,
            )  # fmt: skip
        with Store.open(store, create=False) as opened, warnings.catch_warnings():
            # The warning is printed below, once, in the CLI's words.
            warnings.simplefilter("ignore", SameModelWarning)
            result = judge_from_store(
                opened, policy=policy, runs=run, cases=case_set, endpoint=endpoint,
                sample_rate=sample_rate, seed=seed, split=split, write=not dry_run,
                chunk_texts=chunks, progress=step, workers=workers, keep_rows=False,
                on_rows=sink,
            )  # fmt: skip
    for message in result.warnings:
        typer.echo(f"ragfunnel judge: warning: {message}", err=True)
    say(summary_text(result, dry_run=dry_run), quiet=quiet)
    if emit == "otlp":
        with reported("judge", flags=flags):
            sink.raise_emit_error()
        say(f"sent {count(sink.sent, 'gen_ai.evaluation.result event')} over OTLP", quiet=quiet)
    if json_out is not None and write_json(summary_document(result, dry_run), json_out, "judge"):
        say(f"wrote the summary to {json_out}", quiet=quiet)
    if jsonl_out is not None:
        say(f"wrote {count(sink.written, 'verdict row')} to {jsonl_out}", quiet=quiet)
    if result.failure is not None:
        typer.echo(f"ragfunnel judge: failed: {result.failure}", err=True)
        raise typer.Exit(1)


class _RowSink:
    """Where each page of verdict rows goes as the run makes them: ``--jsonl``, ``--emit otlp``.

    ``judge_store`` keeps no rows for the CLI (``keep_rows=False``): its memory stays that of a
    page at any number of answers. A collector that refuses events stops the sending, not the
    judging; its error is reported after the run's summary, as the command's failure.
    """

    def __init__(self, jsonl: Path | None, *, emit: bool, endpoint: str | None) -> None:
        self.jsonl, self.emit, self.endpoint = jsonl, emit, endpoint
        self.written = self.sent = 0
        self._out: IO[str] | None = None
        self._emit_error: EmitError | None = None
        self._now = dt.datetime.now(dt.timezone.utc)  # rows are stamped when inserted

    def __enter__(self) -> _RowSink:
        if self.jsonl is not None:
            try:
                self._out = self.jsonl.open("w", encoding="utf-8")
            except OSError as exc:
                self._cannot_write(exc)
        return self

    def __exit__(self, *_exc: object) -> None:
        if self._out is not None:
            self._out.close()

    def __call__(self, rows: list[Mapping[str, Any]]) -> None:
        if self._out is not None:
            try:
                for r in rows:
                    row = {**r, "JudgedAt": r.get("JudgedAt") or self._now}
                    self._out.write(json.dumps(jsonable(row), ensure_ascii=False) + "\n")
            except OSError as exc:
                self._cannot_write(exc)
            self.written += len(rows)
        if self.emit and self._emit_error is None:
            from ragfunnel.analyzer.export import EmitError, emit_verdicts

            try:
                self.sent += emit_verdicts(rows, endpoint=self.endpoint)
            except EmitError as exc:
                self._emit_error = exc

    def raise_emit_error(self) -> None:
        """Raise the collector's refusal, if there was one."""
        if self._emit_error is not None:
            raise self._emit_error

    def _cannot_write(self, exc: OSError) -> None:
        from ragfunnel.analyzer.cli.exits import fail

        fail("judge", f"{self.jsonl}: cannot write: {exc.strerror or exc}")


def summary_document(result: JudgeRun, dry_run: bool) -> dict[str, object]:
    """``ragfunnel judge --json``: what the run did, as data (the text's numbers)."""
    return {
        "command": "judge",
        "generated_at": iso(dt.datetime.now(dt.timezone.utc)),
        "policy": result.policy,
        "answers": result.answers,
        "judged": result.judged,
        "abstained": result.abstained,
        "without_content": result.without_content,
        "without_answer_text": result.without_answer_text,
        "without_chunk_text": result.without_chunk_text,
        "filled_chunks": result.filled_chunks,
        "filled_answers": result.filled_answers,
        "mean_faithfulness": result.faithfulness,
        "mean_confidence": result.confidence,
        "sent_to_llm": result.sent_to_llm,
        "estimates": {
            name: {"estimate": e.estimate, "low": e.low, "high": e.high, "n": e.n}
            for name, e in result.estimates.items()
        },
        "usage": result.usage,
        "errors": result.errors,
        "warnings": result.warnings,
        "rows": result.row_count,
        "written": not dry_run,
    }


def _pct(value: float) -> str:
    return "—" if math.isnan(value) else f"{100 * value:.1f}%"


def textless_lines(result: JudgeRun) -> list[str]:
    """How many answers were not judged for lack of text, the fix, and the first few of them."""
    from ragfunnel.analyzer.judges import ANSWER_TEXT_FIX, CHUNK_TEXT_FIX

    lines = []
    if result.filled_chunks:
        prompts = count(result.filled_answers, "answer's prompt", "answers' prompts")
        lines.append(f"--chunks: filled the text of {count(result.filled_chunks, 'chunk')}, "
                     f"in {prompts}")  # fmt: skip
    if result.without_answer_text:
        lines.append(f"not judged: {result.without_answer_text:,} without answer text: "
                     f"{ANSWER_TEXT_FIX}")  # fmt: skip
    if result.without_chunk_text:
        lines.append(f"not judged: {result.without_chunk_text:,} whose prompt's chunks have no "
                     f"recorded text: {CHUNK_TEXT_FIX}")  # fmt: skip
    lines.extend(f"  {note}" for note in result.not_judged[:5])
    if len(result.not_judged) > 5:
        lines.append(f"  … and {len(result.not_judged) - 5:,} more")
    return lines


def summary_text(result: JudgeRun, *, dry_run: bool = False) -> str:
    """What a judging run did, for the terminal."""
    faithfulness = result.faithfulness
    lines = [
        f"{count(result.answers, 'answer')}, {result.judged:,} judged ({result.policy}), "
        f"{result.abstained:,} abstained",
        "mean faithfulness: "
        + ("—" if faithfulness is None else f"{faithfulness:.3f}")
        + ("" if result.confidence is None else f", mean confidence: {result.confidence:.3f}"),
    ]
    lines.extend(textless_lines(result))
    if result.sent_to_llm:
        lines.append(
            "sent to the LLM: " + ", ".join(f"{k} {v:,}" for k, v in result.sent_to_llm.items())
        )
    for name, e in result.estimates.items():
        low, high = e.low, e.high
        value = f"{e.estimate:.3f}" if name == "faithfulness" else _pct(e.estimate)
        interval = (
            "—"
            if math.isnan(low)
            else (
                f"{low:.3f}–{high:.3f}" if name == "faithfulness" else f"{_pct(low)}–{_pct(high)}"
            )
        )
        lines.append(f"  {name} (random sample, n = {e.n}): {value} ({interval})")
    if result.usage:
        u = result.usage
        lines.append(f"calls {u['calls']:,} ({count(u['retries'], 'retry', 'retries')}), "
                     f"{u['failed']:,} failed, "
                     f"{u['refused']:,} refused by the breaker, HTTP requests {u['requests']:,}, "
                     f"cached {u['cached']:,}, tokens {u['input_tokens']:,} in / "
                     f"{u['output_tokens']:,} out, cost {u['cost']:.4f}")  # fmt: skip
    lines.extend(f"not judged: {error}" for error in result.errors[:5])
    if len(result.errors) > 5:
        lines.append(f"… and {len(result.errors) - 5:,} more not judged")
    lines.append(
        "dry run: nothing written" if dry_run else f"wrote {count(result.row_count, 'verdict row')}"
    )
    return "\n".join(lines)
