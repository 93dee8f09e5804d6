"""``search-oracle``: a diagnostic copy of ``search@v1`` that rolls out the *real* hidden hands.

It reads the true hidden state (the opponents' hands) and is therefore not a player: its name
carries ``oracle``, and the evaluation harness and the leaderboard refuse it unless asked for
explicitly (``evaluate(..., allow_oracle=True)``, ``--allow-oracle``). Its use is to bound the
headroom of the search: with perfect knowledge of the opponents' cards and only the stock order
unknown, how much better can the same candidates and rollouts do?

``search-oracle`` uses the default budget, ``search-oracle:N`` ``N`` worlds. A seat's view holds
nothing hidden, so the bot reads the live game only once it is handed it (``attach``; the harness
does this for agents marked ``reads_hidden_state``, and only where oracles are allowed). Each world
is that live game, cloned, with the stock reshuffled and a fresh generator for any re-formed
stock (both drawn from the bot's own seeded generator); everything else (candidates, ``strong@v1``
rollouts, the guard) is ``agents.bots.search.SearchAgent`` unchanged.
"""

from __future__ import annotations

import random

from agents.bots.base import PlayerView
from agents.bots.search import DEFAULT_SIMS, SearchAgent
from continental_env.game import Game


class OracleSearchAgent(SearchAgent):
    """``search@v1`` whose worlds are the real game with only the stock order unknown."""

    name = "search-oracle"
    reads_hidden_state = True

    def __init__(self, seed: int | random.Random | None = None, sims: int = DEFAULT_SIMS) -> None:
        super().__init__(seed, sims)
        self.name = "search-oracle" if sims == DEFAULT_SIMS else f"search-oracle:{sims}"
        self._live: Game | None = None

    def attach(self, game: Game) -> None:
        """Hand the bot the live game it reads (the true hidden state) for the game it plays."""
        self._live = game

    def _worlds(self, view: PlayerView, rng: random.Random) -> list[Game]:
        live = self._live  # the true hidden state: this is what makes the bot an oracle
        if live is None:
            raise RuntimeError(
                f"{self.name} reads the live game: attach(game) first (the evaluation harness "
                "does, where oracles are allowed)"
            )
        worlds = []
        for _ in range(self.sims):
            world = live.clone()
            rng.shuffle(world.state.stock)
            world.state.rng = random.Random(rng.getrandbits(64))
            worlds.append(world)
        return worlds


def make_oracle_search(spec: str, seed: int | None) -> OracleSearchAgent:
    """``search-oracle`` or ``search-oracle:N``."""
    parts = spec.split(":")
    if parts[0] != "search-oracle" or len(parts) > 2:
        raise ValueError(f"oracle search spec {spec!r}: expected search-oracle or search-oracle:N")
    if len(parts) == 1:
        return OracleSearchAgent(seed)
    try:
        sims = int(parts[1])
    except ValueError:
        raise ValueError(f"search-oracle budget must be an integer, got {parts[1]!r}") from None
    return OracleSearchAgent(seed, sims)


__all__ = ["OracleSearchAgent", "make_oracle_search"]
