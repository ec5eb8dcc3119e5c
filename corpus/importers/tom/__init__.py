"""Theory-of-mind benchmarks as their authors release them, read into :class:`corpus.benchmark.Benchmark`.

- :mod:`.dyntom`: DynToM trial folders (GAIR-NLP/DynToM; SocialMindChange follows the same design):
  ``question_new.json`` as gold, every ``<setting>_answer_<model>.json`` as a run.
"""

from corpus.importers.tom.dyntom import is_dyntom, load_dyntom, read_dyntom

__all__ = ["is_dyntom", "load_dyntom", "read_dyntom"]
