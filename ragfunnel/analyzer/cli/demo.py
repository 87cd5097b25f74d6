"""``ragfunnel demo``: run the shipped demo pipeline with known faults and show the diagnosis.

A thin layer over :func:`ragfunnel.demo.run_demo`: options, a progress display on stderr,
and the closing text. Writes only under --workdir (the demo's own files there). The pipeline's
libraries (the demo extra) are imported only when the command runs, so that every other
command works with the analyzer extra alone.
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Annotated

import typer

import ragfunnel.environment_variables as env
from ragfunnel.analyzer.cli.app import COMMANDS, app
from ragfunnel.analyzer.cli.exits import fail, reported
from ragfunnel.analyzer.cli.options import QuietOption
from ragfunnel.analyzer.cli.output import say
from ragfunnel.analyzer.cli.progress import progress_bar
from ragfunnel.demo import DEFAULT_WORKDIR, FAULTS

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
            envvar=env.DEMO_LLM_URL,
            help="OpenAI-compatible endpoint for the generator (key: OPENAI_API_KEY).",
        ),
    ] = None,
    llm_model: Annotated[
        str,
        typer.Option("--llm-model", metavar="NAME", envvar=env.DEMO_LLM_MODEL),
    ] = "gpt-4o-mini",
    progress: Annotated[
        bool, typer.Option("--progress/--no-progress", help="Show progress on stderr.")
    ] = True,
    quiet: QuietOption = False,
) -> None:
    """Run the demo and print its diagnosis (see DEMO_HELP)."""
    try:  # the demo extra's libraries: the rest of the CLI works without them
        from ragfunnel.demo import LLM, closing_text, run_demo
    except ImportError as exc:
        fail(
            "demo",
            f"needs the demo extra ({exc.name} is missing): pip install -e '.[demo]' in the "
            "ragfunnel clone (scripts/demo sets it up)",
        )
    llm = LLM(base_url=llm_url, model=llm_model) if llm_url else None
    with reported("demo", flags=FLAGS), progress_bar(progress and not quiet) as step:
        result = run_demo(
            workdir, faults=fault or list(FAULTS), cases=cases, llm=llm, progress=step
        )
    say(closing_text(result, commands=set(COMMANDS)), quiet=quiet)
    venv = env.read(VENV_ENV)
    if venv:
        say(path_hint(Path(venv), None if workdir.is_absolute() else Path.cwd()), quiet=quiet)


VENV_ENV = env.VENV
"""Set by ``.ci/env.sh`` (which ``scripts/demo`` sources): the environment ragfunnel runs in."""


def path_hint(venv: Path, cwd: Path | None) -> str:
    """The one line to copy so that the "Try next" commands run in the user's own shell.

    ``scripts/demo`` runs in a child process, so the environment it built under
    ``~/.cache/ragfunnel/`` is on its PATH and not on the user's: it cannot be activated for
    the user's shell (no child process can change its parent's environment), so the demo says
    how. ``cwd``: where the commands' relative paths start, when they are relative.
    """
    line = f'export PATH={shlex.quote(str(venv / "bin"))}:"$PATH"'
    if cwd is not None:
        line = f"cd {shlex.quote(str(cwd))} && {line}"
    return (
        "\nragfunnel is installed in the environment scripts/demo built, which is not on your "
        "shell's PATH.\nTo run the commands above, paste this line into your shell first:\n"
        f"  {line}"
    )
