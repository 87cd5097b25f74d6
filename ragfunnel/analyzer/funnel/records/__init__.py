"""The per-question records: pure polars transformations of what ``read/`` returned.

``pipeline`` holds the steps, in order (``STEPS``), that turn one batch of funnel rows into
records, and :func:`~ragfunnel.analyzer.funnel.records.pipeline.finish`, which joins the
batches; the other modules are what the steps call: ``answer_checks`` (the facts check),
``rare_details`` (merging the side queries' details), ``decision_table`` (each item's survival
code and reason), ``evidence_tree`` (nested evidence), ``first_failure`` (the verdict rules)
and ``metrics`` (ID-based metrics).
"""
