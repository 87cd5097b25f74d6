"""The demo's closing words: the diagnosis, the injected faults against it, files, next steps.

What the analysis found, whether it named each injected fault, where the files are, and what to
run next. Text only (the CLI prints it); never runs anything.
"""

from __future__ import annotations

import shlex
from collections import Counter
from collections.abc import Collection

from ragfunnel.analyzer.report import report_text
from ragfunnel.analyzer.report.terminal import diff_text
from ragfunnel.demo.faults import FAULTS
from ragfunnel.demo.rechunk import RECHUNKED_RUN, Rechunk
from ragfunnel.demo.runner import CLEAN_RUN, FAULTY_RUN, DemoResult


def fault_table(result: DemoResult) -> list[str]:
    """One line per injected fault: cases, the stage it must be blamed on, the analyzer's score."""
    wrong = Counter(t.fault for t, _, _ in result.disagreements)
    lines = [f"  {'fault':<20} {'cases':>5}  {'must be blamed on':<18} analyzer agreed"]
    for name in FAULTS:
        cases = [t for t in result.truths if t.fault == name]
        if not cases:
            continue
        stages = ", ".join(sorted({t.stage for t in cases}))
        agreed = len(cases) - wrong[name]
        lines.append(f"  {name:<20} {len(cases):>5}  {stages:<18} {agreed}/{len(cases)}")
    return lines


def closing_text(result: DemoResult, commands: Collection[str] = ()) -> str:
    """Everything the demo prints after the runs.

    ``commands``: the CLI's command names; a next step is suggested only for a command that
    exists (``threshold``, for the confidence-gate sweep, comes with the judges' commands).
    """
    store = shlex.quote(result.store)
    cases = shlex.quote(str(result.cases_path))
    agreed = len(result.truths) - len(result.disagreements)
    lines = [
        report_text(result.report).rstrip(),
        "",
        diff_text(result.diff).rstrip(),
        "",
        f"Injected faults (run {FAULTY_RUN}; truth in {result.injection_log}):",
        *fault_table(result),
        f"  the analysis names the injected stage for {agreed} of {len(result.truths)} faulted cases",
    ]
    lines.extend(
        f"  ✗ {truth.case_id}: {truth.fault} should be {truth.stage}, got {got} ({reason})"
        for truth, got, reason in result.disagreements
    )
    lines.extend(
        f"  ! {truth.case_id}: {truth.fault} expected the {truth.flag} flag; not raised"
        for truth in result.missed_flags
    )
    if result.rechunk is not None:
        lines += ["", *rechunk_lines(result.rechunk)]
    example = _example(result)
    lines += [
        "",
        f"HTML report (both runs, the comparison on top): {result.html}",
        f"Files under {result.workdir}/: traces/ (OTLP JSON), store/ (embedded ClickHouse), "
        "cases.yaml, cases.rebased.yaml, injections.jsonl, report.html",
        f"{result.spans:,} spans, {len(result.clean)} cases × 3 runs, {result.seconds:.1f} s",
        "",
        "Try next:",
        f"  ragfunnel funnel {example} --store {store} --cases {cases} --run {FAULTY_RUN}",
        f"  ragfunnel diff {CLEAN_RUN} {FAULTY_RUN} --store {store} --cases {cases}",
        f"  ragfunnel report --store {store} --cases {cases} --run {FAULTY_RUN} --html faulty.html",
    ]
    if "threshold" in commands:
        lines.append(f"  ragfunnel threshold --store {store} --cases {cases} --run {CLEAN_RUN}")
    return "\n".join(lines)


def _counts(verdicts: dict[str, str]) -> str:
    return ", ".join(f"{stage} {n}" for stage, n in Counter(verdicts.values()).most_common())


def rechunk_lines(rechunk: Rechunk) -> list[str]:
    """The re-chunked run: the rebase, both chunkings with the rebased cases, the old ids."""
    rebased = rechunk.verdicts(rechunk.rebased, RECHUNKED_RUN)
    same = rechunk.verdicts(rechunk.rebased, CLEAN_RUN)
    old = rechunk.verdicts(rechunk.old_ids, RECHUNKED_RUN)
    lines = [
        f"Re-chunked (run {RECHUNKED_RUN}: the clean pipeline on windows of sentences, new chunk "
        f"ids; the cases rebased once into {rechunk.rebased_path.name}, "
        f"{rechunk.rewritten} chunk ids → document + quote):",
        f"  rebased cases on {CLEAN_RUN}: {_counts(same)}",
        f"  rebased cases on {RECHUNKED_RUN}: {_counts(rebased)}",
        f"  chunk-id cases on {RECHUNKED_RUN}: {_counts(old)} (stale labels, not ingestion)",
    ]
    right = len(same) + len(rebased) + len(old) - len(rechunk.disagreements)
    lines.append(
        f"  the analysis is right on both chunkings for {right} of "
        f"{len(same) + len(rebased) + len(old)} records"
    )
    lines.extend(
        f"  ✗ {run} {case}: expected {expected}, got {got}"
        for run, case, expected, got in rechunk.disagreements
    )
    lines.extend(f"  ! not rebased: {problem}" for problem in rechunk.not_rewritten)
    return lines


def _example(result: DemoResult) -> str:
    """A faulted case worth opening: the German worked example when it carries a fault."""
    ids = [t.case_id for t in result.truths if t.stage != "ok"]
    return "de-hotel-taxi" if "de-hotel-taxi" in ids else (ids[0] if ids else "de-hotel-taxi")
