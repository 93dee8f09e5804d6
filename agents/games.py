"""The games the harness, training, the terminal table and the browser table know, one
``GameSpec`` (``agents.spec``) each.

**Registering a game** is one entry in ``GAMES``: its name mapped to ``"module:ATTRIBUTE"``, a
``GameSpec`` imported only when the game is asked for. For example the knock game is
``"knock": "agents.knock:GAME"``, with ``agents/knock`` defining ``GAME = GameSpec(...)``; its
bots are its entries in ``agents.registry``. ``continental evaluate --game knock`` and
``continental play --game knock`` (through the spec's ``terminal`` module) then take it with no
further change; the browser table adds the page's words (``continental_web.tables``).

| game | scores | better | options (``--set key=value``) |
|---|---|---|---|
| ``contract`` | points, per round | lower | ``preset``, ``rounds`` |
| ``fifteen`` | chips, per hand (zero-sum) | higher | ``target``, ``hands``, ``max_turns_per_hand``, ``max_hands`` |
| ``knock`` | net chips (ante, bonuses, buy-backs, the pot), per hand | higher | ``stake``, ``max_turns_per_hand``, ``max_hands`` |
"""

from __future__ import annotations

import importlib
from typing import Any

from agents.registry import offered
from agents.spec import GameSpec, digest

DEFAULT_GAME = "contract"
# name -> "module:ATTRIBUTE" of its GameSpec, imported on first use.
GAMES: dict[str, str] = {
    "contract": "agents.games:CONTRACT",
    "fifteen": "agents.fifteen:GAME",
    "knock": "agents.knock:GAME",
}


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


def _contract_render(game: Any, seat: int | None, names: Any) -> str:
    from continental_env.render import render_table

    return render_table(game, seat=seat, names=names)


def _contract_players() -> dict[str, tuple[int, int]]:
    from continental_env.rules import PRESETS

    return {name: (r.min_players, r.max_players) for name, r in PRESETS.items()}


CONTRACT = GameSpec(
    name="contract",
    unit="points",
    higher_is_better=False,
    segment="round",
    new_game=_contract_new,
    view=_contract_view,
    agent_names=offered("contract"),
    final_scores=lambda game: list(game.state.scores),
    segments=lambda game: [(str(r["round"]), list(r["points"])) for r in game.state.round_history],
    closers=lambda game: [r["closer"] for r in game.state.round_history],
    deal_number=lambda game: game.state.round_index,
    deal_fingerprint=lambda game: digest(*game.state.hands, game.state.discard, game.state.stock),
    check_options=_contract_check,
    option_types={"preset": str, "rounds": list},
    label="Continental (contract game)",
    render=_contract_render,
    player_ranges=_contract_players,
    rule_presets=True,
)

__all__ = ["CONTRACT", "DEFAULT_GAME", "GAMES", "GameSpec", "digest", "game_names", "game_spec"]
