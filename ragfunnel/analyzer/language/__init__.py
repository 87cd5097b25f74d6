"""Language: the word lists and the fact reader every judge and the facts check share.

``lexicon.py`` holds the word lists (English and German) and ``fold``; ``terms.py`` reads the
facts of a text (amounts, quantities, times, dates, codes, numbers) and its content words. Pure
Python over the standard library, below the funnel and the judges, so that the funnel's facts
check and the judges read a fact the same way (``cases/fact_meaning.py``).
"""
