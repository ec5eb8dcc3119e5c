"""The actions behind a bar or a point, each with a link that opens that moment in Replay.

The Replay page's URL carries the session and the step (the action's position in its session,
which is its ``index``): ``replay?session=S05&step=12``. Links are relative to the app's address,
so they work wherever the app is served.
"""

from __future__ import annotations

from urllib.parse import urlencode

import pandas as pd

from analysis.replay import action_text, time_label
from corpus.loading.dataset import Corpus

MAX_ROWS = 500
BASE_COLUMNS = ["replay", "session_id", "action no.", "time", "role", "type", "action"]


def replay_link(session_id: str, step: int) -> str:
    """The relative URL of one moment in Replay."""
    return "replay?" + urlencode({"session": str(session_id), "step": int(step)})


def actions_behind(
    corpus: Corpus, rows: pd.DataFrame, extra: dict[str, str] | None = None, limit: int = MAX_ROWS
) -> pd.DataFrame:
    """``rows`` (session_id, index and any columns named in ``extra``) as a list of actions in
    session order: a Replay link, session, the action's number (from 1, as Replay counts; the link's
    step is its index, from 0), time (m:ss), role, type, what the action was, and
    the ``extra`` columns renamed to their titles. At most ``limit`` rows."""
    extra = extra or {}
    df = rows.sort_values(["session_id", "index"], kind="stable").head(limit)
    out = []
    for r in df.to_dict("records"):
        sid, step = str(r["session_id"]), int(r["index"])
        a = corpus.session(sid).actions[step]
        row = {
            "replay": replay_link(sid, step),
            "session_id": sid,
            "action no.": step + 1,  # numbered from 1, as Replay and the Code page number actions
            "time": time_label(a.timestamp),
            "role": a.role,
            "type": a.type,
            "action": action_text(a),
        }
        row.update({title: r[col] for col, title in extra.items()})
        out.append(row)
    return pd.DataFrame(out, columns=[*BASE_COLUMNS, *extra.values()])


def items_with_codes(
    labels: pd.DataFrame, row_code: str, col_code: str, coders: list[str] | None = None
) -> pd.DataFrame:
    """The items behind a cell of a coincidence matrix: those where one coder gave ``row_code`` and
    another ``col_code`` (two coders both ``row_code`` on the diagonal). ``labels`` is long
    (session_id, action_index, coder, code); the result has session_id, index and the item's labels
    as text ("A: ack, B: request"), one row per item."""
    d = labels if coders is None else labels[labels["coder"].isin(coders)]
    d = d.dropna(subset=["code"])
    key = ["session_id", "action_index"]
    rows = []
    for (sid, idx), g in d.groupby(key, sort=True):
        codes = g["code"].astype(str).tolist()
        n_row, n_col = codes.count(row_code), codes.count(col_code)
        hit = n_row >= 2 if row_code == col_code else (n_row >= 1 and n_col >= 1)
        if hit:
            given = ", ".join(f"{c}: {v}" for c, v in zip(g["coder"].astype(str), codes))
            rows.append({"session_id": sid, "index": int(idx), "labels": given})
    return pd.DataFrame(rows, columns=["session_id", "index", "labels"])
