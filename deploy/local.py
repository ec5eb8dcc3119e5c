"""A lab's deployment on one machine: PostgreSQL, N app replicas on one shared data directory, and
nginx in front of them (websocket upgrade, one replica per browser), as docs/deploy.md describes.

    python deploy/local.py                   # 3 replicas behind http://127.0.0.1:8080
    python deploy/local.py --replicas 2 --port 9000 --dir /tmp/gw-lab

Everything it starts runs until Ctrl-C (or SIGTERM), then stops; the folder (``--dir``, a new temp
folder by default) keeps the data directory, the nginx configuration and every process's log; the
database cluster is a throwaway one in a temp folder of its own, removed at the end. The cluster
asks every connection for a password (SCRAM-SHA-256), its superuser's and the app's role's are
random, and they are kept in the folder's ``pgpass`` (mode 0600, removed at the end): the replicas'
database URL names that file, never a password (docs/deploy.md, "The database's passwords"). The
PostgreSQL server binaries (initdb, pg_ctl) and nginx come from the system's packages (``apt-get
install postgresql nginx``); PostgreSQL refuses to run as root, so as root the cluster runs as the
``postgres`` user. Nothing here is needed for ``make run``.
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
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TEMPLATE = Path(__file__).resolve().parent / "nginx.conf"
APP_ROLE = "groundwork"  # the app's role on the lab's cluster, and its database: not a superuser
PASSFILE = "pgpass"  # in the lab's folder: the cluster's passwords, as PostgreSQL's password file


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


def _private_file(path: Path, text: str, owner: str | None = None) -> None:
    """``text`` in a new file at ``path`` that only its owner may read or write (mode 0600 from the
    moment it exists; a file or link already there is replaced, never followed); ``owner`` is that
    user when it is not the one running this."""
    path.unlink(missing_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        os.fchmod(out.fileno(), 0o600)
        out.write(text)
    if owner is not None:
        shutil.chown(path, owner, owner)


def start_postgres(folder: Path, max_connections: int, passfile: Path) -> tuple[str, list[str]]:
    """A throwaway cluster in ``folder`` (a new folder of its own, mode 0700, owned by the cluster's
    user: its unix socket is there, out of other users' reach) on a free port of 127.0.0.1;
    returns (URL, the command that stops it).

    Every connection, local or host, authenticates with a password (SCRAM-SHA-256), and
    ``password_encryption`` keeps any password set later as a SCRAM verifier too. Two roles have
    random passwords: ``postgres``, the superuser (given to initdb in a file of mode 0600, removed
    once it has run), and ``groundwork``, the app's role, owner of the database ``groundwork`` and
    nothing more. Both are written to ``passfile`` (PostgreSQL's password file: mode 0600, owned by
    the user running this), which the URL names: no command line and no environment holds a
    password, and the URL's ``require_auth`` never lets a password go to a server that does not ask
    for SCRAM."""
    folder.mkdir(parents=True, exist_ok=True)
    folder.chmod(0o700)
    owner = "postgres" if os.geteuid() == 0 else None
    if owner is not None:
        shutil.chown(folder, owner, owner)
    passfile = passfile.resolve()
    data, port = folder / "data", free_port()
    superuser, app = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
    pwfile = folder / "superuser-password"
    _private_file(pwfile, superuser + "\n", owner)
    try:
        initdb = [_pg_bin("initdb"), "-D", str(data), "--auth=scram-sha-256", f"--pwfile={pwfile}"]
        subprocess.run(_as_postgres([*initdb, "-U", "postgres", "-E", "UTF8"]), check=True, capture_output=True)
    finally:
        pwfile.unlink(missing_ok=True)
    # The password file's lines: host:port:database:user:password (token_urlsafe has no ':' or '\\').
    _private_file(
        passfile,
        f"127.0.0.1:{port}:*:postgres:{superuser}\n127.0.0.1:{port}:{APP_ROLE}:{APP_ROLE}:{app}\n",
    )
    options = (
        f"-p {port} -k {folder} -c listen_addresses=127.0.0.1 -c max_connections={max_connections} "
        "-c password_encryption=scram-sha-256"
    )
    start = [_pg_bin("pg_ctl"), "-D", str(data), "-l", str(folder / "log"), "-w", "-o", options, "start"]
    stop = _as_postgres([_pg_bin("pg_ctl"), "-D", str(data), "-m", "fast", "stop"])
    try:
        subprocess.run(_as_postgres(start), check=True, capture_output=True)
        _create_app_role(port, passfile, app)
    except BaseException:
        subprocess.run(stop, capture_output=True)
        passfile.unlink(missing_ok=True)
        raise
    named = urllib.parse.quote(str(passfile), safe="/")
    return (
        f"postgresql+psycopg://{APP_ROLE}@127.0.0.1:{port}/{APP_ROLE}?passfile={named}&require_auth=scram-sha-256",
        stop,
    )


def _create_app_role(port: int, passfile: Path, password: str) -> None:
    """The app's role, with ``password`` (sent as its SCRAM verifier, made here: the password itself
    never reaches the server), and its database, which it owns; as the superuser."""
    import psycopg  # the app's own driver: this runs in the app's environment
    from psycopg import sql

    conninfo = psycopg.conninfo.make_conninfo(
        host="127.0.0.1",
        port=port,
        user="postgres",
        dbname="postgres",
        passfile=str(passfile),
        require_auth="scram-sha-256",
    )
    with psycopg.connect(conninfo, autocommit=True) as conn:
        verifier = conn.pgconn.encrypt_password(password.encode(), APP_ROLE.encode(), b"scram-sha-256").decode()
        role = sql.Identifier(APP_ROLE)
        conn.execute(sql.SQL("CREATE ROLE {} LOGIN PASSWORD {}").format(role, sql.Literal(verifier)))
        conn.execute(sql.SQL("CREATE DATABASE {} OWNER {}").format(role, role))


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
    passfile = folder / PASSFILE
    db_url, stop_db = start_postgres(cluster, max(100, 20 * replicas), passfile)
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
        passfile.unlink(missing_ok=True)  # the passwords of a cluster that is gone


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
