"""Who may load data onto the server, and how much: each attack on the dataset picker and the
upload, reproduced, now refused without harm.

- A 1 MB zip of 910 MB of small members (each under the per-member ratio check, the whole under
  the archive reader's 1 GiB cap) is refused before a byte is extracted.
- The same upload again and again is kept once; different uploads stop at the total quota.
- A refused archive, a corrupt one and an invalid dataset leave nothing in uploads/ or staging/.
- Uploading needs a signed-in lead; a demo deployment may let visitors upload within a session quota.
- Any path outside the dataset roots (/root/.ssh, a folder that does not exist, a valid dataset
  elsewhere, a link out of a root) is refused with the same message, which names none of them.
- Old uploads are reclaimed from the command line and from the Tasks page.
"""

from __future__ import annotations

import io
import struct
import subprocess
import zipfile
import zlib
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from helpers import write_tiny
from streamlit.testing.v1 import AppTest

from corpus.cli import main
from corpus.loading import catalog
from corpus.loading.validate import DatasetError
from corpus.server import archive
from corpus.server.uploads import Quota, UploadRefused, Uploads, mib
from corpus.settings import SAMPLE_DATA, SAMPLES, Settings
from corpus.store import Store

ROOT = Path(__file__).resolve().parent.parent


def many_small_members(n: int, size: int) -> bytes:
    """A zip of ``n`` members of ``size`` zero bytes each, written as an attacker would: one member
    compressed once, its bytes repeated (a ~1 MB file for 910 MB)."""
    raw = b"\0" * size
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    data = c.compress(raw) + c.flush()
    crc = zlib.crc32(raw)
    out, central = bytearray(), bytearray()
    for i in range(n):
        name = f"bomb/m{i:05d}.json".encode()
        offset = len(out)
        out += (
            struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(data), size, len(name), 0) + name + data
        )
        central += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                8,
                0,
                0x21,
                crc,
                len(data),
                size,
                len(name),
                0,
                0,
                0,
                0,
                0,
                offset,
            )
            + name
        )
    tail = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, n, n, len(central), len(out), 0)
    return bytes(out + central + tail)


def zipped(folder: Path, level: int = 6) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=level) as zf:
        for p in sorted(folder.rglob("*")):
            if p.is_file():
                zf.write(p, f"{folder.name}/{p.relative_to(folder).as_posix()}")
    return buf.getvalue()


def tiny_zip(tmp_path: Path, name: str = "tiny") -> bytes:
    ds = write_tiny(tmp_path / "src" / name)
    if name != "tiny":
        meta = ds / "dataset.json"
        meta.write_text(meta.read_text().replace('"tiny"', f'"{name}"'))
    return zipped(ds)


def listing(data: Path) -> dict[str, list[str]]:
    """What the data directory keeps, folder by folder."""
    return {
        d: sorted(p.name for p in (data / d).iterdir()) if (data / d).is_dir() else []
        for d in ("datasets", "uploads", "staging")
    }


@pytest.fixture
def settings(tmp_path, monkeypatch):
    for name in Settings.model_fields:
        monkeypatch.delenv(f"GROUNDWORK_{name.upper()}", raising=False)
    monkeypatch.setenv("GROUNDWORK_DATA_DIR", str(tmp_path / "data"))
    return Settings.load({})


# -- the archive ------------------------------------------------------------------------------------


def test_910_mb_of_small_members_is_refused_before_anything_is_extracted(settings):
    bomb = many_small_members(910, 1_000_000)
    infos = zipfile.ZipFile(io.BytesIO(bomb)).infolist()
    # Beyond the archive reader's own checks: no member is big enough for its ratio check, and the
    # whole stays under its cap.
    assert len(bomb) < 1_000_000 and max(i.file_size for i in infos) <= 1_000_000
    assert sum(i.file_size for i in infos) == 910_000_000 < archive.MAX_UNCOMPRESSED_BYTES
    with pytest.raises(UploadRefused) as refused:
        Uploads(settings.data_dir).add("bomb.zip", bomb, Quota.from_settings(settings))
    issue = refused.value.report.errors[0]
    assert (issue.file, issue.field) == ("bomb.zip", "(upload)")
    assert issue.message == "the archive unpacks to 868 MiB; one upload may unpack to at most 512 MiB"
    assert listing(settings.data_dir) == {"datasets": [], "uploads": [], "staging": []}


def test_the_member_count_is_capped_per_upload(settings):
    with pytest.raises(UploadRefused, match="the archive holds 20,001 files; one upload may hold at most 20,000"):
        Uploads(settings.data_dir).add("many.zip", many_small_members(20_001, 10), Quota.from_settings(settings))
    assert listing(settings.data_dir) == {"datasets": [], "uploads": [], "staging": []}


def test_a_failed_extraction_and_an_invalid_dataset_leave_nothing_behind(settings, tmp_path):
    uploads, quota = Uploads(settings.data_dir), Quota.from_settings(settings)
    good = tiny_zip(tmp_path)
    # A flipped byte in a member's compressed data: the extraction fails half-way.
    at = good.index(b"dataset.json") + 40
    corrupt = good[:at] + bytes([good[at] ^ 0xFF]) + good[at + 1 :]
    with pytest.raises(DatasetError) as failed:
        uploads.add("corrupt.zip", corrupt, quota)
    assert failed.value.report.errors[0].file == "corrupt.zip"
    # A member that would land outside the extraction folder.
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        zf.writestr("../../escape.txt", "x")
    with pytest.raises(DatasetError, match="leaves the archive folder"):
        uploads.add("slip.zip", buf.getvalue(), quota)
    # Not a zip at all, and a dataset with an error.
    with pytest.raises(UploadRefused, match="not a readable zip archive"):
        uploads.add("notes.zip", b"just text", quota)
    broken = write_tiny(tmp_path / "broken" / "ds")
    (broken / "sessions" / "s1" / "session.json").write_text("{ not json")
    with pytest.raises(DatasetError) as invalid:
        uploads.add("broken.zip", zipped(broken), quota)
    assert invalid.value.report.errors[0].file == "sessions/s1/session.json"
    assert listing(settings.data_dir) == {"datasets": [], "uploads": [], "staging": []}


def test_repeated_uploads_are_kept_once_and_the_total_is_capped(settings, tmp_path, monkeypatch):
    uploads, quota = Uploads(settings.data_dir), Quota.from_settings(settings)
    data = tiny_zip(tmp_path)
    first, new = uploads.add("tiny.zip", data, quota, by="lead")
    assert new and first.members == len(list((settings.datasets_dir / first.key).rglob("*.*")))
    for _ in range(5):
        assert uploads.add("tiny.zip", data, quota) == (first, False)
    # Other bytes (another compression level), the same dataset: still kept once.
    again = zipped(tmp_path / "src" / "tiny", level=1)
    assert again != data and uploads.add("tiny-again.zip", again, quota) == (first, False)
    assert listing(settings.data_dir) == {"datasets": [first.key], "uploads": [f"{first.key}.json"], "staging": []}

    # Different datasets, again and again: stopped at the total quota, with the numbers said.
    tight = Quota(
        quota.upload_bytes, quota.upload_members, total_bytes=3 * first.bytes + first.bytes // 2, total_members=10_000
    )
    kept = [first]
    with pytest.raises(UploadRefused) as full:
        for i in range(10):
            kept.append(uploads.add(f"other{i}.zip", tiny_zip(tmp_path, f"other{i}"), tight)[0])
    assert len(kept) == 3
    used = sum(u.bytes for u in kept)
    assert full.value.report.errors[0].message.startswith(
        f"the kept uploads use {mib(used)} of the {mib(tight.total_bytes)} all uploads may take, and this one needs "
    )
    assert "python -m corpus uploads reclaim" in full.value.report.errors[0].message
    assert len(listing(settings.data_dir)["datasets"]) == 3 and listing(settings.data_dir)["staging"] == []


# -- who may upload --------------------------------------------------------------------------------


def _upload_as(username: str | None, archives: list[str]) -> None:
    """Each run of this session uploads the next of ``archives``."""
    from pathlib import Path

    import streamlit as st

    from services import datasets, uploads
    from services.store import get_store

    user = get_store().user(username) if username else None
    n = st.session_state["n"] = st.session_state.get("n", -1) + 1
    uploads.upload(f"u{n}.zip", Path(archives[n]).read_bytes(), None, user)
    last = datasets.last_outcome()
    st.write(f"{last.imported}|{last.report.errors[0].message if last.report.errors else ''}")


def _archives(tmp_path: Path, n: int) -> list[str]:
    paths = []
    for i in range(n):
        p = tmp_path / f"a{i}.zip"
        p.write_bytes(tiny_zip(tmp_path, f"set{i}"))
        paths.append(str(p))
    return paths


def test_uploading_needs_a_signed_in_lead(settings, tmp_path):
    store = Store.open(settings.data_dir)
    store.create_user("lead", "lead-password", "lead")
    store.create_user("ann", "ann-password", "coder")
    archives = _archives(tmp_path, 1)
    for who in (None, "ann"):
        at = AppTest.from_function(_upload_as, args=(who, archives), default_timeout=30).run()
        assert (
            at.markdown[0].value == "False|Uploading needs a signed-in lead: sign in on an Annotate page (e.g. Tasks)."
        )
    assert listing(settings.data_dir) == {"datasets": [], "uploads": [], "staging": []}
    at = AppTest.from_function(_upload_as, args=("lead", archives), default_timeout=30).run()
    assert at.markdown[0].value == "True|"
    assert len(listing(settings.data_dir)["datasets"]) == 1


def test_a_demo_lets_visitors_upload_within_a_session_quota(settings, tmp_path, monkeypatch):
    monkeypatch.setenv("GROUNDWORK_UPLOAD_POLICY", "anyone")
    monkeypatch.setenv("GROUNDWORK_UPLOAD_SESSION_COUNT", "2")
    paths = _archives(tmp_path, 3)
    at = AppTest.from_function(_upload_as, args=(None, paths), default_timeout=30).run()
    assert at.markdown[0].value == "True|"
    results = []
    for _ in paths[1:]:  # the same browser session uploads the others
        at.run()
        results.append(at.markdown[0].value)
    assert results == ["True|", "False|This session has made 2 uploads, the most one session may make (2)."]
    assert len(listing(settings.data_dir)["datasets"]) == 2

    # Bytes too: a session that may upload 1 KiB more is refused a bigger archive, before extraction.
    monkeypatch.setenv("GROUNDWORK_UPLOAD_SESSION_BYTES", "1KiB")
    at = AppTest.from_function(_upload_as, args=(None, paths[2:]), default_timeout=30).run()
    assert at.markdown[0].value.startswith("False|the archive unpacks to ")
    assert at.markdown[0].value.endswith("this session may upload 1 KiB more")
    assert listing(settings.data_dir)["staging"] == []


# -- the dataset roots -------------------------------------------------------------------------


def test_a_path_outside_the_roots_is_refused_saying_nothing_about_it(settings, tmp_path):
    elsewhere = write_tiny(tmp_path / "elsewhere" / "valid")  # a valid dataset, outside every root
    settings.datasets_dir.mkdir(parents=True)
    (settings.datasets_dir / "link-out").symlink_to(elsewhere)
    probes = [
        "/root/.ssh",
        "/root/.ssh/id_rsa",
        "/nonexistent/folder",
        str(elsewhere),
        str(elsewhere.parent),
        str(settings.datasets_dir / "link-out"),
        str(settings.datasets_dir / ".." / ".." / "elsewhere" / "valid"),
        "/",
        "~",
        "\x00",
    ]
    messages = set()
    for probe in probes:
        with pytest.raises(catalog.OutsideRoots) as refused:
            catalog.within_roots(probe, settings.dataset_roots)
        messages.add(str(refused.value))
    assert messages == {catalog.OUTSIDE_ROOTS}
    assert catalog.within_roots(SAMPLE_DATA, settings.dataset_roots) == SAMPLE_DATA
    # The picker offers the roots' datasets only (the link out of a root is not one of them).
    assert [e.path for e in catalog.datasets_under(settings.dataset_roots)] == [
        SAMPLE_DATA,
        SAMPLES / "kitchen-synthetic",
        SAMPLES / "dyntom-synthetic",
    ]


def _open_folder(path: str) -> None:
    import streamlit as st

    from corpus.loading.catalog import OutsideRoots
    from services import datasets

    try:
        datasets.open_dataset(path)
        st.write("opened")
    except OutsideRoots as exc:
        st.write(f"refused: {exc}")
    st.write(f"showing {datasets.current_corpus().info.name}")


def test_the_app_opens_only_what_the_picker_offers(settings, tmp_path):
    elsewhere = write_tiny(tmp_path / "elsewhere" / "valid")
    for probe in ("/root/.ssh", str(elsewhere)):
        at = AppTest.from_function(_open_folder, args=(probe,), default_timeout=30).run()
        assert [m.value for m in at.markdown] == [
            f"refused: {catalog.OUTSIDE_ROOTS}",
            "showing Groundwork sample corpus (synthetic)",
        ]
    # The sidebar has a picker over the roots' datasets and no box for a path.
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    picker = at.sidebar.selectbox(key="dataset_pick")
    assert picker.options == [
        "Groundwork sample corpus (synthetic) (sample_data) · synthetic",
        "Kitchen runs (synthetic, Collab-Overcooked format) (kitchen-synthetic) · synthetic",
        "ToM benchmark (synthetic, DynToM format) (dyntom-synthetic) · synthetic",
    ]
    assert not at.sidebar.text_input
    assert any("Uploading needs a signed-in lead" in c.value for c in at.sidebar.caption)


def test_the_picker_lists_uploads_and_opens_them(settings, tmp_path):
    kept, _ = Uploads(settings.data_dir).add("tiny.zip", tiny_zip(tmp_path), Quota.from_settings(settings))
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60).run()
    picker = at.sidebar.selectbox(key="dataset_pick")
    assert picker.options[3].startswith("tiny (")
    picker.set_value(str(settings.datasets_dir / kept.key)).run()
    at.switch_page("pages/data.py").run()
    assert not at.exception and at.title[0].value == "Data: tiny"


# -- reclaiming ---------------------------------------------------------------------------------


def test_old_uploads_are_reclaimed_from_the_command_line(settings, tmp_path, capsys):
    uploads = Uploads(settings.data_dir)
    old, _ = uploads.add("old.zip", tiny_zip(tmp_path, "old"), Quota.from_settings(settings))
    recent, _ = uploads.add("recent.zip", tiny_zip(tmp_path, "recent"), Quota.from_settings(settings))
    record = settings.uploads_dir / f"{old.key}.json"
    record.write_text(
        record.read_text().replace(
            old.uploaded_at, (datetime.now(UTC) - timedelta(days=40)).isoformat(timespec="seconds")
        )
    )
    (settings.staging_dir / "crashed-upload").mkdir(parents=True)  # what a killed server leaves
    (settings.uploads_dir / "0123456789abcdef.zip").write_bytes(b"an archive kept by an older version")

    def run(*args: str) -> subprocess.CompletedProcess:
        """``python -m corpus uploads ...`` in this process (the same parser and functions)."""
        code = main(["uploads", *args])
        out, err = capsys.readouterr()
        return subprocess.CompletedProcess(args, code, out, err)

    listed = run("list")
    assert listed.returncode == 0
    assert [line.split()[0] for line in listed.stdout.splitlines()[1:]] == [old.key, recent.key]
    assert "2 leftover(s) from interrupted uploads" in listed.stderr
    assert run("reclaim", "nope").returncode == 1
    done = run("reclaim", "--older-than", "30")
    assert done.returncode == 0 and done.stdout.splitlines()[0].startswith(f"deleted {old.key} (old.zip, ")
    assert listing(settings.data_dir) == {"datasets": [recent.key], "uploads": [f"{recent.key}.json"], "staging": []}
    assert run("reclaim", recent.key).stdout.startswith(f"deleted {recent.key}")
    assert listing(settings.data_dir) == {"datasets": [], "uploads": [], "staging": []}


def test_a_lead_reclaims_uploads_on_the_tasks_page(settings, tmp_path):
    store = Store.open(settings.data_dir)
    store.create_user("lead", "lead-password", "lead")
    kept, _ = Uploads(settings.data_dir).add("tiny.zip", tiny_zip(tmp_path), Quota.from_settings(settings), by="lead")
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.session_state["auth_user"] = store.user("lead")
    at.session_state["auth_token"] = store.issue_token(store.user("lead"))
    at.run()
    at.switch_page("pages/tasks.py").run()
    table = next(d.value for d in at.dataframe if "coding tasks" in d.value.columns)
    assert table[["key", "name", "by"]].values.tolist() == [[kept.key, "tiny.zip", "lead"]]
    at.multiselect(key="ta_reclaim").select(kept.key).run()
    at.button(key="ta_reclaim_go").click().run()
    assert not at.exception
    assert at.success[0].value == "Deleted 1 upload(s): tiny.zip."
    assert listing(settings.data_dir)["datasets"] == []
