"""The store side of the funnel: where stage rows come from, and every query an analysis runs.

``source`` (the stage table or ``otel_traces`` parsed at read time), ``session`` (one
analysis's temporary tables and queries), ``sql/`` (the statements, by job), ``verdicts`` (the
judges' deciding verdicts), ``runs`` (is a run in the store) and ``index_truth`` (what was
indexed). ``wide_layout`` names the columns the SQL returns and the records read. Nothing here
builds a record: ``records/`` does, from what these return.
"""
