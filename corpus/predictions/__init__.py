"""Model predictions for the two benchmark tasks, read and validated one run at a time.

A **run** is one model under one setting: a folder with ``model.json`` (optional) and one JSONL
file per task (``next_action.jsonl``, ``mental_model.jsonl``) plus, optionally, judges' 0-5
scores of its outputs (``judge_scores.jsonl``); docs/data-format.md has every field. Runs come
from a dataset's ``predictions/`` folder, from an uploaded ``.zip`` (run folders, or a dataset's
``predictions/`` folder) or ``.jsonl`` file (one task of one run), and from the command line.

A run is checked line by line against the dataset it predicts: unknown session or action, a role
that did not act, an unknown label, a wrong type, a duplicate prediction. Every problem is
reported with file, line and field, and a run with any error is refused whole (all or nothing per
run; the other runs are unaffected). Labels are accepted as codes (``t3``), as the schema's
wording, as the short names of Table 8, or as the wording of the paper's prompts (Appendix H).
Any extra field with a string, number or boolean value (``question_type``, ``time_span``, ...)
is kept as a column: the Compare page offers it as a slice.

The package reads them by concern: :mod:`~corpus.predictions.records` (the files, fields and labels
of each task, a run), :mod:`~corpus.predictions.lines` (a task file line by line),
:mod:`~corpus.predictions.at_once` (a task file a column at a time), :mod:`~corpus.predictions.frames`
(the rows packed to be pickled) and :mod:`~corpus.predictions.runs` (run folders and a dataset's runs).
"""

from corpus.loading.report import ERROR, WARNING
from corpus.predictions.frames import PackedRows
from corpus.predictions.lines import Failed, read_task_text
from corpus.predictions.records import (
    CORE_FIELDS,
    DIMENSIONS,
    FILES,
    INFO_FIELDS,
    JUDGE_SCALE,
    JUDGE_TASK,
    PROMPT_WORDING,
    RESERVED_FIELDS,
    TASKS,
    Run,
    RunInfo,
    label_code,
)
from corpus.predictions.runs import (
    issues_frame,
    read_dataset_runs,
    read_run_dir,
    read_runs_dir,
    read_task_file_at_once,
    run_files,
    text_digest,
)

__all__ = [
    "Run",
    "RunInfo",
    "read_run_dir",
    "read_runs_dir",
    "read_dataset_runs",
    "label_code",
    "issues_frame",
    "ERROR",
    "WARNING",
    "TASKS",
    "DIMENSIONS",
    "JUDGE_TASK",
    "CORE_FIELDS",
    "FILES",
    "INFO_FIELDS",
    "JUDGE_SCALE",
    "PROMPT_WORDING",
    "RESERVED_FIELDS",
    "Failed",
    "PackedRows",
    "read_task_text",
    "read_task_file_at_once",
    "run_files",
    "text_digest",
]
