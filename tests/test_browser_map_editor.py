"""The map editor in headless chromium, over the ink PNG of the real platform sample: a rectangle
dragged on the canvas and named, a route drawn by mouse, start and finish clicked; the downloaded
JSON loads as a map with exactly those cells; bad files are refused with the work kept; attached to
the imported session (by the lead), its route coverage becomes a number on the Data page and the
dataset's coding task moves with the rewritten dataset."""

from __future__ import annotations

import pytest
from cli_run import run_cli
from conftest import expect_no_error, open_from_menu, served_app, submit_sign_in, wait_idle
from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import expect
from real_data import PLATFORM, absent
from test_browser_import import open_dataset

pytestmark = pytest.mark.browser


INK = "fe0b9b18-3fb2-4d50-b6f1-f512028c8667_map_image.png"  # the Follower's ink after the last stroke
LANDMARK = (2, 5, 2, 8)  # rows 2-5, columns 2-8: clear of the drawing
MAP_ID = "platform-ink-map"


@pytest.fixture(scope="module")
def setup(tmp_path_factory):
    if not (PLATFORM / "files" / INK).is_file():
        pytest.skip(absent(PLATFORM, "real platform sample"))
    from corpus.loading.dataset import load_dir
    from corpus.store import Store

    work = tmp_path_factory.mktemp("map_editor")
    data = work / "data"
    dest = data / "datasets" / "platform"  # a folder the app offers
    out = run_cli("import", "--from", "platform", str(PLATFORM), str(dest))
    assert out.returncode == 0, out.stderr
    corpus = load_dir(dest)
    session = next(s for s in corpus.sessions.values() if len(s.actions) == 33)
    assert corpus.scores(session.id).coverage is None  # the placeholder map: no route yet
    history = corpus.history(session.id)
    drawn = {(int(r), int(c)) for r, c in zip(*history.mask(len(history) - 1).nonzero())}
    store = Store.open(data)
    lead, ann = store.create_user("lead", "lead-password", "lead"), store.create_user("ann", "ann-password", "coder")
    from corpus import codebook as cbm

    # A coding task on the dataset: attaching rewrites the dataset, and the task must move with it.
    store.create_task(
        lead,
        "ink round",
        corpus.info.name,
        cbm.default(),
        [{"session_id": session.id, "action_index": 1}],
        [ann],
        dataset_hash=corpus.content_hash,
    )
    with served_app(data) as url:
        yield url, dest, session.id, corpus.maps[session.map_id].grid_size, drawn, corpus.info.name


def route_along(drawn: set) -> list[tuple[int, int]]:
    """A route that follows the Follower's drawing in side steps only (a diagonal becomes two steps)."""
    from corpus.importers.asciimap import route_path

    start = min(drawn)  # its top end
    finish = min((c for c in drawn if c[0] > 45), key=lambda c: c[1])  # the left end of the last loop
    path, _ = route_path(start, finish, drawn)
    out = [path[0]]
    for a, b in zip(path, path[1:]):
        if a[0] != b[0] and a[1] != b[1]:
            out.append((b[0], a[1]))
        out.append(b)
    return out


def scroll_to(locator) -> None:
    """Scroll an element into view; the canvas reports its background once more after a stroke, so
    the page may redraw it once after it looked idle (then wait for that run, and try again)."""
    for _ in range(5):
        try:
            locator.scroll_into_view_if_needed(timeout=5_000)
            return
        except PlaywrightError:
            wait_idle(locator.page)
    locator.scroll_into_view_if_needed()


def canvas_box(page) -> dict:
    """Where the canvas is, once it stays put (under load the page can still shift it a moment after
    it looked idle, and a click would land one cell off): visible, in the same place on consecutive
    frames, and reached by the pointer at its centre (Playwright's checks before a mouse action)."""
    canvas = page.get_by_test_id("stBidiComponentIsolated").locator("canvas.upper-canvas")
    scroll_to(canvas)
    wait_idle(page)
    canvas.hover(trial=True)
    return canvas.bounding_box()


def cell_xy(box: dict, grid, cell) -> tuple[float, float]:
    rows, cols = grid
    return box["x"] + (cell[1] + 0.5) * box["width"] / cols, box["y"] + (cell[0] + 0.5) * box["height"] / rows


def drag(page, grid, cells, steps: int = 3) -> None:
    box = canvas_box(page)
    page.mouse.move(*cell_xy(box, grid, cells[0]))
    page.mouse.down()
    for cell in cells[1:]:
        page.mouse.move(*cell_xy(box, grid, cell), steps=steps)
    page.mouse.up()


def after_edit(page, n: int) -> None:
    """Wait until the map has taken in its n-th edit (the undo caption counts them)."""
    expect(page.get_by_text(f"step {n} of {n}")).to_be_visible(timeout=20_000)
    wait_idle(page)


def choose(page, label: str) -> None:
    page.get_by_test_id("stRadio").get_by_text(label, exact=True).click()
    wait_idle(page)


def test_map_editor_over_the_platform_ink(page, setup, artifacts, tmp_path):
    url, dest, session_id, grid, drawn, corpus_name = setup
    route = route_along(drawn)
    page.set_viewport_size({"width": 1440, "height": 900})
    open_dataset(page, url, corpus_name)
    open_from_menu(page, "Map editor")
    submit_sign_in(page, "lead", "lead-password")

    # Start over the ink image, on the grid the importer rasterized it onto (60 x 41).
    page.get_by_test_id("stMain").get_by_test_id("stFileUploaderDropzoneInput").first.set_input_files(
        str(PLATFORM / "files" / INK)
    )
    wait_idle(page)
    expect(page.get_by_text("1620 x 2360 pixels")).to_be_visible()
    expect(page.get_by_role("spinbutton", name="Rows")).to_have_value(str(grid[0]))
    expect(page.get_by_role("spinbutton", name="Columns")).to_have_value(str(grid[1]))
    page.get_by_role("textbox", name="Map id").fill(MAP_ID)
    page.get_by_role("textbox", name="Map id").press("Enter")
    wait_idle(page)
    page.get_by_role("button", name="Start the map over this image").click()
    after_edit(page, 0)

    # A rectangle dragged from the centre of one corner cell to the other's, then named.
    r0, r1, c0, c1 = LANDMARK
    drag(page, grid, [(r0, c0), (r1, c1)], steps=8)
    after_edit(page, 1)
    # One history: the map's Undo and Redo; the canvas's own toolbar (undo, redo, reset) is hidden.
    canvas_box(page)
    expect(page.get_by_role("button", name="Undo", exact=True)).to_have_count(1)
    expect(page.get_by_role("button", name="Reset canvas & history")).to_have_count(0)
    name = page.get_by_role("textbox", name="Name", exact=True)
    expect(name).to_have_value("landmark_1")
    name.fill("ferry landing")
    name.press("Enter")
    after_edit(page, 2)

    # The route by mouse along the Follower's drawing, then the start and finish clicked.
    choose(page, "Route: path")
    drag(page, grid, route)
    after_edit(page, 3)
    for n, (tool, cell) in enumerate((("Start: point", route[0]), ("Finish: point", route[-1])), start=4):
        choose(page, tool)
        page.mouse.click(*cell_xy(canvas_box(page), grid, cell))
        after_edit(page, n)
    expect(page.get_by_text("No problems: the route is connected")).to_be_visible()
    expect_no_error(page)
    scroll_to(page.get_by_test_id("stBidiComponentIsolated"))
    page.screenshot(path=str(artifacts / "map_editor.png"))

    # Bad input: an image that is not one, a JSON that is not a map; the work stays.
    page.get_by_text("Start or open a map").click()
    wait_idle(page)
    not_png = tmp_path / "notes.png"
    not_png.write_text("these are notes, not a map image")
    page.get_by_test_id("stMain").get_by_test_id("stFileUploaderDropzoneInput").first.set_input_files(str(not_png))
    # (the upload's run may start after an idle check: wait for its message itself)
    expect(page.get_by_text("notes.png: not an image")).to_be_visible(timeout=60_000)
    page.get_by_role("tab", name="Open a file or a draft").click()
    page.get_by_test_id("stMain").get_by_test_id("stFileUploaderDropzoneInput").last.set_input_files(
        str(dest / "sessions" / session_id / "session.json")
    )
    # The file is listed once its upload is done; a click before the upload's value reaches the
    # app opens nothing, so a click that shows no message is made again (opening is idempotent).
    expect(page.get_by_test_id("stFileUploader").last.get_by_text("session.json")).to_be_visible(timeout=60_000)
    for attempt in range(3):
        wait_idle(page)
        page.get_by_role("button", name="Open the map file").click()
        try:
            expect(page.get_by_text("session.json was not opened")).to_be_visible(timeout=20_000)
            break
        except AssertionError:
            if attempt == 2:
                raise
    expect(page.get_by_text("not a map")).to_be_visible()
    expect(page.get_by_text("step 5 of 5")).to_be_visible()  # nothing was lost
    wait_idle(page)

    # The downloaded JSON loads as a map with exactly the drawn cells (once the rerun has replaced
    # the previous run's button: for a moment a rerun can show both).
    button = page.get_by_role("button", name="Download the map JSON")
    expect(button).to_have_count(1)
    with page.expect_download() as download:
        button.click()
    saved = tmp_path / "map.json"
    download.value.save_as(saved)
    from corpus.mapedit.mapfile import read_map_file

    gm = read_map_file(saved)
    assert gm.id == MAP_ID and tuple(gm.grid_size) == tuple(grid)
    assert list(gm.landmarks) == ["ferry landing"] and gm.landmarks["ferry landing"].type == "blocked"
    assert sorted(gm.landmarks["ferry landing"].cells) == [(r, c) for r in range(r0, r1 + 1) for c in range(c0, c1 + 1)]
    assert gm.route == route
    assert (gm.start_cell, gm.finish_cell) == (route[0], route[-1])

    # Attached to the imported session: the dataset is rewritten and its coverage is defined.
    expect(page.get_by_role("combobox", name="Sessions")).to_be_attached()
    page.get_by_role("button", name="Attach the map").click()
    expect(page.get_by_text(f"attached to {session_id}")).to_be_visible(timeout=30_000)
    expect(page.get_by_text("labels and gold kept: ink round")).to_be_visible()
    wait_idle(page)
    scroll_to(page.get_by_text("Attach to sessions of this dataset"))
    page.screenshot(path=str(artifacts / "map_editor_attached.png"))
    from corpus.loading.dataset import load_dir

    assert load_dir(dest).maps[MAP_ID] == gm
    from corpus.store import Store

    store = Store.open(dest.parent.parent)
    assert [t.dataset_hash for t in store.tasks_for(store.user("lead"))] == [load_dir(dest).content_hash]

    expected = len(set(route) & drawn) / len(set(route))
    # The data grid puts only the columns in view into the page: wide enough for all of them.
    page.set_viewport_size({"width": 2400, "height": 900})
    open_from_menu(page, "Data")
    expect(page.get_by_role("heading", name="Data: platform (imported)")).to_be_visible()
    table = page.get_by_test_id("stDataFrame").last
    scroll_to(table)
    expect(table.locator("th", has_text="Route coverage")).to_have_count(1)
    headers = table.locator("th").all_text_contents()
    expect(table.locator("td", has_text=session_id).first).to_be_attached()
    rows = [r.locator("td").all_text_contents() for r in table.locator("tbody tr").all()]
    cells = next((r for r in rows if len(r) == len(headers) and r[headers.index("Session")] == session_id), None)
    assert cells is not None, (headers, rows)
    coverage = cells[headers.index("Route coverage")]
    assert float(coverage) == pytest.approx(expected, abs=1e-9), (headers, cells)
    assert 0 < expected < 1
    page.get_by_test_id("stSidebarCollapseButton").locator("button").click()  # room for every column
    wait_idle(page)
    scroll_to(page.get_by_role("heading", name="Sessions"))
    page.screenshot(path=str(artifacts / "map_editor_data_page.png"))
