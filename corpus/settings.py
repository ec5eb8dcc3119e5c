"""Groundwork's settings: one object for the app and every command line.

Each setting is read from, in this order (the first that has it wins):

1. the environment: ``GROUNDWORK_<NAME>`` (e.g. ``GROUNDWORK_DATA_DIR``, ``GROUNDWORK_DB_URL``);
2. the secrets file, ``.streamlit/secrets.toml`` (then ``~/.streamlit/secrets.toml``), as the app's
   ``st.secrets`` sees it: a ``[groundwork]`` table with the same names in lower case
   (``data_dir = "/srv/groundwork"``), and the database URL also as ``[database] url``;
3. the defaults below.

The app passes ``st.secrets`` (:func:`services.settings.settings`); a command line reads the files
(:meth:`Settings.load` without arguments). README's Configuration table lists every setting.
"""

from __future__ import annotations

import ipaddress
import os
import tomllib
from collections.abc import Mapping
from datetime import timedelta
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import ByteSize, Field, NonNegativeInt, PositiveFloat, PositiveInt, field_validator, model_validator
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

SAMPLE_DATA = Path(__file__).resolve().parent.parent / "sample_data"
SAMPLES = Path(__file__).resolve().parent.parent / "samples"  # the other domains' synthetic samples
SECRETS_FILES = (Path(".streamlit") / "secrets.toml", Path.home() / ".streamlit" / "secrets.toml")

UploadPolicy = Literal["lead", "signed-in", "anyone"]


class Settings(BaseSettings):
    """Where data lives, which database, which folders may be opened, who may upload and how much."""

    model_config = SettingsConfigDict(env_prefix="GROUNDWORK_", extra="ignore", validate_default=True)

    data_dir: Path = Field(
        Path(".groundwork"), description="uploads, imported datasets, map editor drafts and the SQLite label database"
    )
    db_url: str | None = Field(
        None,
        description="the label database: a PostgreSQL URL, e.g. "
        "`postgresql+psycopg://user:pw@host/db` (default: SQLite in the data directory)",
    )
    dataset_roots: Annotated[list[Path], NoDecode] = Field(
        default_factory=list,
        description="the folders datasets may be opened from (separated by `:`); each is a "
        "dataset or holds datasets one level down (default: the bundled sample corpus, the bundled samples of the "
        "other domains (`samples/`) and the data directory's `datasets/`)",
    )
    upload_policy: UploadPolicy = Field(
        "lead",
        description="who may upload a dataset: `lead` (a signed-in lead), "
        "`signed-in` (anyone signed in) or `anyone` (also visitors who are not "
        "signed in); everyone but a lead within the per-session quota",
    )
    report_policy: UploadPolicy = Field(
        "signed-in",
        description="who may build the reproduction report (Report page) with the labels of the team's closed "
        "tasks: `signed-in` (anyone signed in; `anyone` means the same) or `lead`; each build waits for its turn "
        "in the server's queue of heavy work, 20 s apart per visitor. A visitor who is not signed in never builds "
        "one: they get the server's own report of a dataset it offers, built once for everyone",
    )
    prebuild_report: bool = Field(
        True,
        description="build the server's own report of the default dataset in the background once the server has "
        "started (at the lowest priority), so that the first visitor who is not signed in gets it at once",
    )
    panel_details_seconds: PositiveFloat = Field(
        30.0,
        description="how often, while labels come in, the lead's live panel brings its details up to date (kappa's "
        "interval, diagnostics, drift, matrices, model coders: computed from every label); the numbers above them "
        "follow each label whatever this is",
    )
    heavy_at_once: PositiveInt = Field(
        2,
        description="heavy tasks (report builds, imports, validations of uploaded runs, Compare's first scoring of "
        "a run set) running at once on this server, all its processes together; the others wait in one queue "
        "(16 at most, two per person), each shown its place",
    )
    read_workers: NonNegativeInt | None = Field(
        None,
        description="worker processes that read a long dataset's sessions and runs on its first load (400 sessions "
        "or more); 0 or 1: the server's own process reads them (default: one per processor, at most 8)",
    )
    upload_max_bytes: ByteSize = Field(ByteSize(512 * 2**20), description="one upload, extracted (e.g. `512MiB`)")
    upload_max_members: PositiveInt = Field(20_000, description="files in one upload")
    uploads_total_bytes: ByteSize = Field(ByteSize(4 * 2**30), description="all kept uploads together, extracted")
    uploads_total_members: PositiveInt = Field(100_000, description="files in all kept uploads together")
    upload_session_bytes: ByteSize = Field(
        ByteSize(64 * 2**20), description="what one browser session that is not a lead's may upload, extracted"
    )
    upload_session_count: PositiveInt = Field(
        3, description="uploads one browser session that is not a lead's may make"
    )
    sign_in_hours: PositiveFloat = Field(
        12.0, description="how long a sign-in lasts (hours; a reload or a new tab keeps it through a signed cookie)"
    )
    sign_in_proof_bits: int = Field(
        20,
        ge=1,
        le=32,
        description="the proof of work a browser that never signed in to an account solves before a throttled "
        "sign-in is checked: the leading zero bits of its first level (20: about a million hashes, a second or "
        "two of a browser's time; each further level one bit more, up to five more)",
    )
    trusted_proxies: Annotated[list[str], NoDecode] = Field(
        default_factory=list,
        description="the reverse proxies whose `X-Forwarded-For` names the client for the "
        "sign-in backoff (addresses or networks, separated by `,`; none by default: the header is never "
        "believed). See docs/security.md",
    )
    announce_setup_token: bool = Field(
        True,
        description="print the one-time setup token on the app's first run "
        "while no lead exists (`make run` prints it before the server starts and "
        "turns this off)",
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        # The environment first; the values given to the constructor are the secrets file's.
        return env_settings, init_settings

    @field_validator("dataset_roots", mode="before")
    @classmethod
    def _split_roots(cls, value: Any) -> Any:
        if isinstance(value, str):
            return [part for part in value.split(os.pathsep) if part.strip()]
        return value

    @field_validator("trusted_proxies", mode="before")
    @classmethod
    def _split_proxies(cls, value: Any) -> Any:
        if isinstance(value, str):
            value = value.split(",")
        return [str(part).strip() for part in value or [] if str(part).strip()]

    @field_validator("trusted_proxies")
    @classmethod
    def _proxies_are_networks(cls, value: list[str]) -> list[str]:
        for part in value:
            try:
                ipaddress.ip_network(part, strict=False)
            except ValueError:
                raise ValueError(f"'{part}' is not an IP address or network (e.g. 127.0.0.1 or 10.0.0.0/8)") from None
        return value

    @field_validator("db_url", mode="before")
    @classmethod
    def _blank_url(cls, value: Any) -> Any:
        return (str(value).strip() or None) if value is not None else None

    @model_validator(mode="after")
    def _resolve(self) -> Settings:
        self.data_dir = self.data_dir.expanduser().resolve()
        roots = self.dataset_roots or [SAMPLE_DATA, SAMPLES, self.data_dir / "datasets"]
        self.dataset_roots = list(dict.fromkeys(Path(r).expanduser().resolve() for r in roots))
        return self

    # -- where things are ---------------------------------------------------------------------------

    @property
    def datasets_dir(self) -> Path:
        """Where uploaded (and imported) datasets are kept."""
        return self.data_dir / "datasets"

    @property
    def uploads_dir(self) -> Path:
        """One small record per kept upload (what it was, who sent it, its size)."""
        return self.data_dir / "uploads"

    @property
    def staging_dir(self) -> Path:
        """Uploads being extracted and checked; empty between uploads."""
        return self.data_dir / "staging"

    @property
    def cache_dir(self) -> Path:
        """Loaded datasets of 20,000 actions or more, kept for the next load (corpus.loading.dataset_cache)."""
        return self.data_dir / "cache"

    @property
    def sqlite_url(self) -> str:
        return f"sqlite:///{self.data_dir / 'groundwork.sqlite'}"

    @property
    def database_url(self) -> str:
        """The label database: ``db_url``, else the SQLite file in the data directory."""
        return self.db_url or self.sqlite_url

    def open_store(self, **options):  # noqa: ANN201 - a corpus.store.Store (imported only when asked for)
        """The label store these settings name, with their sign-in token lifetime and proof of work."""
        from corpus.store import SignInPolicy, Store

        options.setdefault(
            "policy",
            SignInPolicy(token_ttl=timedelta(hours=self.sign_in_hours), proof_first_bits=self.sign_in_proof_bits),
        )
        return Store.open(self.data_dir, self.db_url, **options)

    # -- reading ----------------------------------------------------------------------------------

    @classmethod
    def load(cls, secrets: Mapping[str, Any] | None = None) -> Settings:
        """The settings from the environment, then ``secrets`` (the parsed secrets file; read from
        :data:`SECRETS_FILES` when None), then the defaults."""
        return cls(**from_secrets(read_secrets_files() if secrets is None else secrets))

    @classmethod
    def describe(cls) -> list[tuple[str, str, str]]:
        """(environment variable, default, what) of every setting: README's Configuration table."""
        rows = []
        for name, field in cls.model_fields.items():
            default = field.get_default(call_default_factory=True)
            shown = default.human_readable(decimal=False) if isinstance(default, ByteSize) else default
            rows.append(
                (f"GROUNDWORK_{name.upper()}", "" if default in (None, []) else str(shown), field.description or "")
            )
        return rows


def read_secrets_files() -> dict:
    """The secrets files as Streamlit reads them (the project's over the user's), merged."""
    merged: dict = {}
    for path in reversed(SECRETS_FILES):
        if path.is_file():
            merged.update(tomllib.loads(path.read_text(encoding="utf-8")))
    return merged


def from_secrets(secrets: Mapping[str, Any]) -> dict[str, Any]:
    """The settings a secrets mapping gives: its ``[groundwork]`` table and ``[database] url``.
    Never raises (``st.secrets`` without a file raises its own errors on access)."""
    values: dict[str, Any] = {}
    try:
        table = secrets.get("groundwork") or {}
        values.update({str(k): v for k, v in dict(table).items() if str(k) in Settings.model_fields})
    except Exception:  # noqa: BLE001 - no secrets file, or a malformed table
        pass
    try:
        url = (secrets.get("database") or {}).get("url")
    except Exception:  # noqa: BLE001
        url = None
    if url and "db_url" not in values:
        values["db_url"] = str(url)
    return values
