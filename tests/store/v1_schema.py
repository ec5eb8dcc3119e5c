"""The label database as schema version 1 created it (the DDL SQLAlchemy emitted for that version's
tables on SQLite and PostgreSQL), and rows as version 1 wrote them: the starting point of the
migration tests."""

from __future__ import annotations

import hashlib

from corpus import codebook as cbm

DDL = """
CREATE TABLE codebooks (
    id {serial} NOT NULL, scheme VARCHAR(64) NOT NULL, version VARCHAR(32) NOT NULL, name TEXT NOT NULL,
    content TEXT NOT NULL, created_at {ts} NOT NULL,
    PRIMARY KEY (id), CONSTRAINT uq_codebook_version UNIQUE (scheme, version));
CREATE TABLE schema_meta ("key" VARCHAR(64) NOT NULL, value TEXT NOT NULL, PRIMARY KEY ("key"));
CREATE TABLE settings ("key" VARCHAR(64) NOT NULL, value TEXT NOT NULL, PRIMARY KEY ("key"));
CREATE TABLE users (
    id {serial} NOT NULL, username VARCHAR(64) NOT NULL, display_name VARCHAR(128) NOT NULL,
    role VARCHAR(16) NOT NULL, password_hash TEXT, kind VARCHAR(16) NOT NULL, created_at {ts} NOT NULL,
    PRIMARY KEY (id), UNIQUE (username));
CREATE TABLE tasks (
    id {serial} NOT NULL, name VARCHAR(200) NOT NULL, dataset VARCHAR(200) NOT NULL, codebook_id INTEGER NOT NULL,
    seed INTEGER NOT NULL, context_k INTEGER NOT NULL, show_canvas BOOLEAN NOT NULL, phase VARCHAR(16) NOT NULL,
    share_agreement BOOLEAN NOT NULL, created_by INTEGER NOT NULL, created_at {ts} NOT NULL,
    PRIMARY KEY (id), UNIQUE (name),
    FOREIGN KEY(codebook_id) REFERENCES codebooks (id), FOREIGN KEY(created_by) REFERENCES users (id));
CREATE TABLE gold (
    id {serial} NOT NULL, task_id INTEGER NOT NULL, item_id VARCHAR(200) NOT NULL, code VARCHAR(64) NOT NULL,
    provenance VARCHAR(16) NOT NULL, note TEXT NOT NULL, error_type VARCHAR(32), flag_codebook BOOLEAN NOT NULL,
    decided_by INTEGER NOT NULL, created_at {ts} NOT NULL,
    PRIMARY KEY (id), FOREIGN KEY(task_id) REFERENCES tasks (id), FOREIGN KEY(decided_by) REFERENCES users (id));
CREATE INDEX ix_gold_task_item ON gold (task_id, item_id);
CREATE TABLE labels (
    id {serial} NOT NULL, task_id INTEGER NOT NULL, item_id VARCHAR(200) NOT NULL, coder_id INTEGER NOT NULL,
    code VARCHAR(64) NOT NULL, note TEXT NOT NULL, unsure BOOLEAN NOT NULL, seconds FLOAT,
    codebook_version VARCHAR(32) NOT NULL, source VARCHAR(16) NOT NULL, request_id VARCHAR(64),
    created_at {ts} NOT NULL,
    PRIMARY KEY (id), FOREIGN KEY(task_id) REFERENCES tasks (id), FOREIGN KEY(coder_id) REFERENCES users (id),
    UNIQUE (request_id));
CREATE INDEX ix_labels_task_item_coder ON labels (task_id, item_id, coder_id);
CREATE TABLE task_coders (
    task_id INTEGER NOT NULL, user_id INTEGER NOT NULL, PRIMARY KEY (task_id, user_id),
    FOREIGN KEY(task_id) REFERENCES tasks (id), FOREIGN KEY(user_id) REFERENCES users (id));
CREATE TABLE task_items (
    task_id INTEGER NOT NULL, item_id VARCHAR(200) NOT NULL, position INTEGER NOT NULL,
    session_id VARCHAR(200) NOT NULL, action_index INTEGER NOT NULL, partition VARCHAR(32) NOT NULL,
    stratum VARCHAR(64) NOT NULL, PRIMARY KEY (task_id, item_id), FOREIGN KEY(task_id) REFERENCES tasks (id));
"""

TYPES = {
    "sqlite": {"serial": "INTEGER", "ts": "DATETIME"},
    "postgresql": {"serial": "SERIAL", "ts": "TIMESTAMP WITH TIME ZONE"},
}
# How version 1 stored a time on each database.
WHEN = {"sqlite": "2024-05-0{d} 10:00:00.000000", "postgresql": "2024-05-0{d} 10:00:00+00"}


def pbkdf2(password: str, salt: bytes) -> str:
    """A password hash as version 1 made it."""
    digest = hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, 200_000)
    return f"pbkdf2_sha256$200000${salt.hex()}${digest.hex()}"


def rows(dialect: str) -> list[tuple[str, dict]]:
    """A lead and two coders, a revealed task on "sample" with 3 items, labels and gold."""
    when = lambda d: WHEN[dialect].format(d=d)  # noqa: E731
    user = "INSERT INTO users (username, display_name, role, password_hash, kind, created_at) VALUES (:u, :u, :r, :h, 'human', :t)"
    label = (
        "INSERT INTO labels (task_id, item_id, coder_id, code, note, unsure, seconds, codebook_version, source, "
        "request_id, created_at) VALUES (1, :i, :c, :code, :note, false, 2.5, '1.0', 'ui', :req, :t)"
    )
    gold = (
        "INSERT INTO gold (task_id, item_id, code, provenance, note, error_type, flag_codebook, decided_by, created_at) "
        "VALUES (1, :i, :code, :p, '', NULL, false, 1, :t)"
    )
    out = [
        ("INSERT INTO schema_meta (\"key\", value) VALUES ('schema_version', '1')", {}),
        ("INSERT INTO settings (\"key\", value) VALUES ('setup_token', 'spent')", {}),
    ]
    out += [
        (user, {"u": u, "r": r, "h": pbkdf2(f"{u}-password", bytes(16)), "t": when(1)})
        for u, r in (("lead", "lead"), ("ann", "coder"), ("bob", "coder"))
    ]
    cb = cbm.default()
    out.append(
        (
            "INSERT INTO codebooks (scheme, version, name, content, created_at) VALUES (:s, :v, :n, :c, :t)",
            {"s": cb.id, "v": cb.version, "n": cb.name, "c": cb.to_json(), "t": when(1)},
        )
    )
    out.append(
        (
            "INSERT INTO tasks (name, dataset, codebook_id, seed, context_k, show_canvas, phase, share_agreement, "
            "created_by, created_at) VALUES ('pilot', 'sample', 1, 5, 3, true, 'revealed', true, 1, :t)",
            {"t": when(2)},
        )
    )
    out += [
        (
            "INSERT INTO task_items (task_id, item_id, position, session_id, action_index, partition, stratum) "
            "VALUES (1, :i, :p, 'S01', :a, 'validation', '')",
            {"i": f"S01:{a}", "p": a, "a": a},
        )
        for a in range(3)
    ]
    out += [("INSERT INTO task_coders (task_id, user_id) VALUES (1, :u)", {"u": u}) for u in (2, 3)]
    out += [
        (label, {"i": i, "c": c, "code": code, "note": note, "req": req, "t": when(3)})
        for i, c, code, note, req in (
            ("S01:0", 2, "initiate", "", "r-1"),
            ("S01:0", 3, "initiate", "", "r-2"),
            ("S01:1", 2, "repair", "a repair", None),
            ("S01:1", 3, "continue", "", None),
            ("S01:1", 2, "continue", "", None),
        )
    ]
    out += [
        (gold, {"i": i, "code": code, "p": p, "t": when(4)})
        for i, code, p in (
            ("S01:0", "initiate", "unanimous"),
            ("S01:1", "repair", "adjudicated"),
            ("S01:1", "continue", "adjudicated"),
        )
    ]
    return out
