"""Demo pipelines over real data (the ``ragfunnel[demo]`` extra): see :mod:`.hotpotqa`."""
