"""Where an analysis reads stage spans from: a re-export.

The choice lives in the store layer, shared with the judges:
:mod:`ragfunnel.analyzer.store.stage_source`.
"""

from __future__ import annotations

from ragfunnel.analyzer.store.stage_source import READ_TIME_NOTICE, StageSource, stage_source

__all__ = ["READ_TIME_NOTICE", "StageSource", "stage_source"]
