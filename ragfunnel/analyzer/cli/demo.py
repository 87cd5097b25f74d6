"""``ragfunnel demo``: run the shipped demo pipeline with known faults and show the diagnosis.

A thin layer over :func:`ragfunnel.demo.run.run_demo`: options, a progress display on stderr,
and the closing text. Writes only under --workdir (the demo's own files there). The pipeline's
libraries (the demo extra) are imported only when the command runs, so that every other
command works with the analyzer extra alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TaskID, TextColumn

from ragfunnel.analyzer.cli.app import COMMANDS, app
from ragfunnel.analyzer.cli.errors import fail, reported
from ragfunnel.demo import DEFAULT_WORKDIR
from ragfunnel.demo.faults import FAULTS

DEMO_HELP = f"""Run a small hybrid RAG pipeline (BM25 + LSA, fusion, reranker, confidence \
gate, cited answers) over the policy corpus shipped with ragfunnel, once clean and once with \
faults injected at known stages; trace both runs, ingest them into an embedded store, analyze \
them against the shipped cases, and check that the analysis blames each fault on its stage.

Faults (--fault, repeatable; default all): {", ".join(FAULTS)}. See docs/demo.md.

\b
Examples:
  ragfunnel demo
  ragfunnel demo --fault small_k --fault threshold_high --cases 30
  ragfunnel demo --workdir /tmp/demo --llm-url http://127.0.0.1:8000/v1 --llm-model qwen2.5
"""

FLAGS = {"faults": "--fault", "cases": "--cases", "workdir": "--workdir", "llm": "--llm-url"}


@app.command("demo", help=DEMO_HELP)
def demo_command(
    *,
    workdir: Annotated[
        Path,
        typer.Option(
            "--workdir",
            metavar="DIR",
            help="Where traces, the store, the cases and the injection log go.",
        ),
    ] = DEFAULT_WORKDIR,
    fault: Annotated[
        list[str] | None,
        typer.Option("--fault", metavar="NAME", help="Inject this fault (repeatable)."),
    ] = None,
    cases: Annotated[
        int | None,
        typer.Option("--cases", metavar="N", help="Use N shipped cases, spread over all of them."),
    ] = None,
    llm_url: Annotated[
        str | None,
        typer.Option(
            "--llm-url",
            metavar="URL",
            envvar="RAGFUNNEL_DEMO_LLM_URL",
            help="OpenAI-compatible endpoint for the generator (key: OPENAI_API_KEY).",
        ),
    ] = None,
    llm_model: Annotated[
        str,
        typer.Option("--llm-model", metavar="NAME", envvar="RAGFUNNEL_DEMO_LLM_MODEL"),
    ] = "gpt-4o-mini",
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Show progress on stderr.")
    ] = True,
) -> None:
    """Run the demo and print its diagnosis (see DEMO_HELP)."""
    try:  # the demo extra's libraries: the rest of the CLI works without them
        from ragfunnel.demo.console import closing_text
        from ragfunnel.demo.pipeline import LLM
        from ragfunnel.demo.run import run_demo
    except ImportError as exc:
        fail("demo", f"needs the demo extra ({exc.name} is missing): pip install 'ragfunnel[demo]'")
    llm = LLM(base_url=llm_url, model=llm_model) if llm_url else None
    console = Console(stderr=True)
    with (
        reported("demo", flags=FLAGS),
        Progress(
            TextColumn("{task.description:<24}"),
            BarColumn(),
            MofNCompleteColumn(),
            console=console,
            transient=True,
            disable=not progress,
        ) as bar,
    ):
        tasks: dict[str, TaskID] = {}

        def step(name: str, done: int, total: int) -> None:
            if name not in tasks:
                tasks[name] = bar.add_task(name, total=total)
            bar.update(tasks[name], completed=done)

        result = run_demo(
            workdir, faults=fault or list(FAULTS), cases=cases, llm=llm, progress=step
        )
    typer.echo(closing_text(result, commands=set(COMMANDS)))
