"""The HTML report in a real headless Chromium (Debian's ``chromium``, driven by playwright).

The page must render its charts, log no console error, make no network request, and show
hostile question, chunk and answer texts as text without running any of them. At 1280, 390
and 360 px wide no element may stick out of its card (tables and wide charts scroll inside
theirs) and no word may break across lines; the screenshots are kept for people to look at
(``RAGFUNNEL_SCREENSHOTS=DIR`` writes them there, else under pytest's temporary folder).
"""

from __future__ import annotations

import dataclasses
import os
import struct
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Page, Route, sync_playwright

from ragfunnel.analyzer.report.diff import diff_runs
from ragfunnel.analyzer.report.html import write_html
from tests.support.report_fixtures import Fixture, report_of, with_verdicts

CHROMIUM = "/usr/bin/chromium"
ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


LAYOUT_CHECK = """
() => {
  const problems = [];
  const within = (inner, outer) => inner.left >= outer.left - 1 && inner.right <= outer.right + 1;
  for (const box of document.querySelectorAll("main, .card, details.question, .diagnosis, header.meta")) {
    const outer = box.getBoundingClientRect();
    for (const el of box.querySelectorAll("*")) {
      if (el.closest(".scroll") && !el.classList.contains("scroll")) continue;  // scrolls inside
      const r = el.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue;
      if (!within(r, outer)) problems.push(
        `<${el.tagName.toLowerCase()} class="${el.getAttribute("class") || ""}"> ` +
        `${Math.round(r.left)}-${Math.round(r.right)} sticks out of ${box.tagName.toLowerCase()}.` +
        `${box.className} ${Math.round(outer.left)}-${Math.round(outer.right)}: ` +
        (el.textContent || "").trim().slice(0, 60));
    }
  }
  if (document.documentElement.scrollWidth > window.innerWidth + 1)
    problems.push(`the page scrolls sideways: ${document.documentElement.scrollWidth} px`);
  const walker = document.createTreeWalker(document.querySelector("main"), NodeFilter.SHOW_TEXT);
  const range = document.createRange();
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || parent.closest("svg") || parent.closest(".chunk, blockquote, .headline")) continue;
    for (const m of node.textContent.matchAll(/[\\p{L}\\p{N}]+/gu)) {
      if (m[0].length < 2) continue;
      range.setStart(node, m.index);
      range.setEnd(node, m.index + m[0].length);
      const lines = new Set([...range.getClientRects()].filter(r => r.width > 0).map(r => Math.round(r.top)));
      if (lines.size > 1) problems.push(
        `"${m[0]}" breaks across ${lines.size} lines in <${parent.tagName.toLowerCase()} ` +
        `class="${parent.getAttribute("class") || ""}">`);
    }
  }
  return problems;
}
"""
"""Every element that sticks out of its card (or the page), and every word broken across lines.

Chunk, question and answer texts (``.chunk``, ``blockquote``, a question's ``.headline``) may
break a word too long for the line:
they are the app's texts, shown whole; every word the report itself sets must keep whole.
"""

LONG_SETTINGS = {
    "models.generator": "extractive-v1",
    "retrieval.hybrid_fusion_weighting": "reciprocal-rank-fusion-k60",
    "faults": ["added_qualifier", "changed_numbers", "dropped_document", "inverted_reranker"],
    "index_version": "policies-2024-10-faulty",
}
"""Setting names and values as long as a real app's: at 1280 px the old table broke them
letter by letter ("fault s", "index _vers ion")."""


def _png_pixels(png: bytes) -> bytes:
    """The decompressed image data of a PNG (filter bytes included): enough to tell blank."""
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    data, at = b"", 8
    while at < len(png):
        (length,) = struct.unpack(">I", png[at : at + 4])
        kind = png[at + 4 : at + 8]
        if kind == b"IDAT":
            data += png[at + 8 : at + 8 + length]
        at += 12 + length
    return zlib.decompress(data)


class Loaded:
    def __init__(self, page: Page, url: str) -> None:
        self.page = page
        self.url = url
        self.console: list[str] = []
        self.errors: list[str] = []
        self.requests: list[str] = []
        self.blocked: list[str] = []


@pytest.fixture(scope="module")
def loaded(runs: Fixture, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Loaded]:
    assert Path(CHROMIUM).exists(), "Debian chromium is missing: apt-get install -y chromium"
    report = report_of(
        runs, with_verdicts(runs.result), jaeger_url="http://127.0.0.1:16686",
        store="chdb:///srv/ragfunnel/teamstores/theproductionstoreofthesearchteam/store",
    )  # fmt: skip
    first = dataclasses.replace(report.runs[0], config={**report.runs[0].config, **LONG_SETTINGS})
    report = dataclasses.replace(report, runs=(first, *report.runs[1:]))
    diff = diff_runs(runs.result, "A", "B", snapshots=runs.snapshots)
    path = write_html(report, tmp_path_factory.mktemp("html") / "report.html", diff=diff)
    url = path.as_uri()
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        state = Loaded(page, url)
        page.on("console", lambda m: state.console.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: state.errors.append(str(e)))
        page.on("request", lambda r: state.requests.append(r.url))

        def guard(route: Route) -> None:
            if route.request.url == url:
                route.continue_()
            else:
                state.blocked.append(route.request.url)
                route.abort()

        page.route("**/*", guard)
        page.goto(url, wait_until="load")
        for summary in page.locator("details > summary").all():
            summary.click()  # open every drill-down: the hostile texts are inside
        page.wait_for_timeout(200)
        yield state
        browser.close()


def test_charts_render(loaded: Loaded) -> None:
    page = loaded.page
    charts = page.locator("svg.chart")
    assert charts.count() >= 15
    for i in range(charts.count()):
        box = charts.nth(i).bounding_box()
        assert box is not None and box["width"] > 100 and box["height"] > 30
    assert page.locator("svg.chart rect.bar").count() > 20
    assert page.locator("svg.chart polyline.curve").count() >= 1
    first = _png_pixels(charts.first.screenshot())
    assert len(set(first)) > 8, "the funnel chart's screenshot is blank"
    shot = _png_pixels(page.screenshot(full_page=False))
    assert len(set(shot)) > 8


def test_no_console_error_and_no_network(loaded: Loaded) -> None:
    assert [m for m in loaded.console if m.startswith(("error", "warning"))] == []
    assert loaded.errors == []
    assert loaded.blocked == []
    assert loaded.requests == [loaded.url]


def test_hostile_texts_execute_nothing_and_read_as_text(loaded: Loaded) -> None:
    page = loaded.page
    assert page.evaluate("typeof window.__pwned") == "undefined"
    assert page.locator("script").count() == 0 and page.locator("img").count() == 0
    text = page.inner_text("main")
    for payload in (
        "What does <script>window.__pwned = 1</script> do?",
        'Is <img src=x onerror="window.__pwned = 2"> allowed?',
        '<a href="javascript:window.__pwned = 3">click me</a>',
        "</style><style>body { display: none }</style>",
        "It says <script>window.__pwned = 4</script> too.",
    ):
        assert payload in text, payload
    hrefs: list[Any] = page.eval_on_selector_all("a", "els => els.map(e => e.getAttribute('href'))")
    assert hrefs and all(h.startswith(("#", "http://127.0.0.1:16686/trace/")) for h in hrefs)
    assert page.is_visible("main") and page.locator("style").count() == 1
    # Following a trace link would leave the page; it is a plain link to the Jaeger UI.
    trace = page.locator("a[href^='http://127.0.0.1:16686/trace/']").first
    assert trace.get_attribute("rel") == "noreferrer noopener"


@pytest.fixture(scope="module")
def screenshots(tmp_path_factory: pytest.TempPathFactory) -> Path:
    where = os.environ.get("RAGFUNNEL_SCREENSHOTS")
    if where:
        Path(where).mkdir(parents=True, exist_ok=True)
        return Path(where)
    return tmp_path_factory.mktemp("screenshots")


@pytest.mark.parametrize("width", [1280, 390, 360])
def test_nothing_sticks_out_of_its_card_and_no_word_breaks(
    loaded: Loaded, screenshots: Path, width: int
) -> None:
    page = loaded.page
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(100)
    assert page.evaluate(LAYOUT_CHECK) == []
    shot = screenshots / f"report-{width}.png"
    page.screenshot(path=str(shot), full_page=True)
    assert len(set(_png_pixels(shot.read_bytes()))) > 8, "the screenshot is blank"
    if width < 600:  # one column: every card as wide as the page, none wider
        widths = page.eval_on_selector_all(
            ".card", "cards => cards.map(c => c.getBoundingClientRect().width)"
        )
        assert widths and max(widths) <= width


CHART_CHECK = """
() => {
  const problems = [];
  const sizes = [];
  const viewport = window.innerWidth;
  for (const [i, chart] of [...document.querySelectorAll("svg.chart")].entries()) {
    const box = chart.getBoundingClientRect();
    if (box.width === 0) continue;  // not shown (a closed section)
    const name = `chart ${i} (${chart.querySelector("title").textContent})`;
    if (box.width > viewport || box.left < 0 || box.right > viewport)
      problems.push(`${name} is ${Math.round(box.width)} px wide, ${Math.round(box.left)}-${Math.round(box.right)} on a ${viewport} px screen`);
    const holder = chart.closest(".scroll, .card");
    const room = holder.getBoundingClientRect();
    if (box.right > room.right + 1 || box.left < room.left - 1)
      problems.push(`${name} is clipped by its ${holder.className}: ${Math.round(box.left)}-${Math.round(box.right)} in ${Math.round(room.left)}-${Math.round(room.right)}`);
    for (const text of chart.querySelectorAll("text")) {
      const r = text.getBoundingClientRect();
      if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
        problems.push(`${name}: "${text.textContent}" runs out of the chart`);
      const m = text.getScreenCTM();  // scale, whatever the rotation
      const px = parseFloat(getComputedStyle(text).fontSize) * Math.hypot(m.a, m.b);
      sizes.push(px);
    }
  }
  return {problems, smallest: Math.min(...sizes)};
}
"""
"""Every chart wider than the screen or than the box it sits in (a ``.scroll`` that would clip
it), every chart label that runs out of its chart, and the smallest label as drawn, in px."""


@pytest.mark.parametrize("width", [360, 390, 430])
def test_charts_fit_a_phone_and_stay_legible(loaded: Loaded, width: int) -> None:
    """Issue 31, Deliver 5: at 390 px the demo's charts ran off the screen (the rank axis after
    "11–20", the interval labels, the histogram after 0.6, the funnel's counts)."""
    page = loaded.page
    page.set_viewport_size({"width": width, "height": 900})
    page.wait_for_timeout(100)
    try:
        found = page.evaluate(CHART_CHECK)
        assert found["problems"] == []
        assert found["smallest"] >= 9.0, found["smallest"]  # labels scale with the chart
        assert page.evaluate("document.documentElement.scrollWidth") <= width
        scrolling = page.eval_on_selector_all(
            ".scroll:has(> svg.chart)",
            "els => els.filter(e => e.scrollWidth > e.clientWidth + 1).length",
        )
        assert scrolling == 0  # no chart hides a part behind a sideways scroll
    finally:
        page.set_viewport_size({"width": 1280, "height": 900})


def test_the_chart_check_sees_a_chart_too_wide(loaded: Loaded) -> None:
    page = loaded.page
    page.set_viewport_size({"width": 390, "height": 900})
    page.evaluate("() => { document.querySelector('svg.chart').style.minWidth = '600px'; }")
    try:
        problems = page.evaluate(CHART_CHECK)["problems"]
    finally:
        page.evaluate("() => { document.querySelector('svg.chart').style.minWidth = ''; }")
        page.set_viewport_size({"width": 1280, "height": 900})
    assert any("wide" in p or "clipped" in p for p in problems), problems


def test_the_overflow_check_sees_an_overflow(loaded: Loaded) -> None:
    """The check must be able to fail: a card holding a fixed-width box too wide for it."""
    page = loaded.page
    page.set_viewport_size({"width": 390, "height": 900})
    page.evaluate(
        "() => { const d = document.createElement('div'); d.id = 'too-wide';"
        " d.style.width = '900px'; d.textContent = 'wide'; document.querySelector('.card').append(d); }"
    )
    try:
        problems = page.evaluate(LAYOUT_CHECK)
    finally:
        page.evaluate("() => document.getElementById('too-wide').remove()")
    assert any("sticks out" in p for p in problems)
    page.set_viewport_size({"width": 1280, "height": 900})


def test_the_demo_report_fits_a_phone(loaded: Loaded, tmp_path: Path) -> None:
    """Issue 31, Target: the demo's report at 390 px — no chart wider than the screen, no
    sideways scroll, no clipped box (11 of its charts ran off the screen before)."""
    from ragfunnel.demo.runner import run_demo

    demo = run_demo(tmp_path / "demo")
    browser = loaded.page.context.browser  # one playwright session per thread: the module's
    assert browser is not None
    page = browser.new_page(viewport={"width": 390, "height": 900})
    try:
        page.goto(demo.html.as_uri(), wait_until="load")
        for summary in page.locator("details > summary").all():
            summary.click()
        page.wait_for_timeout(200)
        assert page.locator("svg.chart").count() >= 10
        found = page.evaluate(CHART_CHECK)
        layout = page.evaluate(LAYOUT_CHECK)
    finally:
        page.close()
    assert found["problems"] == [] and layout == []
    assert found["smallest"] >= 9.0
