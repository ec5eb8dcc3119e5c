"""Every page of app.PAGES under Streamlit's AppTest, signed out and signed in as each role: no
exception, and the page's main element (so Code, Tasks, Adjudicate and the Map editor are tested
past the sign-in form). Then the router's own promises: every page answers at its own URL path,
named after its file."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from analysis import coding as ac
from corpus import codebook as cbm
from corpus.loading.dataset import load_sample
from corpus.store import Store

pytestmark = pytest.mark.long

ROOT = Path(__file__).resolve().parent.parent
APP = str(ROOT / "app.py")
ROLES = ("signed out", "lead", "coder", "viewer")


import app  # noqa: E402 - the router: importing it (outside a server) only defines the menu

PAGES = {screen.file: screen for screens in app.PAGES.values() for screen in screens}


@pytest.fixture(scope="module")
def team(tmp_path_factory):
    """One data directory for the module: a lead, a coder and a viewer, and a task on the sample
    corpus that the coder codes (so the Code and Adjudicate pages show a task, not an empty list)."""
    data = tmp_path_factory.mktemp("app")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GROUNDWORK_DATA_DIR", str(data))
        mp.delenv("GROUNDWORK_DB_URL", raising=False)
        store = Store.open(data)
        corpus = load_sample()
        users = {
            "lead": store.create_user("lead", "lead-password", "lead"),
            "coder": store.create_user("ann", "ann-password", "coder"),
            "viewer": store.create_user("guest", "guest-password", "viewer"),
        }
        items = ac.assign_partitions(ac.sample_items(corpus.actions_df, 6, seed=1), 0, seed=1)
        store.create_task(
            users["lead"],
            "pilot",
            corpus.info.name,
            cbm.default(),
            items,
            [users["coder"]],
            dataset_hash=corpus.content_hash,
        )
        yield store, users


def open_page(team, role: str, stem: str) -> AppTest:
    store, users = team
    at = AppTest.from_file(APP, default_timeout=60)
    if role != "signed out":
        at.session_state["auth_user"] = users[role]
        at.session_state["auth_token"] = store.issue_token(users[role])
    at.run()
    if stem != "home":
        at.switch_page(f"pages/{stem}.py").run()
    return at


def _texts(elements) -> list[str]:
    return [e.value for e in elements]


def _subheaders(at: AppTest) -> list[str]:
    return _texts(at.subheader)


# What each page shows as its main element, per role: (title, a check of the body, what it is).
SIGN_IN = (lambda at: [w.key for w in at.text_input][:2] == ["auth_username", "auth_password"], "the sign-in form")
LEADS_ONLY = (
    lambda at: any(w.startswith("This page is for a lead") for w in _texts(at.warning)),
    "'for a lead' warning",
)
MAIN = {
    "home": (
        "Groundwork",
        lambda at: "Reviewing the demo" in _subheaders(at) and len(at.get("page_link")) == 6,
        "the three entries",
    ),
    "data": (
        "Data: Groundwork sample corpus \\(synthetic\\)",
        lambda at: len(at.dataframe[-1].value) == 25,
        "the session table",
    ),
    "replay": ("Replay", lambda at: at.selectbox(key="replay_session").value == "S01", "the session picker"),
    "alignment": ("Alignment over task progress", lambda at: len(at.get("plotly_chart")) >= 2, "the figures"),
    "acts": ("Grounding acts by condition", lambda at: len(at.get("plotly_chart")) == 2, "the figures"),
    "misalignment": ("Why not aligned", lambda at: len(at.get("plotly_chart")) >= 1, "the figure"),
    "outcomes": ("Outcomes by condition", lambda at: len(at.get("plotly_chart")) >= 1, "the figures"),
    "split": ("Distribution-matched test split", lambda at: len(at.dataframe) >= 1, "the comparison table"),
    "agreement": ("Inter-coder agreement", lambda at: len(at.metric) >= 4, "the headline numbers"),
    "compare": ("Models against people", lambda at: len(at.tabs) >= 7, "the views"),
    "kitchen": (
        "Kitchen",
        lambda at: any("This screen reads kitchen runs" in i for i in _texts(at.info)),
        "the way to kitchen runs (the sample holds Map Task sessions)",
    ),
    "report": (
        "Reproduction report",
        lambda at: at.button(key="report_build").label == "Build the report",
        "the build button",
    ),
    "code": ("Code", lambda at: any(p.startswith("Item **1** of 6") for p in _texts(at.markdown)), "the coding screen"),
    "tasks": ("Tasks", lambda at: "Live agreement" in _subheaders(at), "the live panel"),
    "adjudicate": ("Adjudicate", lambda at: at.selectbox(key="adj_task").value is not None, "the task picker"),
    "map-editor": ("Map editor", lambda at: "Start or open a map" in [e.label for e in at.expander], "the start panel"),
}
VIEWER_CODE = (lambda at: any("signed in as a viewer" in i for i in _texts(at.info)), "the read-only notice")
# Where the role changes what a page shows.
BY_ROLE = {
    ("code", "signed out"): SIGN_IN,
    ("tasks", "signed out"): SIGN_IN,
    ("adjudicate", "signed out"): SIGN_IN,
    ("map-editor", "signed out"): SIGN_IN,
    ("report", "signed out"): (
        lambda at: at.button(key="report_server").label == "Get the server's report",
        "the server's own report (a visitor who is not signed in builds none)",
    ),
    ("tasks", "coder"): LEADS_ONLY,
    ("tasks", "viewer"): LEADS_ONLY,
    ("adjudicate", "coder"): LEADS_ONLY,
    ("adjudicate", "viewer"): LEADS_ONLY,
}


@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize("stem", list(PAGES))
def test_every_page_for_every_role(team, stem, role):
    at = open_page(team, role, stem)
    assert not at.exception, [e.value for e in at.exception]
    title, body, what = MAIN[stem]
    check, what = BY_ROLE.get((stem, role), (body, what))
    assert _texts(at.title)[:1] == [title]
    assert check(at), f"{stem} as {role}: no {what}"
    if (stem, role) == ("code", "viewer"):
        assert VIEWER_CODE[0](at), VIEWER_CODE[1]
    assert not at.error, [e.value for e in at.error]


def _menu() -> None:
    import streamlit as st

    import app

    for screens in app.streamlit_pages().values():
        for page in screens:
            st.write(f"{page.title}|{page.url_path}|{page._default}")


def test_every_page_answers_at_its_own_url_named_after_its_file():
    """A deep link that is a fresh server's first visit is resolved against the pages/ folder's file
    names before app.py runs (components.router): each page's URL path is its file's name, and only
    Home is the default page (a default page answers only at /)."""
    assert sorted(PAGES) == sorted(p.stem for p in (ROOT / "pages").glob("*.py"))
    at = AppTest.from_function(_menu, default_timeout=30).run()
    menu = [m.value.split("|") for m in at.markdown]
    assert menu == [[s.title, "" if s == app.DEFAULT else s.file, str(s == app.DEFAULT)] for s in PAGES.values()]
    assert app.DEFAULT.file == "home"


def test_a_dataset_name_is_shown_as_written(team):
    """Names are data: a dataset called like Markdown shows its characters, never a link or bold."""
    from helpers import write_tiny

    store, _ = team
    hostile = "**[open me](javascript:alert(1))** <b>bold</b> _x_"
    ds = write_tiny(Path(store.url.removeprefix("sqlite:///")).parent / "datasets" / "hostile")
    meta = ds / "dataset.json"
    meta.write_text(meta.read_text().replace('"tiny"', json.dumps(hostile)))
    at = open_page(team, "signed out", "data")
    picker = at.sidebar.selectbox(key="dataset_pick")
    picker.set_value(str(ds.resolve())).run()
    assert not at.exception
    escaped = "\\*\\*\\[open me\\]\\(javascript\\:alert\\(1\\)\\)\\*\\* \\<b\\>bold\\</b\\> \\_x\\_"
    assert at.title[0].value == f"Data: {escaped}"
    assert at.info[0].value.startswith(f"**{escaped}** is a synthetic corpus")


def test_a_link_to_a_dataset_the_server_does_not_offer_says_so(team):
    """A link naming an unknown dataset (a reclaimed upload, a typo, a link from another server)
    opens the default one and says so under the page's title, the key shown as written, until
    another dataset is picked; the address then names the dataset shown."""
    from helpers import write_tiny

    store, _ = team
    ds = write_tiny(Path(store.url.removeprefix("sqlite:///")).parent / "datasets" / "linked")
    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params["dataset"] = "gone-1234 **bold** [x](javascript:alert(1))"
    at.run()
    at.switch_page("pages/data.py").run()
    assert not at.exception
    warning = [w.value for w in at.main.warning]
    # Markdown's characters escaped: no bold, no link.
    assert warning == [
        "The link named a dataset this server does not offer (gone-1234 \\*\\*bold\\*\\* "
        "\\[x\\](javascript\\:alert(1))): Groundwork sample corpus \\(synthetic\\) \\(sample\\_data\\) "
        "is shown instead."
    ]
    assert at.title[0].value.startswith("Data: Groundwork sample corpus")
    assert "dataset" not in at.query_params  # the address names the dataset shown: the default
    at.run()  # still said on the next run of the page
    assert [w.value for w in at.main.warning] == warning
    at.sidebar.selectbox(key="dataset_pick").set_value(str(ds.resolve())).run()
    assert not at.exception and not at.main.warning


def test_sessions_without_a_route_say_why_their_scores_are_undefined(team):
    """A map without a route leaves accuracy, coverage and the distance-weighted score undefined:
    the session table says how many sessions and why, and where to give them a route."""
    from helpers import tiny_map, tiny_session

    from corpus.loading.write import write_dataset
    from corpus.model import DatasetInfo

    store, _ = team
    dest = Path(store.url.removeprefix("sqlite:///")).parent / "datasets" / "no-route"
    ds = write_dataset(
        dest,
        DatasetInfo(name="no route", description="a map without its route", synthetic=True),
        [tiny_map().model_copy(update={"route": []})],
        [tiny_session("s1"), tiny_session("s2", condition="not_visible")],
    )
    at = open_page(team, "signed out", "data")
    at.sidebar.selectbox(key="dataset_pick").set_value(str(ds.resolve())).run()
    assert not at.exception
    sessions = at.dataframe[-1].value
    assert sessions["final_accuracy"].isna().all() and len(sessions) == 2
    assert any(c.value.startswith("2 of 2 sessions have a map without a route") for c in at.caption)


def test_the_data_pages_tables_name_conditions_and_splits_in_words(team):
    """Table 1 and Table 8 head their columns as every screen names the groups ("not visible ·
    train"), never with the dataset's ids ("not_visible/train")."""
    at = open_page(team, "signed out", "data")
    tables = [d.value for d in at.dataframe if "All" in d.value.columns]
    assert len(tables) == 2
    for table in tables:
        assert table.columns.tolist() == [
            "All",
            "not visible",
            "visible",
            "not visible · train",
            "not visible · test",
            "visible · train",
            "visible · test",
        ]


def test_the_data_pages_counts_are_printed_with_separators(team):
    """The headline counts read as counts ("2,866 actions"), computed from the sessions."""
    at = open_page(team, "signed out", "data")
    corpus = load_sample()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Sessions"] == str(len(corpus.sessions))
    assert metrics["Actions"] == f"{len(corpus.actions_df):,}" and "," in metrics["Actions"]


@pytest.mark.parametrize("stem", ["split", "misalignment"])
def test_tables_name_conditions_in_words_not_ids(team, stem):
    """The Test split's comparison and Why not aligned's checkpoints name the condition as every
    screen does ("not visible"), not by the dataset's id ("not_visible")."""
    at = open_page(team, "signed out", stem)
    tables = [d.value for d in at.dataframe if "condition" in d.value.columns]
    assert tables
    for table in tables:
        shown = set(table["condition"].astype(str))
        assert shown and "not_visible" not in shown, shown
        assert shown <= {"not visible", "visible"}
