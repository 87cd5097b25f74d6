from __future__ import annotations

from collections.abc import Iterator

import pytest

from ragfunnel.testing import CapturedSpans, capture_spans


@pytest.fixture
def spans() -> Iterator[CapturedSpans]:
    with capture_spans() as captured:
        yield captured
    for span in captured:
        assert span.end_time is not None, f"span {span.name} left open"


@pytest.fixture
def content_spans() -> Iterator[CapturedSpans]:
    with capture_spans(capture_content=True) as captured:
        yield captured
