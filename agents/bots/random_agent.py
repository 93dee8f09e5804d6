"""The ``random`` bot: a uniformly random legal action.

Strategy, phase by phase: in every phase (draw, claim, play) it picks one of
``view.legal_actions`` uniformly at random. It is the floor of the ladder and a sanity check that
the harness separates bots. Its randomness comes only from the ``random.Random`` it was built with
(a seed or a generator); it never touches the global random state.
"""

from __future__ import annotations

from agents.bots.base import SeededAgent, View


class RandomAgent(SeededAgent):
    """Uniform over the legal actions, from its own generator."""

    name = "random"

    def act(self, view: View) -> int:
        """A uniformly random legal action id."""
        legal = view.legal_actions
        if not legal:
            raise ValueError(f"seat {view.seat} has no legal action (phase {view.phase!r})")
        return legal[self.rng.randrange(len(legal))]
