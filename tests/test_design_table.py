"""A study's design from a table (``--design TABLE.csv``): each imported session's condition and
split, matched by the name or id the source gives it, on the platform and HCRC importers alike;
every problem of the table named by file, row and field, with nothing written; the kitchen and
benchmark importers refuse it.

The platform sample is the real export in shared/real_data (two sessions, both named 'test1', with
their own session ids); the HCRC dialogues are the real q1ec1 transcript under other dialogue ids.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from cli_run import run_cli
from real_data import HCRC, PLATFORM, needs_hcrc, needs_platform

from corpus.importers import run_import
from corpus.loading.dataset import load_dir
from corpus.loading.report import Report
from corpus.loading.validate import DatasetError

GUIDE_LOG = "c7259e8b-49ea-4f31-b039-fe25fa2fcd12.guide_Jack.jsonl"
OLDER_LOG = "older_schema_3998d45e.follower_David.stripped.jsonl"


def _first_row(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8").splitlines()[0])


@pytest.fixture(scope="module")
def platform_ids() -> tuple[str, str, str]:
    """The sample's two session ids and their shared name, as the logs give them."""
    if not PLATFORM.is_dir():
        pytest.skip(f"real platform sample not available at {PLATFORM}")
    a, b = _first_row(PLATFORM / GUIDE_LOG), _first_row(PLATFORM / OLDER_LOG)
    assert a["session_name"] == b["session_name"] and a["session_id"] != b["session_id"]
    return a["session_id"], b["session_id"], a["session_name"]


def _table(path: Path, *rows: str, header: str = "session,condition,split") -> Path:
    path.write_text("\n".join([header, *rows]) + "\n", encoding="utf-8")
    return path


def _by_source_id(corpus) -> dict[str, tuple[str, str]]:  # noqa: ANN001 - a Corpus
    """session id in the export -> (condition, split), from each session's notes."""
    out = {}
    for sid in corpus.sessions:
        meta = corpus.meta(sid)
        source = meta.notes.split("(", 1)[1].split(")", 1)[0]
        out[source] = (meta.condition, meta.split)
    return out


# -- the platform ---------------------------------------------------------------------------------


@needs_platform
def test_the_command_line_sets_each_platform_sessions_condition_and_split(tmp_path, platform_ids):
    first, second, _name = platform_ids
    table = _table(tmp_path / "design.csv", f"{first},visible,train", f"{second},Not visible,val")
    run = run_cli("import", "--from", "platform", "--design", str(table), str(PLATFORM), str(tmp_path / "ds"))
    assert run.returncode == 0, run.stderr
    corpus = load_dir(tmp_path / "ds")
    assert _by_source_id(corpus) == {first: ("visible", "train"), second: ("not_visible", "val")}
    assert corpus.splits == ["train", "val"]
    assert corpus.info.conditions == ["not_visible", "visible"]  # the design, reference first
    (row2,) = [corpus.meta(s).notes for s in corpus.sessions if first in corpus.meta(s).notes]
    assert row2.endswith("condition visible and split train from the design table 'design.csv' (row 2)")


@needs_platform
def test_a_row_may_name_the_dataset_id_and_an_empty_cell_keeps_the_option(tmp_path, platform_ids):
    first, second, _name = platform_ids
    table = _table(tmp_path / "design.csv", f"test1-{first[:8]},,test", f"{second},visible,")
    dest = run_import("platform", PLATFORM, tmp_path / "ds", design=table, condition="not_visible", split="train")
    corpus = load_dir(dest)
    # Row 2 sets the split only (the condition is --condition's); row 3 the condition only.
    assert _by_source_id(corpus) == {first: ("not_visible", "test"), second: ("visible", "train")}


def _refused(tmp_path: Path, *rows: str, header: str = "session,condition,split", **options) -> list:
    table = _table(tmp_path / "design.csv", *rows, header=header)
    with pytest.raises(DatasetError) as err:
        run_import("platform", PLATFORM, tmp_path / "ds", design=table, **options)
    assert not (tmp_path / "ds").exists()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".ds-import-")]
    return [(i.file, i.record, i.field, i.message) for i in err.value.report.errors]


@needs_platform
def test_a_row_that_matches_no_session_is_named(tmp_path, platform_ids):
    first, second, _name = platform_ids
    errors = _refused(tmp_path, f"{first},visible,train", f"{second},visible,test", "study99,visible,test")
    table = str(tmp_path / "design.csv")
    assert errors == [
        (
            table,
            "row 4",
            "session",
            f"'study99' matches no imported session (the sessions' names and ids: 'test1', '{first}', "
            f"'test1-{first[:8]}', '{second}', 'test1-{second[:8]}')",
        )
    ]


@needs_platform
def test_a_session_no_row_names_is_named(tmp_path, platform_ids):
    first, second, _name = platform_ids
    errors = _refused(tmp_path, f"{first},visible,train")
    assert errors == [
        (
            str(tmp_path / "design.csv"),
            f"session test1-{second[:8]}",
            "session",
            f"no row names this session: add a row with one of '{second}', 'test1-{second[:8]}'",
        )
    ]


@needs_platform
def test_a_name_two_sessions_share_matches_neither(tmp_path, platform_ids):
    first, second, name = platform_ids
    errors = _refused(tmp_path, f"{name},visible,train", f"{second},visible,test")
    assert errors[0][1:3] == ("row 2", "session")
    assert (
        errors[0][3]
        == f"'{name}' is the name of 2 sessions ('test1-{first[:8]}', 'test1-{second[:8]}'): name each by its id"
    )
    assert errors[1][1:] == (
        f"session test1-{first[:8]}",
        "session",
        f"no row names this session: add a row with one of '{first}', 'test1-{first[:8]}'",
    )
    assert len(errors) == 2


@needs_platform
def test_two_rows_for_one_session_are_refused(tmp_path, platform_ids):
    first, second, _name = platform_ids
    errors = _refused(
        tmp_path, f"{first},visible,train", f"{second},visible,test", f"test1-{first[:8]},not_visible,test"
    )
    assert errors == [
        (
            str(tmp_path / "design.csv"),
            "row 4",
            "session",
            f"a second row for session 'test1-{first[:8]}' (the first is row 2, '{first}'): one row per session",
        )
    ]


@needs_platform
def test_a_condition_or_split_outside_the_schema_names_the_row_and_field(tmp_path, platform_ids):
    first, second, _name = platform_ids
    errors = _refused(tmp_path, f"{first},seen,train", f"{second},visible,validation", f"{first},visible,dev")
    table = str(tmp_path / "design.csv")
    assert [e[:3] for e in errors] == [
        (table, "row 2", "condition"),
        (table, "row 3", "split"),
        (table, "row 4", "split"),
    ]
    assert errors[0][3] == (
        "unknown condition 'seen' (expected one of not_visible, visible, no_eye_contact, eye_contact, not_recorded; "
        "an empty cell keeps what the import gives the session)"
    )
    assert errors[1][3].startswith("unknown split 'validation' (expected one of train, val, test, not_recorded;")


@needs_platform
@pytest.mark.parametrize(
    ("header", "missing"),
    [
        ("sesion,condition,split", ["session"]),
        ("session,condition", ["split"]),
        ("name;condition;split", ["session", "condition", "split"]),
    ],
)
def test_a_missing_column_is_named(tmp_path, platform_ids, header, missing):
    first, _second, _name = platform_ids
    errors = _refused(tmp_path, f"{first},visible,train", header=header)
    assert [(e[1], e[2]) for e in errors] == [("row 1", c) for c in missing]
    assert all(
        e[3].startswith(f"missing column '{e[2]}': a design table has the columns session, condition and split (found ")
        for e in errors
    )


def test_a_table_that_is_not_utf8_or_too_large_is_refused_before_the_source_is_read(tmp_path):
    from corpus.design import DesignFile, read_design

    report = Report()
    assert (
        read_design(
            DesignFile("design.csv", "session,condition,split\nq1ec1,visible,\u00e9\n".encode("latin-1")), report
        )
        is None
    )
    assert [(i.file, i.record, i.field) for i in report.errors] == [("design.csv", "row 2", "(encoding)")]
    report = Report()
    assert read_design(DesignFile("big.csv", b"session,condition,split\n" + b"x,,\n" * 300_000), report) is None
    assert report.errors[0].message == "the design table is 1.1 MiB; at most 1 MiB (one row per session)"
    report = Report()
    assert read_design(tmp_path / "absent.csv", report) is None
    assert report.errors[0].field == "(file)" and "cannot read the design table" in report.errors[0].message


@needs_platform
def test_the_command_line_says_every_problem_and_writes_nothing(tmp_path, platform_ids):
    first, _second, _name = platform_ids
    table = _table(tmp_path / "design.csv", f"{first},visible,train", "study99,,")
    run = run_cli("import", "--from", "platform", "--design", str(table), str(PLATFORM), str(tmp_path / "ds"))
    assert run.returncode == 1
    assert "'study99' matches no imported session" in run.stderr
    assert "no row names this session" in run.stderr
    assert "has 2 error(s)" in run.stderr and not (tmp_path / "ds").exists()


# -- HCRC -----------------------------------------------------------------------------------------


def _dialogues(folder: Path, *ids: str) -> Path:
    """The real q1ec1 transcript under each of ``ids`` (the dialogue is the file's name)."""
    folder.mkdir(parents=True)
    for d in ids:
        shutil.copy(HCRC / "q1ec1.pipe.txt", folder / f"{d}.txt")
    return folder


@needs_hcrc
def test_hcrc_dialogues_take_their_design_by_dialogue_id(tmp_path):
    src = _dialogues(tmp_path / "src", "q1ec1", "q3nc2", "q4ec3")
    table = _table(tmp_path / "design.csv", "q1ec1,,train", "q3nc2,,val", "q4ec3,no eye contact,test")
    run = run_cli("import", "--from", "hcrc", "--design", str(table), str(src), str(tmp_path / "ds"))
    assert run.returncode == 0, run.stderr
    corpus = load_dir(tmp_path / "ds")
    got = {sid: (corpus.meta(sid).condition, corpus.meta(sid).split) for sid in corpus.sessions}
    # An empty condition keeps the one the dialogue id gives.
    assert got == {
        "q1ec1": ("eye_contact", "train"),
        "q3nc2": ("no_eye_contact", "val"),
        "q4ec3": ("no_eye_contact", "test"),
    }
    assert corpus.info.conditions == ["no_eye_contact", "eye_contact"]
    assert set(corpus.sessions_df["split"]) == {"train", "val", "test"}


@needs_hcrc
def test_hcrc_rows_and_dialogues_that_do_not_match_are_named(tmp_path):
    src = _dialogues(tmp_path / "src", "q1ec1", "q3nc2")
    table = _table(tmp_path / "design.csv", "q1ec1,,train", "q1ec9,,test")
    with pytest.raises(DatasetError) as err:
        run_import("hcrc", src, tmp_path / "ds", design=table)
    assert [(i.record, i.field, i.message) for i in err.value.report.errors] == [
        ("row 3", "session", "'q1ec9' matches no imported session (the sessions' names and ids: 'q1ec1', 'q3nc2')"),
        ("session q3nc2", "session", "no row names this session: add a row with 'q3nc2'"),
    ]
    assert not (tmp_path / "ds").exists()


@needs_hcrc
def test_hcrc_import_takes_the_val_split(tmp_path):
    run = run_cli("import", "--from", "hcrc", "--split", "val", str(HCRC / "q1ec1.pipe.txt"), str(tmp_path / "ds"))
    assert run.returncode == 0, run.stderr
    assert load_dir(tmp_path / "ds").meta("q1ec1").split == "val"


# -- the importers that take no design ------------------------------------------------------------


@pytest.mark.parametrize("fmt", ["overcooked", "dyntom", "maptask-vlm"])
def test_kitchen_and_benchmark_imports_refuse_a_design_table(tmp_path, fmt):
    table = _table(tmp_path / "design.csv", "s1,visible,train")
    (tmp_path / "src").mkdir()
    run = run_cli("import", "--from", fmt, "--design", str(table), str(tmp_path / "src"), str(tmp_path / "ds"))
    assert run.returncode == 1
    assert (
        f"the {fmt} import takes no design table: conditions and splits are those of Map Task sessions, set by a "
        "design table on the platform and hcrc imports only"
    ) in run.stderr
    assert not (tmp_path / "ds").exists()
