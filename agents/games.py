"""The games the harness, the terminal game and ``make_agent`` know, one ``GameSpec`` each.

A spec says how to drive one game without knowing its rules: how to create a game from a seed and
options, whose turn it is, what a seat's bot may see, how to build that game's bots, the final
scores and which way is better, and how to recognise a deal (for the duplicate-deal check).

**Registering a game** is one entry in ``GAMES``: its name mapped to ``"module:ATTRIBUTE"``, a
``GameSpec`` imported only when the game is asked for. For example the knock game is
``"knock": "agents.knock:GAME"``, with ``agents/knock`` defining ``GAME = GameSpec(...)``; so
``make_agent(name, seed, game="knock")``, ``continental evaluate --game knock`` and
``continental play --game knock`` (through the spec's ``terminal`` module) take it with no further
change.

| game | scores | better | options (``--set key=value``) |
|---|---|---|---|
| ``contract`` | points, per round | lower | ``preset``, ``rounds`` |
| ``fifteen`` | chips, per hand (zero-sum) | higher | ``target``, ``hands``, ``max_turns_per_hand``, ``max_hands`` |
| ``knock`` | net chips (ante, bonuses, buy-backs, the pot), per hand | higher | ``stake``, ``max_turns_per_hand``, ``max_hands`` |
"""

from __future__ import annotations

import hashlib
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

DEFAULT_GAME = "contract"
# name -> "module:ATTRIBUTE" of its GameSpec, imported on first use.
GAMES: dict[str, str] = {
    "contract": "agents.games:CONTRACT",
    "fifteen": "agents.fifteen:GAME",
    "knock": "agents.knock:GAME",
}


@dataclass(frozen=True)
class GameSpec:
    """How front ends drive one game (see the module docstring)."""

    name: str
    unit: str  # what the scores count: "points", "chips"
    higher_is_better: bool
    segment: str  # a scoring period: "round", "hand"
    new_game: Callable[[int, int | None, dict[str, Any]], Any]  # (players, seed, options)
    view: Callable[[Any, int], Any]  # (engine, seat) -> what that seat's bot may see
    make_agent: Callable[[str, int | None], Any]  # (bot name, seed) -> a bot
    agent_names: tuple[str, ...]
    final_scores: Callable[[Any], list[float]]
    segments: Callable[[Any], list[tuple[str, list[float]]]]  # (label, each seat's score)
    deal_number: Callable[[Any], int]  # changes exactly when a new deal starts
    deal_fingerprint: Callable[[Any], str]  # a digest of the deal now on the table
    check_options: Callable[[int, dict[str, Any]], None]  # ValueError for a bad table
    option_types: dict[str, type] = field(default_factory=dict)
    terminal: str = ""  # module whose main(argv) is its terminal game ("": agents.play)
    # Who ended each finished round (a seat, or None when the round ran out without a closer);
    # None for games without closers.
    closers: Callable[[Any], list[int | None]] | None = None

    def sign(self) -> int:
        """+1 when higher scores are better, -1 when lower are."""
        return 1 if self.higher_is_better else -1

    def parse_options(self, pairs: Sequence[str]) -> dict[str, Any]:
        """``key=value`` texts into an options dict (``none`` is None); ValueError if unknown."""
        out: dict[str, Any] = {}
        for pair in pairs:
            key, sep, text = pair.partition("=")
            key = key.strip()
            if not sep or key not in self.option_types:
                known = ", ".join(self.option_types) or "none"
                raise ValueError(f"bad option {pair!r} for the {self.name} game; known: {known}")
            kind = self.option_types[key]
            text = text.strip()
            if text.lower() == "none":
                out[key] = None
            elif kind is int:
                try:
                    out[key] = int(text)
                except ValueError:
                    raise ValueError(f"option {key}={text!r} must be an integer") from None
            elif kind is list:
                try:
                    out[key] = [int(x) for x in text.replace(",", " ").split()]
                except ValueError:
                    raise ValueError(f"option {key}={text!r} must list integers") from None
            else:
                out[key] = text
        return out


def game_names() -> tuple[str, ...]:
    """The registered games."""
    return tuple(GAMES)


def game_spec(name: str) -> GameSpec:
    """The spec of a registered game; ValueError naming the choices otherwise."""
    target = GAMES.get(name)
    if target is None:
        raise ValueError(f"unknown game {name!r}; choose one of {', '.join(GAMES)}")
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def digest(*parts: Sequence[int] | Sequence[Sequence[int]]) -> str:
    """A short stable digest of card lists (for deal fingerprints)."""
    text = "|".join(",".join(map(str, p)) for p in parts)
    return hashlib.sha1(text.encode()).hexdigest()[:16]


# ----------------------------------------------------------------------------- the contract game


def _contract_rules(options: dict[str, Any]) -> Any:
    """The RuleConfig of the options: ``preset`` and ``rounds``, or ``rules`` (a full to_dict)."""
    from continental_env.rules import RuleConfig, resolve_rules

    unknown = set(options) - {"preset", "rounds", "rules"}
    if unknown:
        raise ValueError(f"unknown options for the contract game: {sorted(unknown)}")
    if options.get("rules") is not None:
        rules = RuleConfig.from_dict(options["rules"])
    else:
        rules = resolve_rules(options.get("preset") or "continental")
    if options.get("rounds"):
        rules = rules.with_rounds(tuple(options["rounds"]))
    return rules


def _contract_new(players: int, seed: int | None, options: dict[str, Any]) -> Any:
    from continental_env.game import Game

    return Game.new(_contract_rules(options), players, seed=seed)


def _contract_check(players: int, options: dict[str, Any]) -> None:
    _contract_rules(options).check_players(players)


def _contract_view(game: Any, seat: int) -> Any:
    from agents.bots.base import PlayerView

    return PlayerView(game, seat)


def _contract_agent(name: str, seed: int | None) -> Any:
    from agents import make_agent

    return make_agent(name, seed)


CONTRACT = GameSpec(
    name="contract",
    unit="points",
    higher_is_better=False,
    segment="round",
    new_game=_contract_new,
    view=_contract_view,
    make_agent=_contract_agent,
    agent_names=("random", "greedy", "strong"),
    final_scores=lambda game: list(game.state.scores),
    segments=lambda game: [(str(r["round"]), list(r["points"])) for r in game.state.round_history],
    closers=lambda game: [r["closer"] for r in game.state.round_history],
    deal_number=lambda game: game.state.round_index,
    deal_fingerprint=lambda game: digest(*game.state.hands, game.state.discard, game.state.stock),
    check_options=_contract_check,
    option_types={"preset": str, "rounds": list},
)
