"""The vocabulary of the data: conditions, roles, action types and the mental-model label schema.

The mental-model schema is Table 5 of the ALMANAC paper (label-schema version ``almanac-1``).
Every label carries its code and its full wording; the wording is looked up here, never typed
by hand elsewhere.
"""

from __future__ import annotations

LABEL_SCHEMA_VERSION = "almanac-1"

# What a source does not record is said so, never guessed ("not_recorded" as a session's condition or
# split): an importer whose source names no condition or split writes this.
NOT_RECORDED = "not_recorded"

# A study compares two conditions: a design is (reference, treatment). ALMANAC's Map Task varies
# whether the Guide sees the Follower's canvas; the HCRC Map Task whether the two see each other.
CANVAS = ("not_visible", "visible")
EYE_CONTACT = ("no_eye_contact", "eye_contact")
DESIGNS = (CANVAS, EYE_CONTACT)
CONDITIONS = (*CANVAS, *EYE_CONTACT, NOT_RECORDED)
CONDITION_DESCRIPTIONS = {
    "visible": "the Guide could see the Follower's canvas live",
    "not_visible": "the Guide could not see the Follower's canvas",
    "eye_contact": "the two participants could see each other's faces",
    "no_eye_contact": "the two participants could not see each other",
    NOT_RECORDED: "the source does not record the condition",
}
# A session's part of a benchmark: trained on, held out for tuning ("val", as the HCRC corpus's split
# lists name it), held out for scoring, or not recorded.
SPLITS = ("train", "val", "test", NOT_RECORDED)


def design_of(conditions: list[str] | tuple[str, ...]) -> tuple[str, str] | None:
    """The design (reference, treatment) the recorded ``conditions`` belong to, or None when they
    are not the two conditions of one design (one condition only, or none recorded)."""
    recorded = {c for c in conditions if c != NOT_RECORDED}
    return next((d for d in DESIGNS if recorded == set(d)), None)


ROLES = ("guide", "follower")
ACTION_TYPES = ("message", "draw", "erase", "undo", "reset")
DRAWING_TYPES = ("draw", "erase", "undo", "reset")
CELL_TYPES = ("draw", "erase")  # action types whose content is a list of cells
# Each role and action type as written, to its one shared string (a reader looks a value up here:
# a table of a million actions then holds each string once).
ROLE_OF = {r: r for r in ROLES}
ACTION_TYPE_OF = {t: t for t in ACTION_TYPES}

OTHER = "other"

TEAM_GOAL = {
    "t1": "Still figuring out what we needed to do",
    "t2": "Working toward a shared understanding",
    "t3": "Clear on what to do and working on it",
    "t4": "Something was unclear and we were working it out",
}
PARTNER_INTENT = {
    "p1": "Understood the situation; on the same page",
    "p2": "Probably understood, but I was not fully sure",
    "p3": "Is waiting for more information",
    "p4": "Misunderstood; not aligned",
    "p5": "Gave no clear signal either way",
}
SELF_REASONING = {
    "r1": "Executing an agreed-upon plan",
    "r2": "Exploring on my own to gather information",
    "r3": "Confirming the situation with my partner",
    "r4": "Grounding - sharing/requesting info to align",
    "r5": "Repairing a mistake or misunderstanding",
    "r6": "Waiting for more information",
}
MISALIGNMENT_REASON = {
    "n1": "Different understanding of the task goal",
    "n2": "Different understanding of the current state",
    "n3": "One of us was missing key information",
    "n4": "Communication was unclear or ambiguous",
    "n5": "Technical or interface issue got in the way",
}

# The questions as participants saw them (Table 5).
QUESTIONS = {
    "team_goal": "At this moment, my partner and I were:",
    "partner_intent": "At this moment, I thought my partner:",
    "self_reasoning": "At this moment, my action was driven by:",
    "aligned": "At this moment, my partner and I were on the same page",
}

# dimension name -> codes; "other" is allowed for the three categorical dimensions.
DIMENSIONS: dict[str, dict[str, str]] = {
    "team_goal": TEAM_GOAL,
    "partner_intent": PARTNER_INTENT,
    "self_reasoning": SELF_REASONING,
}
DIMENSION_TITLES = {
    "team_goal": "Team goal",
    "partner_intent": "Partner intent",
    "self_reasoning": "Self-reasoning",
}

# Short names used in tables (Table 8 of the paper).
SHORT_NAMES = {
    "t1": "Still figuring out task",
    "t2": "Working toward shared understanding",
    "t3": "Clear on what to do",
    "t4": "Unclear, working it out",
    "p1": "Understood and aligned",
    "p2": "Probably understood",
    "p3": "Waiting for more information",
    "p4": "Misunderstood or misaligned",
    "p5": "No clear signal",
    "r1": "Executing agreed plan",
    "r2": "Exploring independently",
    "r3": "Confirming with partner",
    "r4": "Grounding by sharing/requesting information",
    "r5": "Repairing mistake or misunderstanding",
    "r6": "Waiting for more information",
    OTHER: "Other",
}

# Codes that count as "grounded" (aligned) on each dimension, for alignment-over-progress charts
# (Fig. 4 right of the paper): a clear team goal, a partner who understood, acting on a plan.
GROUNDED_CODES = {
    "team_goal": {"t3"},
    "partner_intent": {"p1"},
    "self_reasoning": {"r1"},
}

# Personas (Appendix C).
GENDERS = ("Male", "Female", "Non-binary / third gender", "Prefer not to say")
AGE_GROUPS = ("18-24", "25-34", "35-44", "45-54", "55+")
EDUCATION_LEVELS = (
    "Less than high school",
    "High school or equivalent",
    "Associate degree",
    "Bachelor's degree",
    "Master's degree",
    "Doctoral degree",
)
TEAMQ_ITEMS = (
    ("Task Contribution", "Participate actively and accept a fair share of the group work."),
    ("Task Contribution", "Work skillfully on assigned tasks and complete them on time."),
    ("Feedback", "Give timely, constructive feedback to team members in the appropriate format."),
    ("Communication", "Communicate actively and constructively."),
    ("Inclusiveness", "Encourage all perspectives to be considered and acknowledge contributions of others."),
    ("Integration", "Constructively build on contributions of others and integrate own work with work of others."),
    ("Coordination", "Take on an appropriate role in the group, e.g., leader or note taker."),
    ("Coordination", "Clarify goals and plan the project."),
    ("Coordination", "Report to team on progress."),
    ("Interpersonal Expression", "Ensure consistency between words, tone, facial expression, and body language."),
    ("Team Climate", "Express positivity and optimism about team members and project."),
    (
        "Conflict Management",
        "Display appropriate assertiveness: neither dominating, submissive, nor passive aggressive.",
    ),
    ("Conflict Management", "Contribute appropriately to healthy debate."),
    ("Conflict Management", "Respond to and manage direct/indirect conflict constructively and effectively."),
)
TEAMQ_SCALE = {0: "Never", 1: "Sometimes", 2: "Usually", 3: "Regularly", 4: "Always"}

# Traum's grounding acts as the paper codes them (the default codebook of the coding screen).
GROUNDING_ACTS = {
    "initiate": "Initiate",
    "continue": "Continue",
    "acknowledge": "Acknowledge",
    "repair": "Repair",
    "request_repair": "Request Repair",
    "request_ack": "Request Acknowledgement",
    "cancel": "Cancel",
    "other": "Other (not a grounding act)",
}
GROUNDING_PARTITIONS = ("few_shot", "validation")

# Who gave a coded label: a person, or a model (an LLM coder scored against the people). Recorded
# as data (the label files' coder_kind column, the label store's account kind), never guessed
# from a coder's name.
HUMAN = "human"
MODEL = "model"
CODER_KINDS = (HUMAN, MODEL)

# HCRC Map Task dialogue moves (Carletta et al. 1997), as the HCRC corpus names them.
HCRC_MOVES = {
    "instruct": "Instruct",
    "explain": "Explain",
    "check": "Check",
    "align": "Align (check attention)",
    "query_yn": "Query yes/no",
    "query_w": "Query wh-",
    "acknowledge": "Acknowledge",
    "reply_y": "Reply yes",
    "reply_n": "Reply no",
    "reply_w": "Reply wh-",
    "clarify": "Clarify",
    "ready": "Ready",
    "uncodable": "Uncodable",
}

# GMMT (Grounded Misunderstandings in MapTask; Li, Gatt & Poesio, LREC 2026): the understanding
# state of a landmark reference expression, from the giver's and the follower's interpretations.
GMMT_STATUS = {
    "aligned": "Aligned (both ground it to the same landmark)",
    "pending": "Pending (not fully grounded)",
    "misunderstood": "Misunderstood (each grounds it to a different landmark)",
}
# Most severe first: an action whose words hold several expressions is labelled with the most
# severe of their states.
GMMT_SEVERITY = ("misunderstood", "pending", "aligned")
GMMT_GROUNDED = "aligned"  # the state that counts as grounded in the analyses

# Coding schemes whose labels a dataset may carry in labels/<scheme>.csv, by id (a label row's
# ``scheme``, a codebook's ``id``): the ids are spelt here only.
GROUNDING_ACTS_SCHEME = "grounding_acts"
HCRC_MOVES_SCHEME = "hcrc_moves"
GMMT_SCHEME = "gmmt"
CODING_SCHEMES = {
    GROUNDING_ACTS_SCHEME: GROUNDING_ACTS,
    HCRC_MOVES_SCHEME: HCRC_MOVES,
    GMMT_SCHEME: GMMT_STATUS,
}

# Benchmark tasks of Sec. 4 (prediction files).
PREDICTION_TASKS = ("next_action", "mental_model")


def wording(dimension: str, code: str) -> str:
    """The full wording of a label code on a dimension ("other" reads "Other")."""
    if code == OTHER:
        return "Other"
    table = MISALIGNMENT_REASON if dimension == "misalignment_reason" else DIMENSIONS[dimension]
    return table[code]
