"""The reproduction report sets a dataset beside the published values whatever splits it records: by
split where it records the paper's (train, test), overall where it records none (the published
train and test groups pooled by their session counts), and says which comparison it made, beside
the table and in the table's own column."""

from __future__ import annotations

import math

import pytest

from analysis.descriptive import dataset_stats
from corpus.loading.dataset import SAMPLE_DATA, load_dir, load_sample
from corpus.splits import write_with_splits
from reports import html, reference
from reports.reference import ALMANAC, ReferenceError, comparison, load
from reports.reproduction import build

pytestmark = pytest.mark.long

REF = "ALMANAC (published)"


def _resplit(tmp_path, splits: dict[str, str]):  # noqa: ANN202 - a Corpus
    return load_dir(write_with_splits(SAMPLE_DATA, tmp_path / "ds", splits))


def test_a_dataset_without_splits_is_compared_overall_and_says_so(tmp_path):
    sample = load_sample()
    corpus = _resplit(tmp_path, dict.fromkeys(sample.sessions, "not_recorded"))
    report = build(corpus, reference=load())
    (section,) = [s for s in report.sections if s.title == f"Beside the published values: {REF}"]
    (said,) = [line for line in section.lines if "comparison is overall" in line]
    assert said.startswith(
        f"No session of this dataset is in a split {REF} reports (test, train; its splits: not recorded), so the "
        "comparison is overall: all 25 sessions, and each condition's, beside the published groups pooled"
    )
    (table,) = section.tables
    frame = table.frame
    assert len(frame) == 3 * (6 + 15) and set(frame["compared"]) == {"overall"}
    assert list(dict.fromkeys(frame["group"])) == ["overall", "not_visible", "visible"]
    # The paper's 25 sessions: 19 train (117.7, SD 87.7) and 6 test (125.2, SD 84.5) actions per session.
    mean = (19 * 117.7 + 6 * 125.2) / 25
    sd = math.sqrt((18 * 87.7**2 + 5 * 84.5**2 + 19 * (117.7 - mean) ** 2 + 6 * (125.2 - mean) ** 2) / 24)
    row = frame[(frame["group"] == "overall") & (frame["statistic"] == "# actions/session")].iloc[0]
    assert row[REF] == f"{mean:.1f} ({sd:.1f})" == "119.5 (85.2)"
    ours = dataset_stats(corpus.sessions_df, corpus.actions_df)["overall"]["per_session"]["actions"]
    assert row["ours"] == f"{ours['mean']:.1f} ({ours['sd']:.1f})"
    assert float(row["difference"]) == pytest.approx(ours["mean"] - mean, abs=0.05)
    # The visible sessions: 10 train and 3 test of the paper's.
    row = frame[(frame["group"] == "visible") & (frame["statistic"] == "# actions/session")].iloc[0]
    assert row[REF].startswith(f"{(10 * 112.4 + 3 * 131.3) / 13:.1f} (")
    # Its CSV: a header that names the comparison's column, and a line per row.
    lines = html.table_csv(table).splitlines()
    assert lines[0].split(",")[-1] == "compared" and len(lines) == 1 + len(frame)
    assert all(line.endswith(",overall") for line in lines[1:])


def test_a_dataset_with_the_papers_splits_is_compared_by_split():
    sample = load_sample()
    stats = dataset_stats(sample.sessions_df, sample.actions_df)
    how = reference.basis(stats, load())
    assert how.how == "by split"
    assert how.sentence == (
        f"Compared by split, as {REF} reports its values: this dataset's train (19 sessions) and test (6 sessions) "
        "beside the published groups of the same split."
    )
    frame = comparison(stats, load())
    assert set(frame["compared"]) == {"by split"}
    assert list(dict.fromkeys(frame["group"])) == [
        "train",
        "test",
        "not_visible/train",
        "not_visible/test",
        "visible/train",
        "visible/test",
    ]


def test_val_sessions_are_in_no_published_group_and_said_so(tmp_path):
    sample = load_sample().sessions_df
    val = sorted(sample.loc[sample["split"] == "train", "session_id"])[:4]
    corpus = _resplit(tmp_path, dict.fromkeys(val, "val"))
    stats = dataset_stats(corpus.sessions_df, corpus.actions_df)
    how = reference.basis(stats, load())
    assert how.how == "by split"
    assert how.sentence.endswith(
        "this dataset's train (15 sessions) and test (6 sessions) beside the published groups of the same split. "
        "The sessions of val (4 sessions) are in none of its groups."
    )
    frame = comparison(stats, load())
    assert not frame["group"].str.contains("val").any()
    row = frame[(frame["group"] == "train") & (frame["statistic"] == "# actions/session")].iloc[0]
    mine = stats["by_split"]["train"]["per_session"]["actions"]
    assert row["ours"] == f"{mine['mean']:.1f} ({mine['sd']:.1f})" and row[REF] == "117.7 (87.7)"


@pytest.mark.parametrize("value", ["[19, 6]", "[19, 6, 9, 3, 10, 0]", "[19, 6, 9, 3, 10, 3.5]", "twelve"])
def test_a_bad_session_count_names_the_field(tmp_path, value):
    text = ALMANAC.read_text(encoding="utf-8")
    path = tmp_path / "ref.yaml"
    path.write_text(text.replace("sessions: [19, 6, 9, 3, 10, 3]", f"sessions: {value}"), encoding="utf-8")
    with pytest.raises(ReferenceError) as err:
        load(path)
    assert f"{path}, field sessions: expected 6 session counts (whole numbers from 1), one per group" == str(err.value)
