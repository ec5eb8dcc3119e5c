"""The synthetic sample corpus: seeded Map Task sessions shaped like ALMANAC.

``python -m corpus generate --seed 7 sample_data`` writes the bundled corpus. Everything in it is
invented: maps, chat, drawings, personas, mental-model labels, grounding-act codes and model
predictions. It is made to show the patterns the ALMANAC paper reports, with noise:

* 25 sessions (12 ``not_visible``, 13 ``visible``; 19 train / 6 test), about 3,000 actions whose
  per-session counts vary widely (Table 1): messages the majority, then draw, erase, undo, reset.
* Two maps on a 40 x 60 grid with 8-12 landmarks; the Follower's map has one landmark misplaced,
  and drawing errors cluster near it. Final accuracy (share of drawn cells on the route) averages
  about two thirds, a little higher without the live view (steadier strokes), as in the paper.
* Each action carries the actor's mental model. Grounded labels (clear team goal, partner
  understood, executing the plan) become more likely as the route gets drawn and are more likely
  when the Guide sees the Follower's canvas; repair episodes bring "unclear", "misunderstood" and
  "repairing" labels and reported misalignment.
* In-session checkpoints at 25/50/75 % of drawing progress, for both participants.
* 180 sampled actions coded with grounding acts by three simulated coders (Fleiss' kappa near
  0.8) and a simulated LLM coder (kappa near 0.75 against the human majority) on an 8 / 172
  few-shot / validation partition. As in Fig. 3, Continue and Acknowledge are commoner with the
  live view and non-grounding Other without it; as in Fig. 4 left, an Acknowledge goes with the
  partner judged understood and a repair with the opposite.
* Predictions of two simulated models on the test split for both benchmark tasks.

The simulation is a small generative story per route segment: the Guide instructs, the Follower
may ask or acknowledge, draws the segment (with brush jitter, and sometimes a real mistake), the
mistake is noticed (sooner when the Guide sees the canvas) and repaired by erase or undo, or it
stays. The grounding act and the latent state of every action come from that story.

The generator is deterministic for a seed. Its parts, one job each:

- :mod:`.maps`: grids with landmarks, a route, and the Follower's map with one landmark moved;
- :mod:`.story`: one session's actions as a story over the route's segments;
- :mod:`.mental`: each actor's mental model at each action;
- :mod:`.session`: a story made a :class:`corpus.model.Session` (times, personas, checkpoints);
- :mod:`.coders`: the simulated coders' grounding-act labels;
- :mod:`.predictions`: the simulated models' predictions;
- :mod:`.phrases` (data) and :mod:`.draws` (random helpers);
- :mod:`.build`: all of it from one seed, written to a directory as it is made.
"""

from corpus.generate.build import GENERATOR_VERSION, generate
from corpus.generate.coders import HUMAN_CODERS, LLM_CODER

__all__ = ["GENERATOR_VERSION", "HUMAN_CODERS", "LLM_CODER", "generate"]
