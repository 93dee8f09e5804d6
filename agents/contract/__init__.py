"""The contract game's bots (RULES.md Part 1), its seat view and its ``GameSpec``.

``PlayerView`` is what a seat may see; ``GAME`` is the game's ``GameSpec``; ``make_agent(name,
seed)`` builds a bot by registry name (``agents.registry``).

| module | what |
|---|---|
| ``view`` | ``PlayerView``: the seat's redacted copy of the position, ``view_for`` |
| ``handtools`` | hand arithmetic the heuristic bots share |
| ``greedy`` | ``greedy``: the simplest sound play |
| ``strong`` | ``strong@v1``: card values against what is still out, claims weighed |
| ``strong_tuned`` | ``strong@v2``: v1's judgements reworked, with constants tuned by CMA-ES |
| ``batch_bots`` | ``greedy``, ``strong@v1``, ``strong@v2`` on a ``BatchGame``'s lanes: in C on the compiled core, else in Python |
| ``sampler`` | hidden worlds consistent with a seat's view |
| ``beliefs`` | worlds resampled toward what real opponents hold (``search@v3`` on) |
| ``search`` | ``search@v1``: determinized flat Monte Carlo search guarding strong's move |
| ``search_adaptive`` | ``search@v2`` to ``search@v5``: wider candidates, worlds spent where a decision is close |
| ``search_prior`` | ``search@v6``: ``search@v5``'s search guarding a network's move instead of strong's |
| ``rollouts`` | the search's rollouts on the compiled core: many sampled worlds played out per call |
| ``search_oracle`` | ``search-oracle``: the hidden-state diagnostic (refused by the harness unless allowed) |
| ``openspiel_ismcts`` | ``openspiel-ismcts``: OpenSpiel's information-set MCTS at the table (the ``[openspiel]`` extra) |
| ``feature_agent`` | ``bc:PATH``: a policy on the ``continental_v1`` observation |
| ``text`` | the game's part of a text agent's prompt (``agents.text``) |
| ``chance`` | the stock's draws as chance events, with a frozen value, for the harness's control variates |
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents.contract.view import PlayerView, view_for
from agents.registry import offered, versioned_name
from agents.spec import GameSpec, digest


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
    from continental_env.contract.game import Game

    return Game.new(_contract_rules(options), players, seed=seed)


def _contract_check(players: int, options: dict[str, Any]) -> None:
    _contract_rules(options).check_players(players)


def _contract_view(game: Any, seat: int) -> Any:
    return PlayerView(game, seat)


def _contract_render(game: Any, seat: int | None, names: Any) -> str:
    from continental_env.contract.render import render_table

    return render_table(game, seat=seat, names=names)


def _contract_harness_options(
    options: dict[str, Any], preset: Any, rounds: Sequence[int] | None
) -> tuple[dict[str, Any], Any]:
    """The contract game's options are its rules (``{"rules": ...}``): ``preset`` and ``rounds``
    are the defaults of its ``preset`` and ``rounds`` options; ValueError for another option."""
    from continental_env.rules import resolve_rules

    options = dict(options)
    rules = resolve_rules(options.pop("preset", None) or preset)
    chosen = options.pop("rounds", None) or rounds
    if chosen:
        rules = rules.with_rounds(tuple(chosen))
    if options:
        raise ValueError(f"unknown options for the contract game: {sorted(options)}")
    return {"rules": rules.to_dict()}, rules


def _contract_chance(game: Any) -> Any:
    """The control-variate recorder of one game (``agents.contract.chance``)."""
    from agents.contract.chance import attach

    return attach(game)


def _contract_round_tick(r: int) -> str:
    """``3\\n1T+1R``: the round and its contract (T trios, R runs), for plots."""
    from continental_env.rules import contract_for_round

    t, k = contract_for_round(r)
    return f"{r}\n" + "+".join(x for x in (f"{t}T" * bool(t), f"{k}R" * bool(k)) if x)


def _contract_players() -> dict[str, tuple[int, int]]:
    from continental_env.rules import PRESETS

    return {name: (r.min_players, r.max_players) for name, r in PRESETS.items()}


def _contract_batch(num_games: int, players: int, game: Any) -> Any:
    """A compiled batch of ``num_games`` tables with ``game``'s rules (``BatchGame``), or None
    where the compiled core or its bots are not built."""
    from agents.contract.rollouts import compiled_available

    if not compiled_available():
        return None
    from continental_env.batch import BatchGame

    batch = BatchGame(num_games, players, game.setup.rules, backend="compiled")
    batch.reset()
    return batch


GAME = GameSpec(
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
    version_of=versioned_name,
    rules_options=_contract_harness_options,
    rules_key="preset",
    segment_tick=_contract_round_tick,
    segment_axis="round (contract: T trios, R runs)",
    rule_presets=True,
    new_batch=_contract_batch,
    # continental_env.batch.BOT_NAMES, written out: importing the batch here would load numpy
    # and the environment for every command (tests/test_evaluate_batched.py checks they agree)
    batch_bots=("greedy", "strong@v1", "strong@v2"),
    chance_recorder=_contract_chance,
)
make_agent = GAME.make_agent  # (name, seed=None): a contract bot by registry name
AGENT_NAMES = GAME.agent_names

__all__ = ["AGENT_NAMES", "GAME", "PlayerView", "make_agent", "view_for"]
