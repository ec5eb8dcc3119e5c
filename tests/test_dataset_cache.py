"""A loaded dataset is kept on disk (written while the load returns) and the next load of the same
bytes reads that instead of every record (corpus.loading.dataset_cache): the corpus it gives equals the one read record by record, in this
process and in another one; changed bytes, a damaged entry or a folder that cannot be written fall
back to reading the dataset."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import corpus.loading.dataset as dataset
from corpus.generate import generate
from corpus.loading.dataset import Corpus, content_hash, load_dir
from corpus.loading.dataset_cache import DatasetCache, code_version, written

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> Path:
    """40 generated sessions (about 4,000 actions) with their labels and predictions."""
    return generate(seed=9, out=tmp_path_factory.mktemp("gen") / "ds", n_sessions=40)


def _same(a: Corpus, b: Corpus) -> None:
    pd.testing.assert_frame_equal(a.actions_df, b.actions_df)
    pd.testing.assert_frame_equal(a.sessions_df, b.sessions_df)
    np.testing.assert_array_equal(a.route_coverage, b.route_coverage)
    pd.testing.assert_frame_equal(a.labels, b.labels)
    pd.testing.assert_frame_equal(a.expressions, b.expressions)
    assert a.info == b.info and a.maps == b.maps and a.content_hash == b.content_hash
    assert [w.message for w in a.warnings] == [w.message for w in b.warnings]
    assert sorted(a.predictions) == sorted(b.predictions) and a.predictions
    for run_id, run in a.predictions.items():
        assert run.ok and run.digest == b.predictions[run_id].digest
        for task, table in run.tables.items():
            pd.testing.assert_frame_equal(table, b.predictions[run_id].tables[task])
    assert list(a.sessions) == list(b.sessions)
    for sid in list(a.sessions)[::9]:
        assert a.meta(sid) == b.meta(sid) and a.n_actions(sid) == b.n_actions(sid)
        assert a.session(sid).model_dump() == b.session(sid).model_dump()


def _load(root, **kwargs) -> Corpus:
    """``load_dir``, then the wait for the entry it keeps (written on a thread of its own)."""
    corpus = load_dir(root, **kwargs)
    written()
    return corpus


def test_the_load_returns_while_its_entry_is_written(generated, tmp_path, monkeypatch):
    """A read dataset is kept on a thread of its own: the load has returned while the entry is
    being written, and the folder's hash is recorded once the entry is written."""
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    release = threading.Event()
    write = DatasetCache.write

    def held(self, content_hash, entry):
        assert release.wait(60)
        return write(self, content_hash, entry)

    monkeypatch.setattr(DatasetCache, "write", held)
    corpus = load_dir(generated, cache=cache)
    path, signature = cache.path(corpus.content_hash), dataset.files_signature(generated)
    assert len(corpus.actions_df) > 1_000 and not path.exists() and cache.known_hash(generated, signature) is None
    release.set()
    written()
    assert path.is_file() and cache.known_hash(generated, signature) == corpus.content_hash
    assert cache.read(corpus.content_hash) is not None


def test_a_long_read_starts_its_readers_before_its_files_are_listed_and_a_reopen_starts_none(
    generated, tmp_path, monkeypatch
):
    """The worker processes of a long read fork from a fork server that takes about a second to
    start: a load that will read (its cache holds no entry yet) starts it first; a load that finds
    its entry by the folder's hash starts none."""
    order: list[str] = []
    monkeypatch.setattr(dataset, "readers", lambda n_sessions: 2)  # (as for a long dataset)
    monkeypatch.setattr(dataset, "start_readers", lambda: order.append("readers"))
    signature, hashed = dataset.files_signature, dataset.hash_and_signature
    monkeypatch.setattr(dataset, "files_signature", lambda root: order.append("files") or signature(root))
    monkeypatch.setattr(dataset, "hash_and_signature", lambda root: order.append("hashed") or hashed(root))
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    first = _load(generated, cache=cache)
    assert order[0] == "readers" and "hashed" in order and "files" not in order  # (signed as it is hashed)
    order.clear()
    _same(first, _load(generated, cache=cache))
    assert order == ["files"]


def _no_reading(monkeypatch) -> None:
    def refuse(*args, **kwargs):
        raise AssertionError("the dataset was read record by record")

    monkeypatch.setattr(dataset, "read_dataset", refuse)


def test_the_second_load_reads_the_kept_entry(generated, tmp_path, monkeypatch):
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    first = _load(generated, cache=cache)
    path = cache.path(content_hash(generated))
    assert path.is_file() and code_version() in path.name
    _no_reading(monkeypatch)
    second = _load(generated, cache=cache, known_hash=content_hash(generated))
    assert second.sessions.kept == 0  # (whole sessions are read from the folder when asked for)
    _same(first, second)
    _same(second, _load(generated, cache=cache))


def test_changed_bytes_are_read_again(generated, tmp_path):
    ds = tmp_path / "ds"
    shutil.copytree(generated, ds)
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    _load(ds, cache=cache)
    info = json.loads((ds / "dataset.json").read_text(encoding="utf-8"))
    info["description"] = "edited"
    (ds / "dataset.json").write_text(json.dumps(info), encoding="utf-8")
    again = _load(ds, cache=cache)
    assert again.info.description == "edited"
    assert len(list(cache.folder.glob("*.pickle"))) == 2


def test_a_damaged_entry_is_read_past_and_written_again(generated, tmp_path, caplog):
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    path = cache.path(content_hash(generated))
    path.parent.mkdir(parents=True)
    path.write_bytes(b"\x80\x05 not a pickle")
    corpus = _load(generated, cache=cache, known_hash=content_hash(generated))
    assert "does not read" in caplog.text and len(corpus.actions_df) > 1_000
    assert cache.read(content_hash(generated)) is not None
    path.write_bytes(b"\x80\x05 not a pickle")  # (and when the hash is made as the dataset is read)
    assert len(_load(generated, cache=cache).actions_df) == len(corpus.actions_df)
    assert cache.read(content_hash(generated)) is not None


def test_small_datasets_are_not_kept_and_old_entries_go(generated, tmp_path):
    cache = DatasetCache(tmp_path / "cache")  # (20,000 actions at least)
    _load(generated, cache=cache)
    assert not cache.folder.exists()
    two = DatasetCache(tmp_path / "two", min_actions=1_000, entries=2)
    for k in range(3):
        ds = tmp_path / f"ds{k}"
        shutil.copytree(generated, ds)
        (ds / "sessions" / next(iter(sorted(os.listdir(ds / "sessions")))) / "session.json").touch()
        info = json.loads((ds / "dataset.json").read_text(encoding="utf-8"))
        info["description"] = f"copy {k}"
        (ds / "dataset.json").write_text(json.dumps(info), encoding="utf-8")
        _load(ds, cache=two)
    kept = list(two.folder.glob("*.pickle"))
    assert len(kept) == 2 and two.path(content_hash(tmp_path / "ds0")) not in kept


def test_a_folder_that_cannot_be_written_leaves_the_load_alone(generated, tmp_path, caplog):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    corpus = _load(generated, cache=DatasetCache(blocker / "cache", min_actions=1_000))
    assert len(corpus.actions_df) > 1_000 and "cannot keep the loaded dataset" in caplog.text


_CHILD = r"""
import json, sys
sys.path.insert(0, sys.argv[3])
import corpus.loading.dataset as dataset
from corpus.loading.dataset_cache import DatasetCache
read = []
original = dataset.read_dataset
dataset.read_dataset = lambda *a, **k: read.append(1) or original(*a, **k)
c = dataset.load_dir(sys.argv[1], cache=DatasetCache(__import__("pathlib").Path(sys.argv[2]), min_actions=1_000))
print(json.dumps({"read": bool(read), "actions": len(c.actions_df), "hash": c.content_hash}))
"""


def test_another_process_reads_what_one_kept(generated, tmp_path):
    """Two replicas on one data directory: the first reads and keeps, the second only reads the entry."""
    runs = [
        json.loads(
            subprocess.run(
                [sys.executable, "-c", _CHILD, str(generated), str(tmp_path / "cache"), str(ROOT)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.strip()
        )
        for _ in range(2)
    ]
    assert [r["read"] for r in runs] == [True, False]
    assert runs[0]["actions"] == runs[1]["actions"] > 1_000 and runs[0]["hash"] == runs[1]["hash"]


def test_a_folder_opened_again_unchanged_is_not_hashed_again(generated, tmp_path, monkeypatch):
    """The first load hashes the folder (while it reads it) and records the hash under the folder's
    path and its files' names, sizes and times; a load of the same folder unchanged takes the entry
    by that hash without reading a byte of the dataset. A touched file, or a copy of the folder
    elsewhere, is hashed again."""
    ds = tmp_path / "ds"
    shutil.copytree(generated, ds)
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    first = _load(ds, cache=cache)
    digest = content_hash(ds)
    assert first.content_hash == digest
    assert cache.known_hash(ds, dataset.files_signature(ds)) == digest
    assert len(list((cache.folder / "hashes").iterdir())) == 1
    hashed: list[Path] = []

    hash_and_signature = dataset.hash_and_signature

    def counted(root):
        hashed.append(Path(root))
        return hash_and_signature(root)

    monkeypatch.setattr(dataset, "hash_and_signature", counted)
    with monkeypatch.context() as m:
        _no_reading(m)
        again = _load(ds, cache=cache)
    assert hashed == [] and again.content_hash == digest
    _same(first, again)

    copy = tmp_path / "copy"
    shutil.copytree(ds, copy)
    assert _load(copy, cache=cache).content_hash == digest and hashed == [copy]
    path = ds / "dataset.json"
    os.utime(path, ns=(path.stat().st_atime_ns, path.stat().st_mtime_ns + 1_000_000_000))
    assert _load(ds, cache=cache).content_hash == digest and hashed == [copy, ds]
    assert cache.known_hash(tmp_path / "elsewhere", dataset.files_signature(ds)) is None


def test_the_hash_and_the_signature_are_made_in_one_walk_alike(generated, tmp_path):
    """A first load into a cache that remembers no folder's hash does not walk the folder for its
    signature first: the signature is made as the files are hashed (each file's size and time asked
    of it once open), the same signature a walk makes, and recorded with the hash."""
    assert dataset.hash_and_signature(generated) == (content_hash(generated), dataset.files_signature(generated))
    assert dataset.hash_and_signature(dataset.SAMPLE_DATA) == (
        content_hash(dataset.SAMPLE_DATA),
        dataset.files_signature(dataset.SAMPLE_DATA),
    )
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    assert not cache.remembers_hashes()
    walked: list[Path] = []
    files_signature = dataset.files_signature

    def counted(root):
        walked.append(Path(root))
        return files_signature(root)

    with pytest.MonkeyPatch.context() as m:
        m.setattr(dataset, "files_signature", counted)
        first = _load(generated, cache=cache)
        assert walked == [] and cache.remembers_hashes()
        assert cache.known_hash(generated, files_signature(generated)) == first.content_hash
        again = _load(generated, cache=cache)  # (now the cache remembers a hash: the folder is signed first)
        assert walked == [generated] and again.content_hash == first.content_hash


def test_a_recorded_hash_that_does_not_read_is_hashed_again(generated, tmp_path):
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    signature = dataset.files_signature(generated)
    cache.remember_hash(generated, signature, "not a digest")
    assert cache.known_hash(generated, signature) is None
    assert _load(generated, cache=cache).content_hash == content_hash(generated)
    assert cache.known_hash(generated, signature) == content_hash(generated)


def test_an_entry_found_once_the_hash_is_made_stops_the_reading(generated, tmp_path, monkeypatch):
    """A folder whose hash is not recorded (a copy of a dataset kept before) is hashed while it is
    read; once the hash is made, the entry kept under it is taken and the reading stops."""
    cache = DatasetCache(tmp_path / "cache", min_actions=1_000)
    first = _load(generated, cache=cache)
    copy = tmp_path / "copy"
    shutil.copytree(generated, copy)
    made = dataset.hash_and_signature(copy)
    digest = made[0]
    monkeypatch.setattr(dataset, "hash_and_signature", lambda root: made)  # (made at once)
    taken: list[str] = []
    add_columns = dataset.TableBuilder.add_columns

    def counted(self, meta, actions):
        taken.append(meta.id)
        return add_columns(self, meta, actions)

    monkeypatch.setattr(dataset.TableBuilder, "add_columns", counted)
    again = _load(copy, cache=cache)
    assert len(taken) < len(first.sessions) // 2 and again.content_hash == digest
    _same(first, again)
    assert cache.known_hash(copy, dataset.files_signature(copy)) == digest


def test_the_app_hashes_a_folder_once_across_restarts(generated, tmp_path, monkeypatch):
    """The app's hash of a dataset folder (services.datasets) is recorded in the data directory's
    dataset cache: a restarted server, or another replica on the same data directory, takes it
    without reading the files again."""
    from services import datasets

    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    signature = dataset.files_signature(generated)
    datasets._hash.clear()
    assert datasets._hash(str(generated), signature) == content_hash(generated)
    datasets._hash.clear()  # (a restart: nothing held in memory)

    def refuse(root):
        raise AssertionError("hashed again")

    monkeypatch.setattr(datasets, "content_hash", refuse)
    assert datasets._hash(str(generated), signature) == content_hash(generated)
    datasets._hash.clear()
