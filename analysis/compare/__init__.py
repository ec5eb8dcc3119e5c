"""Model predictions against the people's own labels, scored as the ALMANAC benchmark does.

- :mod:`~analysis.compare.items`: predictions joined to what people did and reported; unmatched
  predictions and missing instances counted.
- :mod:`~analysis.compare.metrics`, :mod:`~analysis.compare.scores`: accuracy (Wilson), macro
  recall, macro F1, Cohen's kappa, ROUGE-L and SBERT similarity (:mod:`~analysis.compare.text`),
  the drawing score; per run, condition and role.
- :mod:`~analysis.compare.leaderboard`: the paper's table layout, CSV and LaTeX.
- :mod:`~analysis.compare.paired`: two runs on the same items (McNemar's exact test, paired
  bootstrap); :mod:`~analysis.compare.slices`: accuracy per slice value;
  :mod:`~analysis.compare.judges`: agreement of 0-5 judge scores.
- :mod:`~analysis.compare.instances`: the benchmark's inputs for a model runner.
- :mod:`~analysis.compare.comparison`: :func:`compare` ties it together into one
  :class:`Comparison` that the page, the command line (:mod:`~analysis.compare.cli`) and the
  exports read. Every score is an :class:`analysis.results.Estimate` (a table of them:
  :class:`analysis.results.EstimateTable`).
"""
