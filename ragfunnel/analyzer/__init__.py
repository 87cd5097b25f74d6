"""The offline analyzer: store, ingest, funnel, metrics, reports and the CLI.

Needs the ``ragfunnel[analyzer]`` extra. Nothing in here is imported by the instrumentation.
"""
