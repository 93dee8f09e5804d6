"""``search-oracle``: a diagnostic copy of ``search@v1`` that rolls out the *real* hidden hands.

It reads the true hidden state (the opponents' hands) and is therefore not a player: its name
carries ``oracle``, and the evaluation harness and the leaderboard refuse it unless asked for
explicitly (``evaluate(..., allow_oracle=True)``, ``--allow-oracle``). Its use is to bound the
headroom of the search: with perfect knowledge of the opponents' cards and only the stock order
unknown, how much better can the same candidates and rollouts do?

``search-oracle`` uses the default budget, ``search-oracle:N`` ``N`` worlds. ``search-oracle-v2``
(``search-oracle-v2:N``: at most ``N`` worlds) is the same diagnostic for ``search@v2``: its
candidates, sequential worlds and guard, with every world the live game, stock reshuffled. A seat's view holds
nothing hidden, so the bot reads the live game only once it is handed it (``attach``; the harness
does this for agents marked ``reads_hidden_state``, and only where oracles are allowed). Each world
is that live game, cloned, with the stock reshuffled and a fresh generator for any re-formed
stock (both drawn from the bot's own seeded generator); everything else (candidates, ``strong@v1``
rollouts, the guard) is ``agents.contract.search.SearchAgent`` unchanged. ``search-oracle-v6``
(``search-oracle-v6:N``) is the same for ``search@v6``: its network's move first, ``search@v5``'s
candidates, worlds, compiled rollouts and guard, with every world the live game, stock
reshuffled (``agents.contract.search_prior``; the network file is checked as ``search@v6``'s).
"""

from __future__ import annotations

import random

from agents.contract.sampler import PublicInfo
from agents.contract.search import DEFAULT_SIMS, SearchAgent
from agents.contract.search_adaptive import SearchV2Agent, make_frozen
from agents.contract.search_prior import PriorSearchAgent
from agents.contract.search_prior import make_frozen as make_prior_frozen
from agents.contract.view import PlayerView
from continental_env.contract.game import Game


def _reshuffled(live: Game | None, name: str, rng: random.Random) -> Game:
    """The live game (the true hidden state) cloned, its stock reshuffled and given a fresh
    generator for any re-formed stock, both drawn from ``rng``."""
    if live is None:
        raise RuntimeError(
            f"{name} reads the live game: attach(game) first (the evaluation harness "
            "does, where oracles are allowed)"
        )
    world = live.clone()
    rng.shuffle(world.state.stock)
    world.state.rng = random.Random(rng.getrandbits(64))
    return world


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
        # the true hidden state: this is what makes the bot an oracle
        return [_reshuffled(self._live, self.name, rng) for _ in range(self.sims)]


class _LiveWorlds:
    """Mixed in before a ``SearchV2Agent``: every world it samples is the live game, reshuffled."""

    name: str
    reads_hidden_state = True

    _live: Game | None = None

    def attach(self, game: Game) -> None:
        """Hand the bot the live game it reads (the true hidden state) for the game it plays."""
        self._live = game

    def _sample(self, info: PublicInfo, rng: random.Random, own_turn: int | None) -> Game:
        return _reshuffled(self._live, self.name, rng)


class OracleSearchV2Agent(_LiveWorlds, SearchV2Agent):
    """``search@v2`` whose worlds are the real game with only the stock order unknown."""

    name = "search-oracle-v2"


class OracleSearchV6Agent(_LiveWorlds, PriorSearchAgent):
    """``search@v6`` whose worlds are the real game with only the stock order unknown."""

    name = "search-oracle-v6"


def make_oracle_search(
    spec: str, seed: int | None
) -> OracleSearchAgent | OracleSearchV2Agent | OracleSearchV6Agent:
    """``search-oracle`` or ``search-oracle:N``; ``search-oracle-v2`` or ``search-oracle-v2:N``;
    ``search-oracle-v6`` or ``search-oracle-v6:N``."""
    parts = spec.split(":")
    if parts[0] == "search-oracle-v6":
        frozen = make_prior_frozen(":".join(["search@v6", *parts[1:]]), seed)
        oracle = OracleSearchV6Agent(seed, frozen._prior, frozen.settings)
        oracle.name = spec
        return oracle
    if parts[0] == "search-oracle-v2":
        frozen = make_frozen(":".join(["search@v2", *parts[1:]]), seed)
        bot = OracleSearchV2Agent(seed, frozen.settings)
        bot.name = spec
        return bot
    if parts[0] != "search-oracle" or len(parts) > 2:
        raise ValueError(f"oracle search spec {spec!r}: expected search-oracle or search-oracle:N")
    if len(parts) == 1:
        return OracleSearchAgent(seed)
    try:
        sims = int(parts[1])
    except ValueError:
        raise ValueError(f"search-oracle budget must be an integer, got {parts[1]!r}") from None
    return OracleSearchAgent(seed, sims)


__all__ = ["OracleSearchAgent", "OracleSearchV2Agent", "OracleSearchV6Agent", "make_oracle_search"]
