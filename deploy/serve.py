"""Serve the app: Streamlit's own ``streamlit run app.py``, with the server warmed at start. ``make
run``, the tests' servers and every replica of ``deploy/local.py`` start this way; any of Streamlit's
options may follow.

    python deploy/serve.py --server.port 8501 --server.headless true

A process that serves the app imports every module its pages need (about 2.3 s on a 2-CPU machine)
and loads the dataset it opens by default when somebody first asks for a page; that visitor waited
for all of it. Here a thread of its own does that work as soon as the server runs: the imports, then
the default dataset (:func:`services.warm.default_dataset`), then, in a process of its own at the
lowest priority, the server's own report of that dataset (:mod:`reports.prebuilt`), which a visitor
who is not signed in gets on the Report page. A visitor who comes meanwhile waits only
for what is not done yet (an import or a cached load is never done twice). The outcome is one line
in the server's log; nothing here ever stops the server.
"""

from __future__ import annotations

import ast
import importlib
import logging
import subprocess
import sys
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RUNTIME_WAIT_SECONDS = 60.0
THREAD_NAME = "groundwork-warm-up"


@dataclass(frozen=True)
class Warmed:
    """What the warm-up did: the modules imported, the default dataset's name (None: it does not
    open, ``problem`` says why) and the seconds it took."""

    modules: tuple[str, ...]
    dataset: str | None
    seconds: float
    problem: str = ""


def page_modules(root: Path = ROOT) -> tuple[str, ...]:
    """The modules that ``app.py`` and the pages import by name (absolute imports), sorted: what
    the first run of each page would import."""
    found: set[str] = set()
    for path in [root / "app.py", *sorted((root / "pages").glob("*.py"))]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found.add(node.module)
            elif isinstance(node, ast.Import):
                found.update(alias.name for alias in node.names)
    return tuple(sorted(found))


def warm() -> Warmed:
    """Import the pages' modules and open the default dataset with its tables, through the caches
    the pages read (so it needs the server's runtime: :func:`start` waits for it)."""
    t0 = time.perf_counter()
    modules = page_modules()
    for name in modules:
        importlib.import_module(name)
    from services.warm import default_dataset

    name, problem = default_dataset()
    return Warmed(modules, name, time.perf_counter() - t0, problem)


def _say(text: str) -> None:
    print(f"Groundwork: {text}", file=sys.stderr, flush=True)


class _NotFromWarmUp(logging.Filter):
    """Streamlit warns of every call outside a page's run ("missing ScriptRunContext"); the warm-up
    makes such calls on purpose (the cached loads), so its own are not logged."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.threadName != THREAD_NAME


def _run() -> None:
    from streamlit import runtime
    from streamlit.runtime.scriptrunner_utils import script_run_context

    script_run_context._LOGGER.addFilter(_NotFromWarmUp())
    deadline = time.monotonic() + RUNTIME_WAIT_SECONDS
    while not runtime.exists():
        if time.monotonic() > deadline:
            _say(f"no warm-up: the server did not start within {RUNTIME_WAIT_SECONDS:g} s")
            return
        time.sleep(0.05)
    try:
        done = warm()
    except Exception:  # noqa: BLE001 - the first visitor then does the work, as without a warm-up
        _say("the warm-up failed; pages import and load on their first visit instead\n" + traceback.format_exc())
        return
    opened = f"dataset '{done.dataset}' loaded" if done.dataset else f"no dataset loaded ({done.problem})"
    _say(f"warmed up in {done.seconds:.1f} s: {len(done.modules)} modules imported, {opened}")
    if done.dataset:
        prebuild_report()


def prebuild_report() -> subprocess.Popen | None:
    """Build the server's own report of the default dataset (what a visitor who is not signed in gets on
    the Report page) in a process of its own at the lowest priority, unless it is kept already or the
    settings say not to (``GROUNDWORK_PREBUILD_REPORT``)."""
    from reports import prebuilt
    from services.datasets import check, default_source
    from services.settings import settings

    if not settings().prebuild_report:
        return None
    path = default_source().path
    digest = check(path).content_hash
    if prebuilt.kept(digest) is not None or prebuilt.building(digest):  # kept, or another replica builds it
        return None
    log = settings().data_dir / "reports" / "prebuild.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    _say(f"building the server's report of {path.name} in the background (its log: {log})")
    with open(log, "ab") as out:
        build = subprocess.Popen(
            ["nice", "-n", "19", sys.executable, "-m", "reports.prebuilt", str(path)],
            cwd=ROOT,
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    threading.Thread(target=build.wait, name="groundwork-prebuild-wait", daemon=True).start()  # no zombie left
    return build


def start() -> threading.Thread:
    """Warm the server in a daemon thread, from the moment its runtime exists."""
    thread = threading.Thread(target=_run, name=THREAD_NAME, daemon=True)
    thread.start()
    return thread


def log_to_stderr() -> None:
    """Groundwork's own log lines (loggers ``groundwork.*``: sign-ins, page failures with their ids,
    the queue, uploads released) to the server's standard error from INFO up, each with its time, its
    level and its logger; without this only warnings and errors would reach it."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    log = logging.getLogger("groundwork")
    log.setLevel(logging.INFO)
    log.addHandler(handler)
    log.propagate = False


def main(argv: list[str]) -> int:
    from streamlit.web import cli

    if str(ROOT) not in sys.path:  # (run as a script, its own folder comes first instead)
        sys.path.insert(0, str(ROOT))
    log_to_stderr()
    start()
    return cli.main(["run", str(ROOT / "app.py"), *argv], prog_name="streamlit")


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
