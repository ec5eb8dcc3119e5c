"""Theory-of-mind benchmarks as their authors release them, read into :class:`corpus.benchmark.Benchmark`.

- :mod:`.dyntom`: DynToM trial folders (GAIR-NLP/DynToM; SocialMindChange follows the same design):
  ``question_new.json`` as gold, every ``<setting>_answer_<model>.json`` as a run.
- :mod:`.synchtom`: SynchToM's per-instance LLM-judge scores (``evaluate.py``'s score files), for
  the agreement of judges (:func:`analysis.compare.judges.judge_agreement`).
"""

from corpus.importers.tom.dyntom import is_dyntom, load_dyntom, read_dyntom
from corpus.importers.tom.synchtom import read_synchtom, to_judge_scores

__all__ = ["is_dyntom", "load_dyntom", "read_dyntom", "read_synchtom", "to_judge_scores"]
