"""`make lab`'s set-up, started as a lab would (deploy/local.py: PostgreSQL, 2 replicas on one data
directory, nginx in front): the app opens through nginx with its websocket connected, one setup
token is printed and works, and each browser is served by one replica while browsers spread over
the replicas; its database asks every connection for a password, kept in a private file and on no
process's command line (tests/test_lab_database.py looks at that database more closely)."""

from __future__ import annotations

import os
import re
import shutil
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from collections import defaultdict
from pathlib import Path

import psycopg
import pytest
from conftest import free_port, submit_sign_in, wait_idle
from playwright.sync_api import expect

pytestmark = [pytest.mark.browser, pytest.mark.long]

ROOT = Path(__file__).resolve().parent.parent
NGINX = shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)
PG = shutil.which("initdb") or next(iter(sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))), None)


@pytest.fixture(scope="module")
def lab(tmp_path_factory):
    if NGINX is None or PG is None:
        reason = "nginx and PostgreSQL's server are needed (make test installs nginx)"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    folder = tmp_path_factory.mktemp("lab")
    port = free_port()
    proc = subprocess.Popen(
        [
            sys.executable,
            str(ROOT / "deploy" / "local.py"),
            "--replicas",
            "2",
            "--port",
            str(port),
            "--dir",
            str(folder),
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    printed: list[str] = []
    deadline = time.time() + 180
    for line in proc.stdout:
        printed.append(line)
        if "replicas (ports" in line or time.time() > deadline:
            break
    assert "replicas (ports" in printed[-1], "".join(printed)
    try:
        yield f"http://127.0.0.1:{port}", folder, "".join(printed)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()


def _access_log(folder: Path) -> tuple[dict[str, set[str]], set[str]]:
    """From nginx's access log: the replicas each browser session's websocket went to (by its affinity
    cookie), and the replicas that answered a health check."""
    served: dict[str, set[str]] = defaultdict(set)
    health: set[str] = set()
    for line in (folder / "nginx-access.log").read_text().splitlines():
        replica = re.search(r"replica=(\S+)", line)
        affinity = re.search(r"affinity=(\S+)", line)
        if replica and affinity and "/_stcore/stream" in line:  # a browser session's websocket
            served[affinity.group(1)].add(replica.group(1))
        if replica and "/_stcore/health" in line:
            health.add(replica.group(1))
    return served, health


def test_browsers_reach_the_app_through_nginx_each_on_one_replica(lab, browser):
    url, folder, printed = lab
    tokens = re.findall(r"Groundwork setup token: (\S+)", printed)
    assert len(tokens) == 1, printed
    first = browser.new_context(viewport={"width": 1280, "height": 720})
    page = first.new_page()
    page.goto(f"{url}/tasks")
    wait_idle(page, timeout=60_000)  # connected: the websocket went through nginx
    page.get_by_label("Setup token").fill(tokens[0])
    page.get_by_label("Username").fill("pi")
    page.get_by_label("Password (8 characters or more)").fill("pi-password")
    page.get_by_label("Password again").fill("pi-password")
    page.get_by_role("button", name="Create the lead account").click()
    expect(page.get_by_text("New coding task", exact=True)).to_be_visible(timeout=60_000)
    first.close()
    # Other browsers sign in with that account, wherever nginx sends them.
    for _ in range(5):
        context = browser.new_context(viewport={"width": 1280, "height": 720})
        other = context.new_page()
        other.goto(f"{url}/tasks")
        wait_idle(other, timeout=60_000)
        submit_sign_in(other, "pi", "pi-password", 60_000)
        expect(other.get_by_text("New coding task", exact=True)).to_be_visible(timeout=60_000)
        context.close()
    # New visitors (no affinity cookie yet) are spread over the replicas.
    for _ in range(40):
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=10) as r:
            assert r.status == 200
    # nginx logs a websocket when it closes, a moment after its browser did.
    deadline = time.monotonic() + 30
    served, health = _access_log(folder)
    while (len(served) < 5 or len(health) < 2) and time.monotonic() < deadline:
        time.sleep(0.2)
        served, health = _access_log(folder)
    assert len(served) >= 5, served  # the browsers' sessions
    assert all(len(replicas) == 1 for replicas in served.values()), served  # each on one replica
    assert len(health) == 2, health


def test_the_database_asks_for_a_password_that_no_command_line_shows(lab, monkeypatch, tmp_path):
    url, folder, printed = lab
    port = int(re.search(r"PostgreSQL at postgresql\+psycopg://\w+@127\.0\.0\.1:(\d+)/", printed).group(1))
    monkeypatch.delenv("PGPASSWORD", raising=False)
    for user in ("postgres", "groundwork"):
        with pytest.raises(psycopg.OperationalError, match="no password supplied"):
            psycopg.connect(host="127.0.0.1", port=port, user=user, dbname="postgres", passfile=str(tmp_path / "none"))
    passfile = folder / "pgpass"
    info = passfile.stat()
    assert stat.S_IMODE(info.st_mode) == 0o600 and info.st_uid == os.geteuid()
    logins = {}
    for line in passfile.read_text().splitlines():  # host:port:database:user:password
        host, at, _database, user, password = line.split(":")
        logins[user] = (host, int(at), password)
    assert logins.keys() == {"postgres", "groundwork"} and {at for _, at, _ in logins.values()} == {port}, logins
    host, _, superuser = logins["postgres"]
    with psycopg.connect(host=host, port=port, user="postgres", dbname="groundwork", password=superuser) as c:
        # The app made its tables (the setup token's command, before the replicas) as its own role.
        owners = dict(c.execute("SELECT tablename, tableowner FROM pg_tables WHERE schemaname = 'public'"))
        assert "users" in owners and set(owners.values()) == {"groundwork"}, owners
    replicas = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            argv = (entry / "cmdline").read_bytes().decode(errors="replace")
            environment = (entry / "environ").read_bytes().decode(errors="replace") if "serve.py" in argv else ""
        except OSError:  # a process that ended meanwhile
            continue
        for _, _, password in logins.values():
            assert password not in argv, argv
            assert password not in environment
        if "serve.py" in argv and str(folder) in environment:
            replicas.append(environment)
    assert len(replicas) == 2  # the lab's replicas: their database URL names the password file
    assert all(f"GROUNDWORK_DB_URL=postgresql+psycopg://groundwork@127.0.0.1:{port}/" in e for e in replicas)
    assert all(password not in printed for _, _, password in logins.values())
