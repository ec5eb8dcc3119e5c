"""JSON Lines breaks lines at newlines only (corpus.loading.reading ``jsonl_lines``): a JSON string may
hold U+2028, U+2029 or U+0085 as it is (``json.dumps(..., ensure_ascii=False)`` writes them so,
and so do JavaScript's JSON.stringify and chat exports), and a record holding one reads as any other,
whichever way its file is read; a line's number is the line an editor shows."""

from __future__ import annotations

import json
import shutil

import pytest

from corpus.loading.dataset import SAMPLE_DATA, load_dir
from corpus.loading.reading import jsonl_lines, line_count
from corpus.loading.validate import read_dataset


@pytest.mark.parametrize(
    "text",
    [
        "",
        "\n",
        "a",
        "a\n",
        "a\nb",
        "a\nb\n",
        "a\n\nb\n\n",
        "a\r\nb\r\n",
        "a\r\n\r\nb",
        '{"a": 1}\n  \n{"b": 2}\n',
    ],
)
def test_texts_without_other_line_breaks_split_as_splitlines_does(text):
    assert jsonl_lines(text) == text.splitlines()


def test_only_a_newline_breaks_a_line():
    text = '{"t": "a\u2028b\u2029c\x85d"}\n{"t": "e\x0bf"}\rg\x0c\n'
    assert jsonl_lines(text) == ['{"t": "a\u2028b\u2029c\x85d"}', '{"t": "e\x0bf"}\rg\x0c']
    assert len(jsonl_lines(text)) == line_count(text) == 2
    assert jsonl_lines("a\r\r\nb") == ["a\r", "b"]  # (one carriage return belongs to the line break)


def _with(tmp_path, ch: str):
    """The sample with a line break of another kind in a message of one session and in a
    rationale of one prediction, each written as it is."""
    root = tmp_path / "ds"
    shutil.copytree(SAMPLE_DATA, root)
    path = root / "sessions" / "S01" / "actions.jsonl"
    lines = path.read_text(encoding="utf-8").splitlines()
    record = json.loads(lines[0])
    assert record["type"] == "message"
    record["content"] = f"first part{ch}second part"
    lines[0] = json.dumps(record, ensure_ascii=False)
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    runs = root / "predictions" / "sim-llm-persona" / "mental_model.jsonl"
    run_lines = runs.read_text(encoding="utf-8").splitlines()
    prediction = json.loads(run_lines[3])
    prediction["rationale"] = f"because{ch}so"
    run_lines[3] = json.dumps(prediction, ensure_ascii=False)
    runs.write_text("\n".join(run_lines) + "\n", encoding="utf-8")
    return root, lines


@pytest.mark.parametrize("ch", ["\u2028", "\u2029", "\x85"])
@pytest.mark.parametrize("whole", [False, True])
def test_a_record_holding_another_line_break_reads_as_any_other(tmp_path, ch, whole):
    """Read fast (columns at once) or as models (every session kept whole), the dataset loads with
    the text as written; the run holding one is read too."""
    root, _ = _with(tmp_path, ch)
    corpus = load_dir(root, keep_actions=None if whole else 0)
    assert corpus.session("S01").actions[0].content == f"first part{ch}second part"
    texts = corpus.actions_df.loc[corpus.actions_df["session_id"] == "S01", "text"].tolist()
    assert texts[0] == f"first part{ch}second part"
    run = corpus.predictions["sim-llm-persona"]
    assert run.ok and f"because{ch}so" in run.table("mental_model")["rationale"].tolist()


def test_a_bad_line_after_one_is_reported_at_the_line_an_editor_shows(tmp_path):
    root, lines = _with(tmp_path, "\u2028")
    path = root / "sessions" / "S01" / "actions.jsonl"
    lines[4] = "{not json"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    _, report = read_dataset(root)
    assert [(i.file, i.record) for i in report.errors] == [("sessions/S01/actions.jsonl", "line 5")]
