"""One colour per condition, per role and per category across the whole app.

The colours are the Okabe-Ito palette (Okabe & Ito 2008, "Color Universal Design"), which stays
distinguishable under the common forms of colour-vision deficiency and in greyscale print: the two
conditions differ in hue and in lightness (vermillion and blue), as do the two roles (orange and
bluish green). Every chart takes its colours from here, so "visible" is the same blue on every
page and in every exported figure.
"""

from __future__ import annotations

# Okabe-Ito, in their published order.
BLACK = "#000000"
ORANGE = "#E69F00"
SKY_BLUE = "#56B4E9"
BLUISH_GREEN = "#009E73"
YELLOW = "#F0E442"
BLUE = "#0072B2"
VERMILLION = "#D55E00"
REDDISH_PURPLE = "#CC79A7"
GREY = "#999999"
LIGHT_GREY = "#BBBBBB"

# A design's reference condition is vermillion, its treatment blue (corpus.schema.DESIGNS);
# sessions whose source records no condition are grey.
CONDITION = {
    "not_visible": VERMILLION,
    "visible": BLUE,
    "no_eye_contact": VERMILLION,
    "eye_contact": BLUE,
    "not_recorded": GREY,
}
CONDITION_NAMES = {
    "not_visible": "not visible",
    "visible": "visible (Guide saw the canvas)",
    "no_eye_contact": "no eye contact",
    "eye_contact": "eye contact",
    "not_recorded": "not recorded",
}
# A marker symbol per condition as well, so the two conditions differ without colour.
CONDITION_SYMBOLS = {
    "not_visible": "circle",
    "visible": "square",
    "no_eye_contact": "circle",
    "eye_contact": "square",
    "not_recorded": "diamond",
}
CONDITION_DASH = {
    "not_visible": "solid",
    "visible": "dash",
    "no_eye_contact": "solid",
    "eye_contact": "dash",
    "not_recorded": "dot",
}
# Bar fill patterns: hatched for a reference condition, so bars differ in greyscale print too.
PATTERN = {
    "not_visible": "/",
    "visible": "",
    "no_eye_contact": "/",
    "eye_contact": "",
    "not_recorded": ".",
    "not aligned": "x",
    "aligned": "",
}

# The short form, for chips and column headers.
CONDITION_SHORT = {c: n.split(" (")[0] for c, n in CONDITION_NAMES.items()}

SPLIT_NAMES = {"train": "train", "val": "val", "test": "test", "not_recorded": "not recorded"}


def group_label(group: str) -> str:
    """A descriptive table's column ("All", a condition, or "condition/split") in words:
    "not_visible/train" -> "not visible · train"; an id the app does not know stays as written."""
    cond, _, split = group.partition("/")
    words = CONDITION_SHORT.get(cond, cond.replace("_", " ")) if cond != "All" else cond
    return f"{words} · {SPLIT_NAMES.get(split, split)}" if split else words


ROLE = {"guide": ORANGE, "follower": BLUISH_GREEN}
ROLE_NAMES = {"guide": "Guide", "follower": "Follower"}

ALIGNMENT = {"aligned": BLUISH_GREEN, "not aligned": REDDISH_PURPLE, "no label": LIGHT_GREY}


def rgba(hex_color: str, alpha: float) -> str:
    """A ``#rrggbb`` colour as a CSS ``rgba(...)`` string with the given opacity."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


# The TGCO outcome of a request unit ("Beyond Task Success", Table 1): from taken up unaided to
# not taken up, in hues that stay apart in greyscale.
OUTCOME = {
    "Effective": BLUISH_GREEN,
    "Assisted": SKY_BLUE,
    "Redundant": ORANGE,
    "Ineffective": VERMILLION,
}
OUTCOME_PATTERN = {"Effective": "", "Assisted": "/", "Redundant": ".", "Ineffective": "x"}
