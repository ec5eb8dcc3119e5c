"""A lab's deployment on one machine: PostgreSQL, N app replicas on one shared data directory, and
nginx in front of them (websocket upgrade, one replica per browser), as docs/deploy.md describes.

    python deploy/local.py                   # 3 replicas behind http://127.0.0.1:8080
    python deploy/local.py --replicas 2 --port 9000 --dir /tmp/gw-lab

Everything it starts runs until Ctrl-C (or SIGTERM), then stops; the folder (``--dir``, a new temp
folder by default) keeps the data directory, the nginx configuration and every process's log; the
database cluster is a throwaway one in a temp folder of its own, removed at the end. The PostgreSQL server binaries (initdb, pg_ctl) and nginx come from the
system's packages (``apt-get install postgresql nginx``); PostgreSQL refuses to run as root, so as
root the cluster runs as the ``postgres`` user. Nothing here is needed for ``make run``.
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).resolve().parent / "nginx.conf"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _as_postgres(args: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *args] if os.geteuid() == 0 else args


def _pg_bin(name: str) -> str:
    found = shutil.which(name) or next(
        (str(p) for p in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))), None
    )
    if found is None:
        sys.exit(f"deploy/local.py: {name} not found: install PostgreSQL's server (apt-get install postgresql)")
    return found


def start_postgres(folder: Path, max_connections: int) -> tuple[str, list[str]]:
    """A throwaway cluster in ``folder`` (a new folder of its own, which the ``postgres`` user can
    reach when this runs as root) on a free port; returns (URL, the command that stops it)."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o777)
    if os.geteuid() == 0:
        shutil.chown(folder, "postgres", "postgres")
    data, port = folder / "data", free_port()
    subprocess.run(
        _as_postgres([_pg_bin("initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8"]),
        check=True,
        capture_output=True,
    )
    options = f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections={max_connections}"
    start = [_pg_bin("pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w", "-o", options, "start"]
    subprocess.run(_as_postgres(start), check=True, capture_output=True)
    return f"postgresql+psycopg://postgres@127.0.0.1:{port}/postgres", _as_postgres(
        [_pg_bin("pg_ctl"), "-D", str(data), "-m", "fast", "stop"]
    )


def replica_env(data_dir: Path, db_url: str, cookie_secret: str) -> dict[str, str]:
    """What every replica needs the same: the data directory, the database, the cookie secret, and
    the proxy it may believe for a client's address (docs/deploy.md, "Settings")."""
    return {
        **os.environ,
        "GROUNDWORK_DATA_DIR": str(data_dir),
        "GROUNDWORK_DB_URL": db_url,
        "GROUNDWORK_TRUSTED_PROXIES": "127.0.0.1",
        "STREAMLIT_SERVER_COOKIE_SECRET": cookie_secret,
        "FORWARDED_ALLOW_IPS": "",
    }


def start_replica(port: int, env: dict[str, str], log: Path) -> subprocess.Popen:
    """One app process as `make run` serves it, on ``port``, its output in ``log`` (the tests' served
    app starts the same way)."""
    command = [
        sys.executable,
        str(ROOT / "deploy" / "serve.py"),
        "--server.port",
        str(port),
        "--server.address",
        "127.0.0.1",
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
    ]
    with open(log, "wb") as out:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT)


def nginx_config(listen: int, replicas: list[int], folder: Path) -> str:
    """deploy/nginx.conf with the listen port, the replicas and the folder for nginx's own files."""
    upstream = "\n".join(f"        server 127.0.0.1:{p};" for p in replicas)
    return (
        TEMPLATE.read_text()
        .replace("@LISTEN@", str(listen))
        .replace("@REPLICAS@", upstream.strip())
        .replace("@RUN@", str(folder))
    )


def wait_healthy(url: str, seconds: float = 90) -> None:
    deadline = time.time() + seconds
    while True:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            pass
        if time.time() > deadline:
            raise RuntimeError(f"{url} did not answer /_stcore/health within {seconds:.0f} s")
        time.sleep(0.3)


@dataclass(frozen=True)
class Lab:
    """A running set-up: nginx's address, the database, the replicas' ports, the folder."""

    url: str
    db_url: str
    replicas: tuple[int, ...]
    folder: Path
    processes: tuple[subprocess.Popen, ...]


def find_nginx() -> str | None:
    return shutil.which("nginx") or ("/usr/sbin/nginx" if Path("/usr/sbin/nginx").exists() else None)


@contextmanager
def running(replicas: int = 3, port: int | None = None, folder: Path | None = None) -> Iterator[Lab]:
    """PostgreSQL, ``replicas`` app processes and nginx on ``port`` (a free one by default), until
    the block ends; then everything stops and the database cluster is removed."""
    nginx = find_nginx()
    if nginx is None:
        raise RuntimeError("nginx not found: install it (apt-get install nginx)")
    folder = (folder or Path(tempfile.mkdtemp(prefix="groundwork-lab-"))).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o755)
    port = port or free_port()
    # Each replica's pool holds up to 15 connections (5 + 10 overflow): the budget of docs/deploy.md.
    cluster = Path(tempfile.mkdtemp(prefix="groundwork-lab-pg-"))
    db_url, stop_db = start_postgres(cluster, max_connections=max(100, 20 * replicas))
    procs: list[subprocess.Popen] = []
    try:
        env = replica_env(folder / "data", db_url, secrets.token_hex(32))
        # The schema and the setup token once, before the replicas start (as `make run` does).
        subprocess.run([sys.executable, "-m", "corpus", "users", "setup-token"], cwd=ROOT, env=env, check=True)
        env["GROUNDWORK_ANNOUNCE_SETUP_TOKEN"] = "false"
        ports = [free_port() for _ in range(replicas)]
        procs = [start_replica(p, env, folder / f"replica-{i + 1}.log") for i, p in enumerate(ports)]
        for p in ports:
            wait_healthy(f"http://127.0.0.1:{p}")
        conf = folder / "nginx.conf"
        conf.write_text(nginx_config(port, ports, folder))
        procs.append(subprocess.Popen([nginx, "-c", str(conf), "-g", "daemon off;"], cwd=folder))
        wait_healthy(f"http://127.0.0.1:{port}")
        yield Lab(f"http://127.0.0.1:{port}", db_url, tuple(ports), folder, tuple(procs))
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
        subprocess.run(stop_db, capture_output=True)
        shutil.rmtree(cluster, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=3)
    parser.add_argument("--port", type=int, default=8080, help="nginx listens here (default 8080)")
    parser.add_argument("--dir", type=Path, default=None, help="the folder for everything (default: a new temp one)")
    args = parser.parse_args(argv)
    if find_nginx() is None:
        sys.exit("deploy/local.py: nginx not found: install it (apt-get install nginx)")
    signal.signal(signal.SIGTERM, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    try:
        with running(args.replicas, args.port, args.dir) as lab:
            print(
                f"Groundwork: {args.replicas} replicas (ports {', '.join(map(str, lab.replicas))}) behind "
                f"{lab.url}; PostgreSQL at {lab.db_url}; data, configuration and logs in {lab.folder}. "
                "Ctrl-C stops everything.",
                flush=True,
            )
            while all(p.poll() is None for p in lab.processes):
                time.sleep(0.5)
            print("Groundwork: a process of the set-up stopped; stopping the others", file=sys.stderr)
            return 1
    except KeyboardInterrupt:
        return 0


if __name__ == "__main__":
    sys.exit(main())
