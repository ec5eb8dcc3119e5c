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

CONDITION = {"not_visible": VERMILLION, "visible": BLUE}
CONDITION_NAMES = {"not_visible": "not visible", "visible": "visible (Guide saw the canvas)"}
# A marker symbol per condition as well, so the two conditions differ without colour.
CONDITION_SYMBOLS = {"not_visible": "circle", "visible": "square"}
CONDITION_DASH = {"not_visible": "solid", "visible": "dash"}
# Bar fill patterns: hatched for not visible, so bars differ in greyscale print too.
PATTERN = {"not_visible": "/", "visible": "", "not aligned": "x", "aligned": ""}

ROLE = {"guide": ORANGE, "follower": BLUISH_GREEN}
ROLE_NAMES = {"guide": "Guide", "follower": "Follower"}

ALIGNMENT = {"aligned": BLUISH_GREEN, "not aligned": REDDISH_PURPLE, "no label": LIGHT_GREY}

# For categories without a colour of their own (grounding acts, reasons, codes), in this order.
SEQUENCE = (BLUE, ORANGE, BLUISH_GREEN, VERMILLION, REDDISH_PURPLE, SKY_BLUE, YELLOW, BLACK)


def rgba(hex_color: str, alpha: float) -> str:
    """A ``#rrggbb`` colour as a CSS ``rgba(...)`` string with the given opacity."""
    h = hex_color.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"
