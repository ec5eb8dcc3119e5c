"""Shared fixtures: a clean Streamlit cache per test, a served app for browser tests, Debian's
chromium for Playwright, and a throwaway PostgreSQL server."""

from __future__ import annotations

import functools
import os
import shutil
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(ROOT / "deploy"))

from local import free_port, start_replica  # noqa: E402  (one way to start the app, for tests and labs)

ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


def pytest_configure(config):
    """AppTest runs the pages with an error's details shown, so a failing page is an exception the
    test sees (the served app, as a visitor meets it, shows a short message with an error id)."""
    from streamlit import config as st_config

    st_config.set_option("client.showErrorDetails", "full")
    # A browser's assertions wait up to 15 s (Playwright's default is 5 s): a page's numbers can
    # come seconds after its heading when the suite keeps both processors busy. A passing
    # assertion returns as soon as it holds, so only a failure takes longer to report.
    from playwright.sync_api import expect

    expect.set_options(timeout=15_000)


# What a test uses says which tier it belongs to, whatever its module declares: a test that takes a
# browser's tab or a served app is a browser test, one that takes the PostgreSQL server a postgres test.
_TIER_FIXTURES = {
    "browser": {"page", "context", "app_url", "app_server"},
    "postgres": {"postgres_url", "postgres_server"},
}


def pytest_collection_modifyitems(config, items):
    """Marks each test with the tier its fixtures put it in (``make check`` leaves out the browser
    and postgres tests); then the browser tests first, then the modules marked long, then the rest
    (each group in the order collected): with one test process per CPU, short tests fill the end of
    the run instead of one long module."""
    for item in items:
        for marker, fixtures in _TIER_FIXTURES.items():
            if item.get_closest_marker(marker) is None and fixtures & set(getattr(item, "fixturenames", ())):
                item.add_marker(marker)
    items.sort(key=lambda item: (item.get_closest_marker("browser") is None, item.get_closest_marker("long") is None))


@pytest.fixture(autouse=True, scope="module")
def _clear_streamlit_caches():
    """Each test module starts with empty Streamlit caches. Within a module the tests share them:
    every cache is keyed by content (a dataset's hash, the database URL, the settings), so a test
    reads what it would have computed; a test about caching itself clears them first."""
    import streamlit as st

    st.cache_data.clear()
    st.cache_resource.clear()
    yield


@pytest.fixture(autouse=True)
def _apptest_runs_like_a_server(monkeypatch):
    """AppTest forgets before every run that app.py uses st.navigation, so each of its runs would
    start as a ``pages/`` folder run that components.router hands over to app.py with a rerun,
    which drops a button's one-run value. A server learns it once per process; do the same here."""
    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.testing.v1 import app_test

    class RoutedPagesManager(PagesManager):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)
            PagesManager.uses_pages_directory = False

    monkeypatch.setattr(app_test, "PagesManager", RoutedPagesManager)


@pytest.fixture(autouse=True, scope="session")
def _component_manifests_scanned_once():
    """Every AppTest scans all installed packages for component manifests (about 0.1 s of processor
    time each, in a suite of hundreds); the installed packages do not change during a run, so the
    first scan's answer serves every AppTest."""
    from streamlit.components.v2 import manifest_scanner

    scan = manifest_scanner.scan_component_manifests
    manifest_scanner.scan_component_manifests = functools.cache(scan)
    yield
    manifest_scanner.scan_component_manifests = scan


@pytest.fixture(autouse=True, scope="session")
def _apptest_waits_for_its_script_thread():
    """AppTest waits for a run by waking every millisecond to look for the run's end, taking the
    interpreter lock from the script's thread each time; waiting on that thread (which ends when the
    run has) gives the same answer at the same moment for less processor time."""
    from streamlit.testing.v1 import local_script_runner

    poll = local_script_runner.require_widgets_deltas

    def wait(runner, timeout: float = 3) -> None:
        thread = runner._script_thread
        if thread is not None:
            thread.join(timeout)
        if not runner.script_stopped():  # its own wait, and its error if the run does not end in time
            poll(runner, timeout)

    local_script_runner.require_widgets_deltas = wait
    yield
    local_script_runner.require_widgets_deltas = poll


# Argon2id with the smallest cost it accepts: tests make and check hundreds of passwords, at ~20 ms
# each with the production settings. Hashes keep their settings inside, so the app's own check and
# upgrade paths work on them unchanged; a test of the production settings is marked.
@pytest.fixture(autouse=True)
def _cheap_password_hashes(request, monkeypatch):
    if request.node.get_closest_marker("production_password_hashing"):
        return
    from corpus.store import passwords

    monkeypatch.setattr(passwords, "_hasher", _cheap_hasher())


@functools.cache
def _cheap_hasher():
    from argon2 import PasswordHasher

    return PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)


@pytest.fixture(scope="session")
def browser_type_launch_args():
    if not Path(CHROMIUM).exists():
        if os.environ.get("CI"):
            pytest.fail(f"chromium not found at {CHROMIUM}: `make test` installs it with apt-get")
        pytest.skip(f"chromium not found at {CHROMIUM} (`apt-get install chromium`)")
    return {
        "executable_path": CHROMIUM,
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args():
    return {"viewport": {"width": 1440, "height": 1000}}


@pytest.fixture(scope="session")
def shared_context(browser, browser_context_args):
    ctx = browser.new_context(**browser_context_args)
    yield ctx
    ctx.close()


@pytest.fixture
def context(shared_context):
    """One browser context for the run (per test process): its cache keeps the app's scripts, so a page
    opens for about a third of the processor time a new context needs. Each test starts with no
    cookies, and the pages it opened (other than the shared tab) are closed after it."""
    shared_context.clear_cookies()
    before = set(shared_context.pages)
    yield shared_context
    for page in list(shared_context.pages):
        if page not in before and page is not _tab.get("page"):
            page.close()


_tab: dict = {}


@pytest.fixture
def page(context, browser_context_args):
    """One tab for the run (per test process), on about:blank between tests (which ends the app's
    session), with the storage of the site it showed cleared, and at the context's viewport. A new
    tab starts a new renderer process, which costs about as much processor time again as the app's
    page it then opens."""
    tab = _tab.get("page")
    if tab is None or tab.is_closed():
        tab = _tab["page"] = context.new_page()
    yield tab
    if not tab.is_closed():
        tab.evaluate("() => { try { localStorage.clear(); sessionStorage.clear(); } catch (e) {} }")
        tab.goto("about:blank")
        tab.set_viewport_size(browser_context_args["viewport"])


@contextmanager
def module_tab(shared_context, viewport: dict | None = None) -> Iterator:
    """A tab of its own (1440 x 900 unless told), with no cookies to start from, for a module whose
    tests go through one session of the app; closed afterwards."""
    shared_context.clear_cookies()
    tab = shared_context.new_page()
    tab.set_viewport_size(viewport or {"width": 1440, "height": 900})
    try:
        yield tab
    finally:
        tab.close()


@contextmanager
def served_app(data_dir: Path, env_extra: dict | None = None) -> Iterator[str]:
    """Serve app.py on a free port with ``data_dir`` as its data directory; yield its URL and stop it
    afterwards. The server's output goes to ``data_dir/server-<port>.log`` (a pipe nobody reads would
    fill up and stall the server; servers sharing a data directory, as replicas do, each keep theirs)."""
    data_dir.mkdir(parents=True, exist_ok=True)
    port = free_port()
    # As make run serves it: the server never takes a client's address from X-Forwarded-For itself.
    env = {
        **os.environ,
        "GROUNDWORK_DATA_DIR": str(data_dir),
        "FORWARDED_ALLOW_IPS": "",
        "GROUNDWORK_PREBUILD_REPORT": "false",  # a test that needs the server's report asks for it
        **(env_extra or {}),
    }
    log_path = data_dir / f"server-{port}.log"
    proc = start_replica(port, env, log_path)  # the command a lab's replicas run (deploy/local.py)
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(proc, url, log_path)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


def _wait_healthy(proc: subprocess.Popen, url: str, log_path: Path, timeout_s: float = 60) -> None:
    deadline = time.time() + timeout_s
    while time.time() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early:\n{log_path.read_text(errors='replace')}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise RuntimeError(f"streamlit did not become healthy within {timeout_s:g} s")


@dataclass(frozen=True)
class Served:
    url: str
    data_dir: Path

    @property
    def datasets(self) -> Path:
        """Where a test puts a dataset for the app to offer (a dataset root by default)."""
        return self.data_dir / "datasets"


@pytest.fixture(scope="session")
def app_server(tmp_path_factory) -> Iterator[Served]:
    """A served app on the sample corpus, one per test process (a test that adds a dataset to it
    gives it a name of its own; the sample corpus stays the one opened first)."""
    data = tmp_path_factory.mktemp("appdata")
    with served_app(data) as url:
        yield Served(url, data)


@pytest.fixture(scope="session")
def app_url(app_server) -> str:
    return app_server.url


def pick_dataset(page, name: str) -> None:
    """Choose a dataset in the sidebar's picker by (the start of) its name, and wait until the app
    has opened it: the address names the dataset it shows (``?dataset=``), so it changes once the
    run that opened the new one is done (an idle check alone can come before that run begins)."""
    picker = page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first  # the picker comes first
    if name in (picker.text_content() or ""):
        wait_idle(page)
        return
    before = page.url
    picker.click()
    page.get_by_role("option").filter(has_text=name).first.click()
    page.wait_for_function("(before) => location.href !== before", arg=before, polling=50)
    wait_idle(page)


# The app is connected, not running a script, and shows no skeletons (a JavaScript expression). The
# waits below check it every 50 ms: checked on every animation frame (Playwright's default), it
# keeps chromium drawing frames while the page waits for the server, about 18 CPU-s over the suite.
_IDLE = """(() => {
    const app = document.querySelector('[data-testid=stApp]');
    return !!app && app.getAttribute('data-test-connection-state') === 'CONNECTED'
        && app.getAttribute('data-test-script-state') === 'notRunning'
        && !document.querySelector('[data-testid=stSkeleton]');
})()"""


# How long a browser test waits for a screen: a first visit computes what later visits read from the
# cache, and CI runs two test processes, each with its served app and chromium, on 2 CPUs (a page
# that takes 3 s on a quiet machine took over 30 s there once).
PAGE_TIMEOUT = 90_000


def wait_idle(page, timeout: float = PAGE_TIMEOUT) -> None:
    """Wait until the app is connected, not running, and shows no skeletons."""
    page.get_by_test_id("stApp").wait_for(timeout=timeout)
    page.wait_for_function(f"() => {_IDLE}", timeout=timeout, polling=50)


def expect_no_error(page) -> None:
    """Neither a Streamlit exception nor the app's own message for a failed page (an error id) shows."""
    from playwright.sync_api import expect

    expect(page.get_by_test_id("stException")).to_have_count(0)
    expect(page.locator(".st-key-gw-page-error")).to_have_count(0)


def open_from_menu(page, title: str, timeout: float = PAGE_TIMEOUT) -> None:
    """Open a screen from the sidebar's menu, as a user does: the app's session (and with it a
    sign-in) is kept, and the app is not loaded again. Returns once the screen has drawn its own
    title (every screen starts with one, and no two are alike) and its run is done; so the screen
    is another than the one shown (to show that one again, reload the page)."""
    # Read in one step: a heading counted, then redrawn by a rerun, would leave a locator waiting.
    before = page.evaluate("() => document.querySelector('[data-testid=stMain] h1')?.textContent ?? null")
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=title, exact=True).click()
    page.wait_for_function(
        f"""(before) => {{
            const heading = document.querySelector('[data-testid=stMain] h1');
            return !!heading && heading.textContent !== before && {_IDLE};
        }}""",
        arg=before,
        timeout=timeout,
        polling=50,
    )


def submit_sign_in(page, username: str, password: str, timeout: float = PAGE_TIMEOUT) -> None:
    """Fill in the sign-in form that the page shows and send it."""
    page.get_by_role("textbox", name="Username").fill(username)
    page.get_by_role("textbox", name="Password").fill(password)
    page.get_by_role("button", name="Sign in").click()
    wait_idle(page, timeout)


def sign_in(page, url: str, path: str, username: str, password: str, timeout: float = PAGE_TIMEOUT) -> None:
    """Open the app at ``path`` (a page that asks a visitor to sign in) and sign in there."""
    page.goto(f"{url}/{path}")
    wait_idle(page, timeout)
    submit_sign_in(page, username, password, timeout)


@pytest.fixture(scope="session")
def artifacts() -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    return ARTIFACTS


# ---------------------------------------------------------------------------------------------
# A throwaway PostgreSQL server (the binaries refuse to run as root: run them as `postgres`).
# ---------------------------------------------------------------------------------------------


def _pg_cmd(args: list[str]) -> list[str]:
    if os.geteuid() == 0:
        return ["runuser", "-u", "postgres", "--", *args]
    return args


@pytest.fixture(scope="session")
def postgres_server(tmp_path_factory):
    """Start a PostgreSQL cluster in a temp dir on a free port; yield its base URL."""
    initdb = shutil.which("initdb") or next(
        (str(p) for p in sorted(Path("/usr/lib/postgresql").glob("*/bin/initdb"))), None
    )
    if initdb is None:
        if os.environ.get("CI"):
            pytest.fail("PostgreSQL binaries (initdb, pg_ctl) not found")
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found")
    bindir = Path(initdb).parent
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="gw-pg-"))
    data = base / "data"
    if os.geteuid() == 0:
        shutil.chown(base, "postgres", "postgres")
    base.chmod(0o777)
    port = free_port()
    subprocess.run(
        _pg_cmd([str(bindir / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres", "-E", "UTF8"]),
        check=True,
        capture_output=True,
    )
    subprocess.run(
        _pg_cmd(
            [
                str(bindir / "pg_ctl"),
                "-D",
                str(data),
                "-l",
                str(base / "log"),
                "-w",
                "-o",
                f"-p {port} -k {base} -c listen_addresses=127.0.0.1 -c max_connections=100",
                "start",
            ]
        ),
        check=True,
        capture_output=True,
    )
    try:
        yield f"postgresql+psycopg://postgres@127.0.0.1:{port}"
    finally:
        subprocess.run(_pg_cmd([str(bindir / "pg_ctl"), "-D", str(data), "-m", "fast", "stop"]), capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def postgres_url(postgres_server, request):
    """A fresh, empty schema on the throwaway server, as the only one the URL's connections see (a
    schema costs the server next to nothing; a database of its own costs about 0.15 CPU-s to make
    and drop, in a suite that makes one for each of about 70 tests)."""
    import uuid

    import sqlalchemy as sa

    name = "t_" + uuid.uuid4().hex[:12]
    admin = sa.create_engine(f"{postgres_server}/postgres", isolation_level="AUTOCOMMIT")
    with admin.connect() as c:
        c.exec_driver_sql(f"CREATE SCHEMA {name}")
    yield f"{postgres_server}/postgres?application_name={name}&options=-csearch_path%3D{name}"
    with admin.connect() as c:  # the test's connections first (a DROP would wait for one in a transaction)
        c.exec_driver_sql(
            f"SELECT pg_terminate_backend(pid, 5000) FROM pg_stat_activity WHERE application_name = '{name}'"
        )
        c.exec_driver_sql(f"DROP SCHEMA {name} CASCADE")
    admin.dispose()


# ---------------------------------------------------------------------------------------------
# Charts and tables drawn by the browser: wait for what they show, and find where they show it.
# ---------------------------------------------------------------------------------------------

# Every Plotly chart (st.plotly_chart) inside what the selector matches, and at least ``count``
# of them, has drawn and has no redraw due: no transition running, no drawing step pending, no
# resize or web-font redraw to come (each moves its text and marks after the chart first shows).
_PLOTLY_DRAWN = """([selector, count]) => {
    const charts = [...document.querySelectorAll(selector)].flatMap((el) =>
        [...el.querySelectorAll('[data-testid=stPlotlyChart]')]);
    return charts.length >= count && document.fonts.status === 'loaded' && charts.every((chart) => {
        const gd = chart.querySelector('.js-plotly-plot');
        return !!gd && !!gd._fullLayout && !!gd.querySelector('.main-svg') && !gd._transitioning
            && !gd._fontLoadToken && !gd._resolveResize && !(gd._promises && gd._promises.length);
    });
}"""


def wait_plotly_drawn(page, selector: str, count: int = 1, timeout: float = PAGE_TIMEOUT) -> None:
    """Wait until every Plotly chart inside the elements the CSS ``selector`` matches, and at least
    ``count`` of them, has drawn with nothing left to redraw."""
    page.wait_for_function(_PLOTLY_DRAWN, arg=[selector, count], timeout=timeout, polling=50)


# A data grid (st.dataframe) draws its cells on a canvas, with no element per cell. Its first row's
# link: the middle of the topmost text drawn in the grid's own link colour, in page coordinates;
# null until the grid has drawn one.
_GRID_FIRST_LINK = """(frame) => {
    const canvas = frame.querySelector('canvas[data-testid=data-grid-canvas]');
    const grid = frame.querySelector('.stDataFrameGlideDataEditor');
    if (!canvas || !grid || !canvas.width || !canvas.height) return null;
    const probe = document.createElement('canvas').getContext('2d');
    probe.fillStyle = getComputedStyle(grid).getPropertyValue('--gdg-link-color').trim();
    probe.fillRect(0, 0, 1, 1);
    const link = probe.getImageData(0, 0, 1, 1).data;
    const {width, height} = canvas;
    const px = canvas.getContext('2d').getImageData(0, 0, width, height).data;
    const near = (i) => Math.abs(px[i] - link[0]) + Math.abs(px[i + 1] - link[1]) + Math.abs(px[i + 2] - link[2]) < 60;
    let top = -1, bottom = -1, left = width, right = -1;
    for (let y = 0; y < height; y++) {  // the first band of rows with link-coloured pixels
        let l = -1, r = -1;
        for (let x = 0; x < width; x++) if (near((y * width + x) * 4)) { if (l < 0) l = x; r = x; }
        if (l >= 0) { if (top < 0) top = y; bottom = y; left = Math.min(left, l); right = Math.max(right, r); }
        else if (top >= 0) break;
    }
    if (top < 0) return null;
    const rect = canvas.getBoundingClientRect();
    const scale = rect.width / width;
    return {x: rect.left + (left + right + 1) / 2 * scale, y: rect.top + (top + bottom + 1) / 2 * scale};
}"""


def point_at_first_link(frame, timeout: float = PAGE_TIMEOUT) -> tuple[float, float]:
    """Put the mouse on the first row's link of the data grid ``frame`` (an stDataFrame locator),
    where the grid has drawn it, and return that point once the grid shows that a click there
    follows the link (its pointer cursor)."""
    from playwright.sync_api import expect

    page = frame.page
    found = page.wait_for_function(
        _GRID_FIRST_LINK, arg=frame.element_handle(timeout=timeout), timeout=timeout, polling=100
    )
    point = found.json_value()
    page.mouse.move(point["x"], point["y"])
    expect(frame.get_by_test_id("data-grid-canvas")).to_have_css("cursor", "pointer", timeout=timeout)
    return point["x"], point["y"]
