"""A bot of your own for ``continental evaluate`` and ``continental leaderboard``.

Save this file as ``first_legal.py`` in the directory you run the command from, then::

    continental evaluate --agents first_legal:FirstLegal,greedy --players 2 --games 20
    continental evaluate --game knock --agents first_legal:FirstLegal,greedy --players 3
    continental leaderboard --agents first_legal:FirstLegal,first_legal:RandomLegal,greedy \\
        --players 3 --deals 10

It plays every game (``--game contract``, ``fifteen`` or ``knock``): it reads only
``view.legal_actions``, which every game's seat view has.
"""

from __future__ import annotations

import random
from typing import Any


class FirstLegal:
    """Plays the first legal action: the smallest protocol there is."""

    def __init__(self, seed: int | None = None) -> None:
        self.seed = seed  # this bot draws nothing; the harness gives each seat its own seed

    def act(self, view: Any) -> int:
        """The action id to play, from the seat's view (``view.legal_actions`` is never empty
        when the harness asks)."""
        return view.legal_actions[0]


class RandomLegal:
    """A uniformly random legal action, drawn from its own seeded generator: the same seed
    gives the same games, whatever ``--jobs``."""

    def __init__(self, seed: int | None = None) -> None:
        self.rng = random.Random(seed)

    def act(self, view: Any) -> int:
        return self.rng.choice(view.legal_actions)
