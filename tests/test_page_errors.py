"""A page that fails unexpectedly shows a short message with an error id, never a traceback; the
details go to the server log under the same id. With an error's details turned on (a developer's
server, the tests' AppTest) the error is raised as usual."""

from __future__ import annotations

import logging
import re

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest


def _failing_page() -> None:
    import streamlit as st

    from components.errors import guarded

    def page() -> None:
        st.title("A page")
        {}["missing key"]  # noqa: B018 - the unexpected error

    guarded(page, "page /broken")


@pytest.fixture
def details(request):
    st_config.set_option("client.showErrorDetails", request.param)
    yield request.param
    st_config.set_option("client.showErrorDetails", "full")


@pytest.mark.parametrize("details", ["none"], indirect=True)
def test_a_visitor_sees_an_error_id_and_the_log_has_the_traceback(details, caplog):
    caplog.set_level(logging.ERROR, logger="groundwork.errors")
    at = AppTest.from_function(_failing_page).run()
    assert not at.exception
    assert at.title[0].value == "A page"  # what the page drew before it failed stays
    (shown,) = [e.value for e in at.error]
    error_id = re.search(r"\(error ([0-9a-f]{8})\)", shown).group(1)
    assert "Traceback" not in shown and "KeyError" not in shown and ".py" not in shown
    (record,) = caplog.records
    assert record.getMessage() == f"error {error_id} in page /broken: KeyError: 'missing key'"
    assert record.exc_info[0] is KeyError


@pytest.mark.parametrize("details", ["full"], indirect=True)
def test_a_developer_sees_the_exception(details):
    at = AppTest.from_function(_failing_page).run()
    assert [e.value for e in at.exception] and not at.error


def test_the_served_app_shows_no_details():
    import tomllib
    from pathlib import Path

    config = tomllib.loads((Path(__file__).resolve().parent.parent / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"
