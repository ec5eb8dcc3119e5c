"""`make lab`'s database (deploy/local.py's start_postgres, as the lab starts it): every connection
needs a password, over TCP and over the unix socket alike; the passwords are random, kept in the
lab folder's password file (mode 0600) and on no process's command line; the app connects with its
own role, which is not a superuser, through the URL the replicas are given."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import psycopg
import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "deploy"))

import local  # noqa: E402  (deploy/local.py, as tests/conftest.py imports it)

pytestmark = pytest.mark.postgres

INITDB = shutil.which("initdb") or next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))), None)


def _passwords(passfile: Path) -> dict[str, tuple[int, str]]:
    """user -> (port, password), from the password file's lines host:port:database:user:password."""
    found = {}
    for line in passfile.read_text().splitlines():
        host, port, _database, user, password = line.split(":")
        assert host == "127.0.0.1", line
        found[user] = (int(port), password)
    return found


def _command_lines() -> list[str]:
    """Every process's command line as `ps` shows it to any user of the machine."""
    lines = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                lines.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace"))
            except OSError:  # a process that ended meanwhile
                pass
    return lines


@pytest.fixture(scope="module")
def lab_db(tmp_path_factory):
    """The lab's cluster, started as deploy/local.py's running() starts it, with every command it
    ran recorded; yields (URL, cluster folder, password file, the commands)."""
    if INITDB is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL binaries (initdb, pg_ctl) not found")
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    folder = tmp_path_factory.mktemp("lab")
    cluster = Path(tempfile.mkdtemp(prefix="groundwork-lab-pg-"))
    commands: list[list[str]] = []
    real_run = subprocess.run

    def recording_run(args, *rest, **options):
        commands.append([str(a) for a in args])
        return real_run(args, *rest, **options)

    stop = None
    try:
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(local.subprocess, "run", recording_run)
            url, stop = local.start_postgres(cluster, 100, folder / local.PASSFILE)
        yield url, cluster, folder / local.PASSFILE, commands
    finally:
        if stop is not None:
            subprocess.run(stop, capture_output=True)
        shutil.rmtree(cluster, ignore_errors=True)


@pytest.fixture
def no_password_around(monkeypatch, tmp_path):
    """libpq finds no password but the one a test gives: no PGPASSWORD, no ~/.pgpass."""
    monkeypatch.delenv("PGPASSWORD", raising=False)
    monkeypatch.setenv("PGPASSFILE", str(tmp_path / "none"))
    return str(tmp_path / "none")


def test_a_connection_without_the_password_is_refused(lab_db, no_password_around):
    url, cluster, passfile, _ = lab_db
    port = _passwords(passfile)["postgres"][0]
    for host in ("127.0.0.1", str(cluster)):  # TCP, and the unix socket in the cluster's folder
        assert (cluster / f".s.PGSQL.{port}").is_socket()
        for user, dbname in (("postgres", "postgres"), ("groundwork", "groundwork")):
            with pytest.raises(psycopg.OperationalError, match="no password supplied"):
                psycopg.connect(host=host, port=port, user=user, dbname=dbname, passfile=no_password_around)
            with pytest.raises(psycopg.OperationalError, match=f'password authentication failed for user "{user}"'):
                psycopg.connect(host=host, port=port, user=user, dbname=dbname, password="postgres")


def test_the_passwords_connect_and_the_app_is_no_superuser(lab_db, no_password_around):
    url, cluster, passfile, _ = lab_db
    (port, superuser), (app_port, app) = _passwords(passfile)["postgres"], _passwords(passfile)["groundwork"]
    assert port == app_port and superuser != app and min(len(superuser), len(app)) >= 40
    with psycopg.connect(host="127.0.0.1", port=port, user="postgres", dbname="postgres", password=superuser) as c:
        roles = dict(c.execute("SELECT rolname, rolsuper FROM pg_roles WHERE rolname IN ('postgres', 'groundwork')"))
        assert roles == {"postgres": True, "groundwork": False}
        verifiers = [v for (v,) in c.execute("SELECT rolpassword FROM pg_authid WHERE rolcanlogin ORDER BY rolname")]
        assert len(verifiers) == 2 and all(v.startswith("SCRAM-SHA-256$4096:") for v in verifiers), verifiers
        owner = c.execute("SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'groundwork'").fetchone()
        assert owner == ("groundwork",)
        methods = set(c.execute("SELECT type, auth_method FROM pg_hba_file_rules"))
        assert methods == {("local", "scram-sha-256"), ("host", "scram-sha-256")}, methods
        settings = dict(
            c.execute("SELECT name, setting FROM pg_settings WHERE name IN ('password_encryption', 'listen_addresses')")
        )
        assert settings == {"password_encryption": "scram-sha-256", "listen_addresses": "127.0.0.1"}
    # The replicas' URL: the app's role, its password read from the password file.
    parts = urlsplit(url)
    assert (parts.username, parts.password, parts.hostname, parts.port) == ("groundwork", None, "127.0.0.1", port)
    assert parse_qs(parts.query) == {"passfile": [str(passfile)], "require_auth": ["scram-sha-256"]}
    from corpus.store import Store
    from corpus.store.notify import listener

    store = Store(url)
    try:
        store.create_user("pi", "pi-password", "lead")
        assert [u.username for u in store.users()] == ["pi"]
        with store.engine.connect() as c:
            assert c.exec_driver_sql("SELECT current_user, current_database()").one() == ("groundwork", "groundwork")
        # The listening connection (psycopg from the same URL) signs in the same way.
        notices = listener(store.engine)
        deadline = time.monotonic() + 20
        while notices.mark(1) is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert notices.mark(1) == (1, 0)
    finally:
        store.engine.dispose()


def test_the_passwords_are_in_a_private_file_and_on_no_command_line(lab_db):
    url, cluster, passfile, commands = lab_db
    info = passfile.stat()
    assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.geteuid()
    # The cluster's folder, which holds its socket, is its user's alone; initdb's password file is gone.
    folder = cluster.stat()
    assert stat.S_IMODE(folder.st_mode) == 0o700
    assert folder.st_uid == (pwd.getpwnam("postgres").pw_uid if os.geteuid() == 0 else os.geteuid())
    assert sorted(p.name for p in cluster.iterdir() if not p.name.startswith(".s.PGSQL")) == ["data", "log"]
    passwords = [password for _, password in _passwords(passfile).values()]
    assert len(commands) == 2 and "--auth=scram-sha-256" in commands[0], commands  # initdb, pg_ctl start
    shown = [" ".join(c) for c in commands] + _command_lines() + [url]
    assert any("postgres" in line and str(cluster) in line for line in shown)  # the server is among them
    for password in passwords:
        assert not [line for line in shown if password in line]
