"""Codebooks and coding tasks: creating a task on a dataset (named by its content hash), its items
and coders, its phase, its codebook version and what its coders may see."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Iterable, Mapping
from typing import Any

import pandas as pd
import sqlalchemy as sa

from corpus import codebook as codebooks
from corpus.codebook import Codebook
from corpus.limits import NAME_CHARS, too_long
from corpus.store.access import check_phase, require_lead, require_open_for_revision
from corpus.store.agreement import account_items
from corpus.store.base import StoreBase, StoreError, Task, User, inserted_key, user_from_row
from corpus.store.tables import (
    CODER_VIEWS,
    codebook_rows,
    label_row,
    labels,
    recount_labels,
    task_coders,
    task_items,
    tasks,
    users,
)

RULE_SOURCE = "rule"  # the label source of a rule's codes written with the task


class Tasks(StoreBase):
    # -- codebooks ----------------------------------------------------------------------------------

    def save_codebook(self, cb: Codebook) -> int:
        """Store a codebook version (idempotent); a changed codebook must carry a new version."""
        content = cb.to_json()
        with self._write() as c:
            row = c.execute(
                sa.select(codebook_rows).where(
                    (codebook_rows.c.scheme == cb.id) & (codebook_rows.c.version == cb.version)
                )
            ).first()
            if row is not None:
                if row.content != content:
                    raise StoreError(
                        f"codebook {cb.id} version {cb.version} is stored already with different content; "
                        "give the revised codebook a new version"
                    )
                return int(row.id)
            return int(
                inserted_key(
                    c.execute(
                        codebook_rows.insert().values(
                            scheme=cb.id,
                            version=cb.version,
                            name=cb.name,
                            content=content,
                            created_at=self._now(),
                        )
                    )
                )
            )

    @functools.cached_property
    def _codebook(self) -> Callable[[int], Codebook]:
        """A stored codebook by id. Stored versions never change, so each is read and parsed once."""
        return functools.lru_cache(maxsize=256)(self._read_codebook)

    def _read_codebook(self, codebook_id: int) -> Codebook:
        with self._read() as c:
            content = c.execute(
                sa.select(codebook_rows.c.content).where(codebook_rows.c.id == codebook_id)
            ).scalar_one()
        return codebooks.parse(json.loads(content), f"codebook #{codebook_id}")

    def codebook_versions(self, scheme: str | None = None) -> list[tuple[str, str]]:
        q = sa.select(codebook_rows.c.scheme, codebook_rows.c.version).order_by(codebook_rows.c.id)
        if scheme:
            q = q.where(codebook_rows.c.scheme == scheme)
        with self._read() as c:
            return [(r.scheme, r.version) for r in c.execute(q)]

    # -- tasks --------------------------------------------------------------------------------------

    def create_task(
        self,
        actor: User,
        name: str,
        dataset: str,
        codebook: Codebook,
        items: Iterable[dict[str, Any]],
        coders: Iterable[User],
        seed: int = 0,
        context_k: int = 3,
        show_canvas: bool = True,
        *,
        dataset_hash: str,
        model_labels: Mapping[str, Mapping[str, str]] | None = None,
    ) -> Task:
        """A task on the dataset whose content hash is ``dataset_hash`` (``dataset`` is its name, for
        display). ``items``: dicts with session_id, action_index and optional partition and stratum.

        ``model_labels``: codes an automatic coder gives the items, {coder: {item id: code}}, written
        in the same transaction as the task (all or nothing): each coder is a model account
        (created when missing), assigned to the task, its labels' source "rule"."""
        require_lead(actor)
        items = list(items)
        if not items:
            raise StoreError("items: a task needs at least one item")
        if not name.strip():
            raise StoreError("name: must not be empty")
        if (why := too_long("name", name, NAME_CHARS)) is not None:
            raise StoreError(why)
        if not (dataset_hash or "").strip():
            raise StoreError("dataset_hash: a task must name its dataset's content hash")
        self._require_active(actor)
        cb_id = self.save_codebook(codebook)
        rows, seen = [], set()
        for pos, it in enumerate(items):
            iid = f"{it['session_id']}:{int(it['action_index'])}"
            if iid in seen:
                raise StoreError(f"items[{pos}]: {iid} is listed twice")
            seen.add(iid)
            rows.append(
                {
                    "item_id": iid,
                    "position": pos,
                    "session_id": str(it["session_id"]),
                    "action_index": int(it["action_index"]),
                    "partition": it.get("partition") or "validation",
                    "stratum": it.get("stratum") or "",
                }
            )
        with self._write_as(actor) as c:
            if c.execute(sa.select(tasks.c.id).where(tasks.c.name == name)).first():
                raise StoreError(f"name: a task called '{name}' exists already")
            tid = int(
                inserted_key(
                    c.execute(
                        tasks.insert().values(
                            name=name,
                            dataset=dataset,
                            dataset_hash=dataset_hash.strip(),
                            codebook_id=cb_id,
                            seed=int(seed),
                            context_k=int(context_k),
                            show_canvas=bool(show_canvas),
                            phase="coding",
                            share_agreement=False,
                            n_items=len(rows),
                            created_by=actor.id,
                            created_at=self._now(),
                        )
                    )
                )
            )
            c.execute(task_items.insert(), [{**r, "task_id": tid} for r in rows])
            coder_rows = [{"task_id": tid, "user_id": u.id} for u in {u.id: u for u in coders}.values()]
            if coder_rows:
                c.execute(task_coders.insert(), coder_rows)
            if model_labels:
                self._insert_model_labels(c, tid, codebook, seen, model_labels)
        return self.task(tid)

    def _insert_model_labels(
        self,
        c: sa.Connection,
        task_id: int,
        codebook: Codebook,
        item_ids: set[str],
        model_labels: Mapping[str, Mapping[str, str]],
    ) -> None:
        """Each automatic coder's codes of the new task's items, inside the caller's transaction."""
        known = {
            r.username: r
            for r in c.execute(
                sa.select(users.c.id, users.c.username, users.c.kind, users.c.status).where(
                    users.c.username.in_(list(model_labels))
                )
            )
        }
        now = self._now()
        for name, codes in model_labels.items():
            unknown_items = sorted(set(codes) - item_ids)
            if unknown_items:
                raise StoreError(f"model_labels[{name}]: '{unknown_items[0]}' is not an item of the task")
            bad = sorted({code for code in codes.values() if code not in codebook.code_ids})
            if bad:
                raise StoreError(
                    f"model_labels[{name}]: '{bad[0]}' is not in codebook {codebook.id} v{codebook.version}"
                )
            row = known.get(name)
            if row is None:
                uid = self._insert_user(c, name, None, "coder", kind="model").id
            elif row.kind != "model" or row.status != "active":
                raise StoreError(
                    f"model_labels: the account '{name}' is not an active model coder "
                    f"(kind {row.kind}, {row.status}); rename or enable it first"
                )
            else:
                uid = int(row.id)
            c.execute(task_coders.insert().values(task_id=task_id, user_id=uid))
            if codes:
                c.execute(
                    labels.insert(),
                    [label_row(task_id, i, uid, code, codebook.version, RULE_SOURCE, now) for i, code in codes.items()],
                )
                recount_labels(c, task_id)
                account_items(c, task_id, codes)

    def move_dataset(self, actor: User | None, old_hash: str, new_hash: str) -> list[str]:
        """The tasks on the dataset whose content hash was ``old_hash`` now name ``new_hash`` (the
        same dataset, written again: a map attached); their names. Items, labels and gold stay."""
        require_lead(actor)
        with self._write_as(actor) as c:
            names = (
                c.execute(sa.select(tasks.c.name).where(tasks.c.dataset_hash == old_hash).order_by(tasks.c.id))
                .scalars()
                .all()
            )
            if old_hash != new_hash:
                c.execute(tasks.update().where(tasks.c.dataset_hash == old_hash).values(dataset_hash=new_hash))
        return list(names)

    def assign(self, actor: User, task_id: int, coders: Iterable[User]) -> None:
        require_lead(actor)
        with self._write_as(actor) as c:
            have = {r[0] for r in c.execute(sa.select(task_coders.c.user_id).where(task_coders.c.task_id == task_id))}
            new = [{"task_id": task_id, "user_id": u.id} for u in coders if u.id not in have]
            if new:
                c.execute(task_coders.insert(), new)

    def _tasks(self, where=None) -> list[Task]:  # noqa: ANN001 - a SQL condition
        """Tasks, in one query (each with the count of its items, kept on its row: items are fixed
        when the task is made)."""
        q = sa.select(tasks).order_by(tasks.c.id)
        if where is not None:
            q = q.where(where)
        with self._read() as c:
            rows = c.execute(q).all()
        return [
            Task(
                int(r.id),
                r.name,
                r.dataset,
                self._codebook(int(r.codebook_id)),
                int(r.seed),
                int(r.context_k),
                bool(r.show_canvas),
                r.phase,
                bool(r.share_agreement),
                int(r.n_items),
                r.dataset_hash,
                r.coder_view,
                int(r.share_min_items),
            )
            for r in rows
        ]

    def task(self, task_id: int) -> Task:
        found = self._tasks(tasks.c.id == task_id)
        if not found:
            raise StoreError(f"task #{task_id} does not exist")
        return found[0]

    def tasks_for(self, user: User) -> list[Task]:
        if user.role in ("lead", "viewer"):
            return self._tasks()
        return self._tasks(tasks.c.id.in_(sa.select(task_coders.c.task_id).where(task_coders.c.user_id == user.id)))

    def coders(self, task_id: int) -> list[User]:
        with self._read() as c:
            rows = c.execute(
                sa.select(users)
                .join(task_coders, task_coders.c.user_id == users.c.id)
                .where(task_coders.c.task_id == task_id)
                .order_by(users.c.id)
            )
            return [user_from_row(r) for r in rows]

    def _set(self, actor: User, task_id: int, **values) -> None:
        with self._write_as(actor) as c:
            if c.execute(tasks.update().where(tasks.c.id == task_id).values(**values)).rowcount == 0:
                raise StoreError(f"task #{task_id} does not exist")

    def set_phase(self, actor: User, task_id: int, phase: str) -> None:
        """Coding, adjudication (labels freeze) or revealed (closed: gold goes to the analysis pages)."""
        require_lead(actor)
        check_phase(phase)
        self._set(actor, task_id, phase=phase)

    def set_coder_view(self, actor: User, task_id: int, view: str) -> None:
        """What the task's coders may see once adjudication starts: ``"nothing"`` beyond their own
        labels, or ``"own_disagreements"``: after the reveal, where gold differs from their label."""
        require_lead(actor)
        if view not in CODER_VIEWS:
            raise StoreError(f"coder view: '{view}' is not one of {', '.join(CODER_VIEWS)}")
        self._set(actor, task_id, coder_view=view)

    def revise_codebook(self, actor: User, task_id: int, codebook: Codebook) -> Task:
        """Move a task to a revised version of its codebook (a guideline change). Labels keep the
        version they were given under, so agreement before and after the change stays separable.
        A closed (revealed) task keeps its codebook."""
        require_lead(actor)
        task = self.task(task_id)
        require_open_for_revision(task)
        current = task.codebook
        if codebook.id != current.id:
            raise StoreError(
                f"id: the task codes with '{current.id}'; a revision must keep that id, not '{codebook.id}'"
            )
        if codebook.version == current.version:
            raise StoreError(
                f"version: the task already uses version {current.version}; give the revision a new version"
            )
        self._require_active(actor)
        stored = self.save_codebook(codebook)  # refuses a stored version with other content
        with self._write_as(actor) as c:
            done = c.execute(
                tasks.update().where(tasks.c.id == task_id, tasks.c.phase != "revealed").values(codebook_id=stored)
            )
            if done.rowcount == 0:
                require_open_for_revision(self.task(task_id))
        return self.task(task_id)

    def items(self, task_id: int) -> pd.DataFrame:
        """The task's items (no labels): item_id, position, session_id, action_index, partition, stratum."""
        with self._read() as c:
            return pd.read_sql(
                sa.select(task_items).where(task_items.c.task_id == task_id).order_by(task_items.c.position), c
            )

    def coder_order(self, task_id: int, user: User) -> list[str]:
        """The order in which this coder sees the items: shuffled per coder, stable across visits."""
        t = self.task(task_id)
        ids = list(self.items(task_id)["item_id"])
        random.Random(f"{t.seed}:{task_id}:{user.id}").shuffle(ids)
        return ids
