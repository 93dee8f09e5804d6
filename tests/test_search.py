"""The search bot: registry, pruning, determinism, and decisions from the view alone."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from agents import make_agent
from agents.base import PlayerView
from agents.search import DEFAULT_SIMS, SearchAgent, fast_policy
from continental_env.game import CLOSE, DISCARD_BASE, DRAW, TAKE, Game
from continental_env.rules import PRESETS
from tests.test_agents import _hide_differently, position

RULES = replace(PRESETS["continental"], max_turns_per_round=40, rounds=(1, 4))


def _states(seed: int, every: int):
    game = Game.new(RULES, 4, seed=seed)
    bots = [make_agent("strong", s) for s in range(4)]
    step = 0
    while not game.is_over:
        if step % every == 0:
            yield game.clone()
        game.apply(bots[game.actor].act(PlayerView(game, game.actor)))
        step += 1


def test_registry_and_budget() -> None:
    assert make_agent("search", 1).sims == DEFAULT_SIMS
    bot = make_agent("search:3", 1)
    assert isinstance(bot, SearchAgent) and bot.sims == 3 and bot.name == "search:3"
    assert make_agent("search:2:greedy", 1).rollout == "greedy"
    with pytest.raises(ValueError, match="budget"):
        make_agent("search:x", 1)
    with pytest.raises(ValueError, match="at least 1"):
        make_agent("search:0", 1)
    with pytest.raises(ValueError, match="rollout"):
        make_agent("search:2:nope", 1)


def test_candidates_cover_structural_choices_and_trivial_decisions_cost_nothing() -> None:
    bot = SearchAgent(0, sims=1)
    seen_draw = seen_single = 0
    for game in _states(seed=1, every=1):
        view = PlayerView(game, game.actor)
        cands = bot.candidates(view)
        assert cands and set(cands) <= set(view.legal_actions)
        if len(view.legal_actions) == 1:
            before = bot.decisions
            assert bot.act(view) == view.legal_actions[0] and bot.decisions == before
            seen_single += 1
        if view.phase == "draw" and TAKE in view.legal_actions:
            assert {DRAW, TAKE} <= set(cands)
            seen_draw += 1
        if CLOSE in view.legal_actions:
            assert cands == [CLOSE]
        discards = [a for a in cands if DISCARD_BASE <= a < DISCARD_BASE + 53]
        assert len(discards) <= 3
        if game.moves > 120:
            break
    assert seen_draw > 5 and seen_single >= 1


def test_search_is_deterministic_for_a_seed_and_budget() -> None:
    states = [g for g, _ in zip(_states(seed=2, every=7), range(8), strict=False)]
    runs = []
    for _ in range(2):
        bot = make_agent("search:2", 5)
        runs.append([bot.act(PlayerView(g, g.actor)) for g in states])
    assert runs[0] == runs[1]


class _Cheater(SearchAgent):
    """Positive control: rolls out the live game behind the view (the real hidden cards)."""

    def _worlds(self, view, rng):  # type: ignore[no-untyped-def]
        return [view._game.clone() for _ in range(self.sims)]


def test_search_decision_does_not_depend_on_hidden_cards() -> None:
    rng = random.Random(4)
    compared = cheater_changed = 0
    for game in _states(seed=3, every=4):
        view = PlayerView(game, game.actor)
        if len(SearchAgent(0, 1).candidates(view)) < 2:
            continue
        other = _hide_differently(game, game.actor, rng)
        honest = [SearchAgent(7, 2).act(PlayerView(g, g.actor)) for g in (game, other)]
        assert honest[0] == honest[1]
        cheat = [_Cheater(7, 2).act(PlayerView(g, g.actor)) for g in (game, other)]
        cheater_changed += cheat[0] != cheat[1]
        compared += 1
        if compared >= 25:
            break
    assert compared >= 20
    assert cheater_changed >= 1  # the comparison would catch a bot that saw the hidden cards


def test_fast_rollout_policy_plays_legal_actions_to_the_end() -> None:
    game = Game.new(RULES, 4, seed=9)
    while not game.is_over:
        legal = game.legal_actions()
        action = legal[0] if len(legal) == 1 else fast_policy(game)
        assert action in legal
        game.apply(action)


def test_search_closes_when_it_can() -> None:
    table = ((0, "trio", "7H 7S 7D"), (0, "trio", "9C 9D 9S"))
    game = position(["7C 4H", "AC 2C 3C 4C 5C 6C 8C"], table=table)
    bot = make_agent("search:2", 0)
    game.apply(bot.act(PlayerView(game, 0)))
    assert bot.act(PlayerView(game, 0)) == CLOSE
