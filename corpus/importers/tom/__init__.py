"""Theory-of-mind benchmarks as their authors release them, read into :class:`corpus.benchmark.dataset.Benchmark`.

- :mod:`.dyntom`: DynToM trial folders (GAIR-NLP/DynToM; SocialMindChange follows the same design):
  ``question_new.json`` as gold, every ``<setting>_answer_<model>.json`` as a run.
- :mod:`.synchtom_items`: SynchToM's released items (THUNLP-MT/SynchToM): the four benchmark files,
  each item's rubric per dimension and its trajectory file.
- :mod:`.synchtom`: SynchToM's per-instance LLM-judge scores (``evaluate.py``'s score files), for
  the agreement of judges (:func:`analysis.compare.judges.judge_agreement`), and read back against
  the items as judged runs (:func:`read_judged_runs`; :func:`read_release`: the items with the
  score files beside them).
- :mod:`.synchtom_runs`: the judged runs built from those scores: each score file checked against
  the items, clashing files refused, the items a run lacks named.
- :mod:`.records`: the records of these releases as typed models, each refusal naming its file,
  record and field.
"""

from corpus.importers.tom.dyntom import is_dyntom, load_dyntom, read_dyntom
from corpus.importers.tom.synchtom import read_judged_runs, read_release, read_synchtom, to_judge_scores
from corpus.importers.tom.synchtom_items import is_synchtom, load_synchtom_items, read_synchtom_items

__all__ = [
    "is_dyntom",
    "is_synchtom",
    "load_dyntom",
    "load_synchtom_items",
    "read_dyntom",
    "read_judged_runs",
    "read_release",
    "read_synchtom",
    "read_synchtom_items",
    "to_judge_scores",
]
