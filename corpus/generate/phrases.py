"""What the simulated people say and write: chat phrases, rationales and checkpoint answers.

Data tables only. Phrases take ``str.format`` fields filled by the story (:mod:`.story`):
``{dir}``, ``{lm}``, ``{side}``, ``{pos}``, ``{pos_word}``, ``{n}``, ``{opp}``, ``{other}``,
``{wrong}``, ``{row}``.
"""

from typing import Any

# Chat, by who says it and why.
INSTRUCT = [
    "ok now go {dir} past the {lm}",
    "from there head {dir}, the {lm} should be on your {side}",
    "next bit: go {dir} until you're level with the {lm}",
    "keep going {dir}, stay just {pos} the {lm}",
    "go {dir} around the {lm}, pass it on the {pos_word} side",
    "now curve {dir} toward the {lm}",
    "draw {dir} about {n} squares, right {pos} the {lm}",
    "you should be near the {lm} now, go {dir} along it",
]
CONTINUE = [
    "and keep it close to the {lm}",
    "not too far, maybe {n} squares",
    "then it bends a little {dir}",
    "stop when you're under the {lm}",
    "it hugs the edge of the {lm}",
    "and then straight for a bit",
]
ACK_F = ["ok", "got it", "okay", "yep", "ok doing that", "alright", "sure", "ok 👍", "on it"]
ACK_G = ["great", "yes perfect", "nice", "yes that's it", "good", "perfect, keep going", "exactly"]
REQ_ACK = [
    "like this?",
    "is that right?",
    "ok I drew it, am I next to the {lm}?",
    "done, I'm just {pos} the {lm} now",
    "I stopped at the {lm}, right?",
    "does that look ok?",
]
REQ_REPAIR = [
    "wait where is the {lm}?",
    "which side of the {lm}?",
    "sorry, up or down?",
    "I don't see a {lm} there",
    "how far is that?",
    "do you mean my left or yours?",
]
REPAIR_G = [
    "no, it should go {pos} the {lm}, not {opp}",
    "the {lm} is more to the {side} I think",
    "sorry I meant {dir}",
    "a bit further, past the {lm}",
    "it's the one near the {other}",
    "no that's too far {wrong}, come back a little",
]
NOTICE_NV = [
    "hm where are you now?",
    "can you tell me where your line ends?",
    "what's near your line right now?",
]
FIX_F = ["oops fixing", "my bad, redoing that bit", "ah ok, erasing", "oh I see, let me fix it"]
CANCEL = ["actually never mind", "wait ignore that", "scratch that"]
SMALLTALK = [
    "haha this map is tricky",
    "how much is left?",
    "almost there I think",
    "this is fun",
    "sorry typing slow",
    "lol ok",
    "we're doing good",
    "ok the map is kind of big",
]
START_G = [
    "hi! so the start is on the far left, around row {row}",
    "hey, you start at the left edge",
    "hello, I'll guide you. start at the left side near the {lm}",
]
START_F = ["hi! ready", "hello, ok where do I start?", "hey, ready when you are"]
END_G = ["and that's the finish!", "ok that should be the end", "you made it, that's the finish"]
END_F = ["done!", "yay", "ok finished", "great teamwork"]

# The rationale an actor gives for an action, by (role, latent state).
RATIONALES = {
    ("guide", "start"): [
        "Getting us started and telling my partner where the route begins.",
        "Setting up: I wanted them to find the start first.",
    ],
    ("follower", "start"): [
        "Saying hi and waiting to hear where to begin.",
        "I did not know the map yet and wanted instructions.",
    ],
    ("guide", "instruct"): [
        "I described the next part of the route using the {lm} as a reference.",
        "Giving the next direction; the {lm} is the easiest thing to point to.",
        "Moving us on to the next segment around the {lm}.",
    ],
    ("follower", "instruct"): ["Telling my partner where I am."],
    ("follower", "ack"): [
        "Letting the guide know I understood before drawing.",
        "Confirming I got the instruction about the {lm}.",
    ],
    ("guide", "ack"): ["Their drawing looked right so I confirmed it.", "Confirming they were on track near the {lm}."],
    ("follower", "ask"): [
        "I could not find the {lm} where they said it was.",
        "I was not sure which way to go so I checked.",
        "Wanted to make sure I was in the right spot before going on.",
    ],
    ("guide", "ask"): ["Asking where they were because I could not see their drawing."],
    ("guide", "answer"): [
        "Correcting the direction; they seemed to go the wrong way around the {lm}.",
        "Clarifying what I meant about the {lm}.",
        "Explaining again because my first description was unclear.",
    ],
    ("follower", "draw"): [
        "Drawing the part the guide just described.",
        "Following the instruction: going past the {lm}.",
        "Extending the line along the route we agreed on.",
    ],
    ("follower", "explore"): [
        "I tried drawing where I thought the route went.",
        "Guessing the path near the {lm} to see if it fits.",
    ],
    ("follower", "repair"): [
        "Fixing my line; I had gone the wrong side of the {lm}.",
        "Erasing the wrong part after the guide's correction.",
        "Undoing my last stroke because it was off.",
    ],
    ("guide", "repair"): [
        "They had drawn in the wrong place, so I corrected them.",
        "The {lm} on their map seemed to be somewhere else.",
    ],
    ("guide", "wait"): ["Waiting for them to finish drawing before the next step."],
    ("follower", "wait"): ["Waiting for the next instruction."],
    ("guide", "chat"): ["Keeping the mood up while they draw.", "Checking how far along we were."],
    ("follower", "chat"): ["Just chatting while working.", "Letting them know how it was going."],
    ("follower", "cancel"): ["I changed my mind about my question."],
    ("guide", "cancel"): ["I realised what I said was wrong and took it back."],
}
OTHER_TEXTS = ["Joking around with my partner", "Not sure, I was distracted", "Testing the interface", "Being polite"]

# In-session checkpoint answers: the team goal by stage (checkpoint 1, 2, 3), the partner's intent
# by whether the participant felt on the same page then (and, for the Guide, by whether they saw
# the canvas), and self-reasoning by role.
CHECKPOINT_TEXT: dict[str, dict[str, Any]] = {
    "guide": {
        "team_goal": {
            1: [
                "Getting started, explaining where the route begins near the {lm}.",
                "Working out how to describe the first turns.",
            ],
            2: ["We're following the route, now around the {lm}.", "Getting the middle part right near the {lm}."],
            3: ["Almost done, heading to the finish.", "Last stretch, past the {lm}."],
        },
        "partner_intent": {
            ("visible", True): ["I can see their line follows my directions.", "They drew it right where I meant."],
            ("visible", False): [
                "I can see their line going the wrong way at the {lm}.",
                "Their drawing is off near the {lm}.",
            ],
            ("not_visible", True): [
                "They seem to follow my directions.",
                "They say they are at the {lm}, sounds right.",
            ],
            ("not_visible", False): [
                "I think they understand but I can't see their line.",
                "They were confused about the {lm}.",
            ],
        },
        "self_reasoning": [
            "Describing each turn with a landmark.",
            "Checking they are where I think they are.",
            "Giving shorter instructions so they don't get lost.",
        ],
    },
    "follower": {
        "team_goal": {
            1: ["Figuring out where the {lm} is on my map.", "Finding the start and the first landmarks."],
            2: ["Drawing the route step by step.", "Following the route around the {lm}."],
            3: ["Finishing the last part of the route.", "Nearly at the end, near the {lm}."],
        },
        "partner_intent": {
            True: ["They know the route and are guiding me.", "We're on the same page about the {lm}."],
            False: ["They might have a different map than me.", "I'm not sure they know where I am."],
        },
        "self_reasoning": [
            "Drawing what they describe.",
            "Asking when unsure before drawing.",
            "Fixing the part that went wrong.",
        ],
    },
}
