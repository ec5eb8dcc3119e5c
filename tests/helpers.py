"""Small hand-made datasets for tests."""

from __future__ import annotations

from pathlib import Path

from corpus.loading.write import write_dataset
from corpus.model import Action, DatasetInfo, GridMap, Landmark, MentalModel, Participant, Persona, Session


def tiny_map(map_id: str = "m1") -> GridMap:
    return GridMap(
        id=map_id,
        grid_size=(10, 12),
        start_cell=(0, 0),
        landmarks={
            "lake": Landmark(cells=[(4, 4), (4, 5), (5, 4), (5, 5)]),
            "old mill": Landmark(cells=[(1, 8), (2, 8)], type="open"),
        },
        route=[(0, 0), (0, 1), (0, 2), (1, 3), (2, 3), (3, 3)],
        follower_landmarks={
            "lake": Landmark(cells=[(6, 6), (6, 7), (7, 6), (7, 7)]),
            "old mill": Landmark(cells=[(1, 8), (2, 8)], type="open"),
        },
    )


def mm(aligned: bool = True, **kw) -> MentalModel:
    base = dict(
        team_goal="t3", partner_intent="p1", self_reasoning="r1", aligned=aligned, rationale="following the plan"
    )
    if not aligned:
        base.update(team_goal="t4", partner_intent="p4", self_reasoning="r5", misalignment_reasons=["n2"])
    base.update(kw)
    return MentalModel(**base)


def tiny_session(
    session_id: str = "s1", condition: str = "visible", split: str = "train", map_id: str = "m1"
) -> Session:
    actions = [
        Action(
            index=0, timestamp=0.0, role="guide", type="message", content="start at the top left", mental_model=mm()
        ),
        Action(
            index=1, timestamp=5.0, role="follower", type="draw", content=[(0, 0), (0, 1), (0, 2)], mental_model=mm()
        ),
        Action(index=2, timestamp=9.0, role="follower", type="draw", content=[(1, 2), (2, 2)], mental_model=mm(False)),
        Action(
            index=3,
            timestamp=12.0,
            role="guide",
            type="message",
            content="no, go right of the lake",
            mental_model=mm(False),
        ),
        Action(index=4, timestamp=15.0, role="follower", type="erase", content=[(2, 2)], mental_model=mm()),
        Action(index=5, timestamp=20.0, role="follower", type="undo", mental_model=mm()),
    ]
    return Session(
        id=session_id,
        condition=condition,
        split=split,
        map_id=map_id,
        duration_s=60.0,
        participants=[
            Participant(
                role="guide",
                id="P1",
                persona=Persona(gender="Female", age_group="25-34", education="Master's degree", teamq=[3] * 14),
            ),
            Participant(role="follower", id="P2"),
        ],
        actions=actions,
    )


def write_tiny(dest: Path, n_sessions: int = 2) -> Path:
    sessions = [tiny_session(f"s{i + 1}", condition=("visible", "not_visible")[i % 2]) for i in range(n_sessions)]
    return write_dataset(
        dest,
        DatasetInfo(name="tiny", description="hand-made test data", synthetic=True),
        [tiny_map()],
        sessions,
        labels=[
            {
                "scheme": "grounding_acts",
                "session_id": "s1",
                "action_index": 0,
                "coder": "a",
                "code": "initiate",
                "partition": "validation",
            },
            {
                "scheme": "grounding_acts",
                "session_id": "s1",
                "action_index": 0,
                "coder": "b",
                "code": "initiate",
                "partition": "validation",
            },
        ],
    )
