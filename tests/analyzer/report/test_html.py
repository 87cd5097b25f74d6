"""The HTML page as text: one self-contained file, every user text escaped, charts inline.

The browser test (test_report_browser.py) checks the same page in a real Chromium.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

from ragfunnel.analyzer.report import ReportError
from ragfunnel.analyzer.report.diff import diff_runs
from ragfunnel.analyzer.report.html import render_html, write_html
from tests.support.report_fixtures import Fixture, report_of, with_verdicts


@pytest.fixture(scope="module")
def page(runs: Fixture) -> str:
    report = report_of(runs, with_verdicts(runs.result), jaeger_url="http://127.0.0.1:16686")
    return render_html(report, diff=diff_runs(runs.result, "A", "B", snapshots=runs.snapshots))


class _Elements(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))


def _elements(page: str) -> list[tuple[str, dict[str, str | None]]]:
    parser = _Elements()
    parser.feed(page)
    return parser.tags


def test_no_script_no_external_resource(page: str) -> None:
    tags = _elements(page)
    names = {tag for tag, _ in tags}
    assert not names & {"script", "link", "iframe", "object", "embed", "img", "foreignobject"}
    assert [tag for tag, _ in tags].count("style") == 1
    handlers = [(tag, a) for tag, attrs in tags for a in attrs if a.startswith("on")]
    assert handlers == []
    links = {v for _, attrs in tags for a, v in attrs.items() if a in ("href", "src", "xlink:href")}
    assert links and all(
        v is not None and (v.startswith(("#", "http://127.0.0.1:16686/trace/"))) for v in links
    ), links
    csp = next(
        a for tag, a in tags if tag == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    )
    assert (csp["content"] or "").startswith("default-src 'none'")
    assert "@import" not in page and "url(" not in page
    # The only absolute URL besides trace links is the SVG namespace (an identifier, not fetched).
    absolute = set(re.findall(r"https?://[^\s\"'<>]+", page))
    assert {u for u in absolute if "/trace/" not in u} == {"http://www.w3.org/2000/svg"}


def test_hostile_texts_are_escaped(page: str) -> None:
    assert "&lt;script&gt;window.__pwned = 1&lt;/script&gt;" in page
    assert "&lt;img src=x onerror=&#34;window.__pwned = 2&#34;&gt;" in page
    assert "&lt;a href=&#34;javascript:window.__pwned = 3&#34;&gt;" in page
    assert "&lt;/style&gt;&lt;style&gt;body { display: none }&lt;/style&gt;" in page
    assert page.count("</style>") == 1  # the page's own stylesheet only
    assert "javascript:" not in re.sub(r"&lt;a href=&#34;javascript:", "", page)


def test_sections_and_charts(page: str) -> None:
    assert page.count("<svg") >= 3 * 5
    for heading in ("Where evidence was lost", "Gold evidence rank against the cut",
                    "Retrieval at the real cut (k = 3)", "Generation: judged answers",
                    "Abstention", "Evidence most often lost at ingestion or search",
                    "Configuration", "Worst questions", "Stage transitions",
                    "A random sample of questions"):  # fmt: skip
        assert heading in page, heading
    assert "prompt cut: top 3" in page
    assert "<b>2</b> moved search → ok" in page
    assert "3 fixed, 1 broken, p = 0.62" in page
    assert 'href="http://127.0.0.1:16686/trace/' in page
    assert "<q>It says &lt;script&gt;window.__pwned = 4&lt;/script&gt; too.</q>" in page


def test_write_html_and_bad_jaeger_url(runs: Fixture, tmp_path: Path) -> None:
    path = write_html(report_of(runs), tmp_path / "report.html")
    assert path.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    with pytest.raises(ReportError, match="jaeger_url: expected http"):
        report_of(runs, jaeger_url="javascript:alert(1)")
    with pytest.raises(ReportError, match=r"report\.html: cannot write the HTML report"):
        write_html(report_of(runs), tmp_path / "nowhere" / "report.html")


def test_long_texts_are_clipped_in_the_page_only(runs: Fixture) -> None:
    report = report_of(runs)
    worst = report.run("A").worst[0]
    worst["answer"] = "<b>" + "x" * 9000  # entries are plain dicts: the JSON keeps them whole
    page = render_html(report)
    assert "&lt;b&gt;" + "x" * 3997 + "… +5,003 more characters in the JSON summary" in page
    assert "x" * 4000 not in page
