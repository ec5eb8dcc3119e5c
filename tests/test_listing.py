"""A dataset folder's files are listed again only where a folder changed, and always as a fresh walk
of the folders lists them: after names are added, removed, renamed or turned into folders, with
hidden names and links, and for folders changed too recently to trust their times."""

from __future__ import annotations

import os
import time
from pathlib import Path

import pytest

from corpus.loading import listing
from corpus.loading.dataset import files_signature
from corpus.loading.listing import dataset_files

PAST = time.time() - 3_600  # (an hour ago: a folder's times older than the racy window)


def fresh_walk(root: Path) -> list[tuple[tuple[str, ...], str]]:
    """The files as one walk with nothing kept finds them (the definition)."""
    out = []
    folders = [((), str(root))]
    while folders:
        parts, folder = folders.pop()
        with os.scandir(folder) as it:
            for entry in it:
                if entry.name.startswith("."):
                    continue
                if entry.is_dir(follow_symlinks=False):
                    folders.append(((*parts, entry.name), entry.path))
                elif entry.is_file():
                    out.append(((*parts, entry.name), entry.path))
    return sorted(out)


def settle(root: Path) -> None:
    """Every folder's times an hour old, as a dataset's are once written (so its listing is kept)."""
    for folder, _, _ in os.walk(root):
        os.utime(folder, (PAST, PAST))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    listing.forget_listings()
    root = tmp_path / "ds"
    for s in range(4):
        (root / "sessions" / f"s{s}").mkdir(parents=True)
        (root / "sessions" / f"s{s}" / "session.json").write_text("{}")
        (root / "sessions" / f"s{s}" / "actions.jsonl").write_text("{}\n")
    (root / "dataset.json").write_text("{}")
    (root / ".hidden").mkdir()
    (root / ".hidden" / "x.json").write_text("{}")
    (root / "sessions" / ".notes.txt").write_text("x")
    (tmp_path / "outside").mkdir()
    (tmp_path / "outside" / "y.json").write_text("{}")
    (root / "linked_folder").symlink_to(tmp_path / "outside")  # (not followed)
    (root / "linked_file.json").symlink_to(tmp_path / "outside" / "y.json")  # (a file: read)
    settle(root)
    return root


def test_a_settled_folder_is_listed_once_and_its_walk_kept(tree, monkeypatch):
    first = dataset_files(tree)
    assert first == fresh_walk(tree)
    assert (("linked_file.json",), str(tree / "linked_file.json")) in first
    assert not any(parts[0] in (".hidden", "linked_folder") or parts[-1] == ".notes.txt" for parts, _ in first)
    scans = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: scans.append(path) or real(path))
    assert dataset_files(tree) == first and scans == []  # (nothing listed again)
    assert files_signature(tree) == files_signature(tree)


@pytest.mark.parametrize(
    "change",
    ["add a file", "remove a file", "rename a file", "add a folder", "a file becomes a folder", "remove a folder"],
)
def test_each_change_of_names_is_seen(tree, change, monkeypatch):
    before = dataset_files(tree)
    s1 = tree / "sessions" / "s1"
    if change == "add a file":
        (s1 / "extra.json").write_text("{}")
    elif change == "remove a file":
        (s1 / "actions.jsonl").unlink()
    elif change == "rename a file":
        (s1 / "actions.jsonl").rename(s1 / "actions2.jsonl")
    elif change == "add a folder":
        (tree / "sessions" / "s9").mkdir()
        (tree / "sessions" / "s9" / "session.json").write_text("{}")
    elif change == "a file becomes a folder":
        (s1 / "session.json").unlink()
        (s1 / "session.json").mkdir()
        (s1 / "session.json" / "inner.json").write_text("{}")
    else:
        for f in s1.iterdir():
            f.unlink()
        s1.rmdir()
    after = dataset_files(tree)
    assert after == fresh_walk(tree) and after != before
    settle(tree)  # (times set back an hour: the change times still differ from those kept)
    assert dataset_files(tree) == fresh_walk(tree)


def test_a_folder_given_back_its_old_time_is_still_listed_again(tree):
    """A name added and the folder's modification time set back to what it was: its change time
    moved, and the folder is listed again."""
    dataset_files(tree)
    s2 = tree / "sessions" / "s2"
    (s2 / "late.json").write_text("{}")
    os.utime(s2, (PAST, PAST))
    assert (("sessions", "s2", "late.json"), str(s2 / "late.json")) in dataset_files(tree)


def test_a_folder_changed_within_the_racy_window_is_not_kept(tree, monkeypatch):
    s3 = tree / "sessions" / "s3"
    (s3 / "new.json").write_text("{}")  # (its folder's times: now)
    assert dataset_files(tree) == fresh_walk(tree)
    assert str(s3) not in listing._KEPT and str(tree) not in listing._WALKS
    assert str(tree / "sessions" / "s0") in listing._KEPT  # (the settled ones are kept)
    scans = []
    real = os.scandir
    monkeypatch.setattr(os, "scandir", lambda path: scans.append(path) or real(path))
    dataset_files(tree)
    assert scans == [str(s3)]  # (listed again, alone)


def test_a_file_written_in_place_changes_the_signature(tree):
    """A file's own time and size are asked for on every check (writing a file in place leaves its
    folder's times alone)."""
    before = files_signature(tree)
    f = tree / "sessions" / "s0" / "actions.jsonl"
    f.write_text("{}\n{}\n")
    os.utime(tree / "sessions" / "s0", (PAST, PAST))
    assert files_signature(tree) != before


def test_a_link_whose_file_went_is_left_out_as_a_fresh_walk_leaves_it(tree, tmp_path):
    dataset_files(tree)
    (tmp_path / "outside" / "y.json").unlink()  # (the link's folder unchanged)
    signature = files_signature(tree)  # (no error: every folder listed afresh)
    assert dataset_files(tree) == fresh_walk(tree)
    assert not any(parts == ("linked_file.json",) for parts, _ in dataset_files(tree))
    assert signature == files_signature(tree)


def test_the_hash_of_a_folder_whose_linked_file_went_is_that_of_a_fresh_walk(tree, tmp_path):
    from corpus.loading.dataset import content_hash, hash_and_signature

    dataset_files(tree)
    (tmp_path / "outside" / "y.json").unlink()
    got = hash_and_signature(tree)  # (no error: every folder listed afresh)
    listing.forget_listings()
    assert got == (content_hash(tree), files_signature(tree))
