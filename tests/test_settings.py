"""The settings: one object read from the environment, then the secrets file, then the defaults, by
the app and every command line alike; README's Configuration table lists every one."""

from __future__ import annotations

import re
from datetime import timedelta
from pathlib import Path

import pytest
from pydantic import ValidationError
from streamlit.testing.v1 import AppTest

from corpus.cli import main
from corpus.settings import SAMPLE_DATA, SAMPLES, Settings

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def clean_env(monkeypatch, tmp_path):
    for name in Settings.model_fields:
        monkeypatch.delenv(f"GROUNDWORK_{name.upper()}", raising=False)
    monkeypatch.chdir(tmp_path)  # no secrets file here
    monkeypatch.setenv("HOME", str(tmp_path))
    return monkeypatch


def test_the_defaults(clean_env, tmp_path):
    s = Settings.load()
    assert s.data_dir == tmp_path / ".groundwork"
    assert s.database_url == f"sqlite:///{tmp_path / '.groundwork' / 'groundwork.sqlite'}"
    assert s.dataset_roots == [SAMPLE_DATA, SAMPLES, tmp_path / ".groundwork" / "datasets"]
    assert (s.upload_policy, int(s.upload_max_bytes), s.upload_max_members) == ("lead", 512 * 2**20, 20_000)
    assert (int(s.uploads_total_bytes), s.uploads_total_members) == (4 * 2**30, 100_000)
    assert (int(s.upload_session_bytes), s.upload_session_count, s.sign_in_hours) == (64 * 2**20, 3, 12.0)


def test_the_environment_wins_over_the_secrets_file_which_wins_over_the_defaults(clean_env, tmp_path):
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(
        '[database]\nurl = "postgresql://db.example/gw"\n'
        '[groundwork]\ndata_dir = "/srv/gw"\nupload_policy = "anyone"\nupload_max_bytes = "10MiB"\n'
        f'dataset_roots = ["{tmp_path / "a"}", "{tmp_path / "b"}"]\n'
    )
    s = Settings.load()
    assert (s.db_url, s.data_dir, s.upload_policy, int(s.upload_max_bytes)) == (
        "postgresql://db.example/gw",
        Path("/srv/gw"),
        "anyone",
        10 * 2**20,
    )
    assert s.dataset_roots == [tmp_path / "a", tmp_path / "b"]
    clean_env.setenv("GROUNDWORK_UPLOAD_POLICY", "signed-in")
    clean_env.setenv("GROUNDWORK_DB_URL", "sqlite:///elsewhere.sqlite")
    clean_env.setenv("GROUNDWORK_DATASET_ROOTS", f"{tmp_path / 'c'}:{tmp_path / 'd'}")
    s = Settings.load()
    assert (s.upload_policy, s.db_url) == ("signed-in", "sqlite:///elsewhere.sqlite")
    assert s.dataset_roots == [tmp_path / "c", tmp_path / "d"]
    assert s.data_dir == Path("/srv/gw")  # still from the file


def test_a_wrong_value_names_the_setting(clean_env):
    clean_env.setenv("GROUNDWORK_UPLOAD_POLICY", "everyone")
    with pytest.raises(ValidationError, match="upload_policy"):
        Settings.load()


def test_the_store_gets_the_sign_in_lifetime(clean_env, tmp_path):
    clean_env.setenv("GROUNDWORK_SIGN_IN_HOURS", "2")
    store = Settings.load().open_store()
    assert store.policy.token_ttl == timedelta(hours=2)
    assert store.url == f"sqlite:///{tmp_path / '.groundwork' / 'groundwork.sqlite'}"


def _show_settings() -> None:
    import streamlit as st

    from services.settings import settings

    s = settings()
    st.write(f"{s.db_url}|{s.upload_policy}|{s.data_dir}")


def test_the_app_reads_its_secrets_like_the_command_line(clean_env, tmp_path, capsys):
    """The app passes st.secrets; the command line reads the file: the same settings either way."""
    at = AppTest.from_function(_show_settings, default_timeout=30)
    at.secrets["database"] = {"url": f"sqlite:///{tmp_path / 'labels.sqlite'}"}
    at.secrets["groundwork"] = {"upload_policy": "signed-in", "data_dir": str(tmp_path / "d")}
    at.run()
    assert at.markdown[0].value == f"sqlite:///{tmp_path / 'labels.sqlite'}|signed-in|{tmp_path / 'd'}"
    (tmp_path / ".streamlit").mkdir()
    (tmp_path / ".streamlit" / "secrets.toml").write_text(
        f'[database]\nurl = "sqlite:///{tmp_path / "labels.sqlite"}"\n[groundwork]\ndata_dir = "{tmp_path / "d"}"\n'
    )
    assert main(["uploads", "list"]) == 0
    assert capsys.readouterr().out == f"no uploads kept in {tmp_path / 'd'}\n"


def test_readme_lists_every_setting():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    table = text[text.index("## Configuration") :]
    table = table[: table.index("\n## ", 1)]
    listed = re.findall(r"^\| `(GROUNDWORK_[A-Z_]+)` \|", table, flags=re.M)
    assert listed == [name for name, _, _ in Settings.describe()]


def test_make_run_prints_the_setup_token_before_the_server_starts(clean_env, tmp_path, capsys):
    """`make run` runs `users setup-token` first and turns the app's own announcement off."""
    makefile = (ROOT / "Makefile").read_text()
    run = makefile[makefile.index("\nrun:") :].split("\n\n")[0]
    assert "-m corpus users setup-token" in run and "GROUNDWORK_ANNOUNCE_SETUP_TOKEN=false" in run
    assert main(["users", "setup-token"]) == 0
    token = re.match(r"Groundwork setup token: (\S+)\n", capsys.readouterr().out).group(1)
    lead = Settings.load().open_store().claim_setup(token, "pi", "pi-password")
    assert lead.role == "lead"
    assert main(["users", "setup-token"]) == 0
    assert capsys.readouterr().out.startswith("a lead account exists in ")
