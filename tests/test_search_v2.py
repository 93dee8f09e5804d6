"""``search@v2``: names and settings, the wider candidates, the sequential guard, and decisions
from the view alone (with a positive control that sees the hidden cards)."""

from __future__ import annotations

import random
from dataclasses import replace
from typing import Any

import pytest

from agents import make_agent
from agents.contract.search import SearchAgent
from agents.contract.search_adaptive import SearchV2Agent, Settings
from agents.contract.strong import StrongAgent
from agents.contract.view import PlayerView
from continental_env.contract.game import DISCARD_BASE, Game
from continental_env.rules import PRESETS
from tests.test_agents import _hide_differently

RULES = replace(PRESETS["continental"], max_turns_per_round=40, rounds=(1, 4))
SMALL = Settings(min_worlds=2, max_worlds=4, screen=2)  # cheap settings for the tests


def _states(seed: int):
    game = Game.new(RULES, 4, seed=seed)
    bots = [StrongAgent(s) for s in range(4)]
    while not game.is_over:
        yield game.clone()
        game.apply(bots[game.actor].act(PlayerView(game, game.actor)))


def _opponent_down(view: PlayerView) -> bool:
    return any(d for s, d in enumerate(view.laid_down) if s != view.seat)


def _discard_states(seeds: tuple[int, ...], danger: bool):
    """Discard decisions (strong discards) with or without an opponent laid down."""
    strong = StrongAgent(0)
    for seed in seeds:
        for game in _states(seed):
            view = PlayerView(game, game.actor)
            if game.phase != "play" or len(view.legal_actions) < 2:
                continue
            move = strong.act(view)
            if DISCARD_BASE <= move < DISCARD_BASE + 53 and _opponent_down(view) == danger:
                yield game


def test_names_settings_and_refusals() -> None:
    frozen, current, family = (make_agent(n, 3) for n in ("search@v2", "search", "search-v2"))
    assert all(isinstance(b, SearchV2Agent) for b in (frozen, current, family))
    assert frozen.settings == family.settings == Settings()
    assert current.settings == make_agent("search@v5", 3).settings
    assert current.settings == Settings(belief=32, history=1, max_worlds=48)
    assert (frozen.name, current.name, family.name) == ("search@v2", "search", "search-v2")
    eight = make_agent("search@v2:8", 3)
    assert eight.settings.max_worlds == 8 and eight.settings.min_worlds == 4
    two = make_agent("search:2", 3)
    assert (two.settings.max_worlds, two.settings.min_worlds, two.settings.screen) == (2, 2, 2)
    custom = make_agent("search-v2:discards=2:t_min=2.5:danger=0", 3)
    assert (custom.settings.discards, custom.settings.t_min, custom.settings.danger) == (2, 2.5, 0)
    for bad, words in (
        ("search@v2:x", "integer"),
        ("search@v2:0", "at least 1"),
        ("search@v2:4:fast", "search@v1:N:ROLLOUT:RULE"),
        ("search-v2:nope=1", "K=V with K one of"),
        ("search-v2:t_min=high", "t_min needs a number"),
        ("search-v2:max_worlds=2:min_worlds=4", "max_worlds"),
        ("search-v2:discards=0", "discards must be at least 1"),
    ):
        with pytest.raises(ValueError, match=words):
            make_agent(bad, 0)


def test_one_world_plays_strong_v1_move_for_move() -> None:
    bot, strong = make_agent("search@v2:1", 0), StrongAgent(0)
    for n, game in enumerate(_states(5)):
        view = PlayerView(game, game.actor)
        assert bot.act(view) == strong.act(view)
        if n > 300:
            break
    assert bot.rollouts == 0


def test_discards_are_searched_once_an_opponent_is_down_and_only_then() -> None:
    bot, v1 = SearchV2Agent(0, SMALL), SearchAgent(0, 1)
    strong = StrongAgent(0)
    seen = 0
    for game in _discard_states((2, 3), danger=True):
        view = PlayerView(game, game.actor)
        cands = bot.candidates(view)
        discards = [a for a in view.legal_actions if DISCARD_BASE <= a < DISCARD_BASE + 52]
        assert cands[0] == strong.act(view) and len(set(cands)) == len(cands)
        assert set(cands) <= set(view.legal_actions)
        # strong's ranked discards, and the highest-point card in hand
        top = max(discards, key=lambda a: (view.points[a - DISCARD_BASE], -a))
        assert top in cands
        assert len([a for a in cands if a in discards]) >= min(len(discards), 2)
        seen += 1
        if seen >= 10:
            break
    assert seen >= 10
    calm = 0
    for game in _discard_states((2, 3), danger=False):
        view = PlayerView(game, game.actor)
        assert bot.candidates(view) == v1.candidates(view)  # nobody down: v1's questions only
        calm += 1
        if calm >= 10:
            break
    assert calm >= 10
    always = SearchV2Agent(0, replace(SMALL, danger=0))
    game = next(_discard_states((2,), danger=False))
    assert len(always.candidates(PlayerView(game, game.actor))) >= 2


def test_the_guard_and_the_sequential_budget() -> None:
    bot = SearchV2Agent(0, Settings(min_worlds=4, max_worlds=16, margin=1.0, t_min=2.0))
    base = [10.0, -20.0, 35.0, 0.0]
    clear = [v - 8.0 + d for v, d in zip(base, (0.5, -0.5, 0.3, -0.3), strict=True)]
    lucky = [v + d for v, d in zip(base, (-60.0, 20.0, 15.0, 5.0), strict=True)]
    assert bot.choose([base, clear]) == 1
    assert bot.choose([base, lucky]) == 0  # ahead on average through one world: noise
    assert bot._undecided([base, lucky]) and not bot._undecided([base, clear])
    # Of two alternatives that pass the guard, the larger gain.
    larger = [v - 4.0 for v in clear]
    assert bot.choose([base, clear, larger]) == 2
    assert bot.choose([base, list(base)]) == 0


class _Counting(SearchV2Agent):
    """Counts the worlds each searched decision played."""

    def evaluate(self, view, cands, rng):  # type: ignore[no-untyped-def]
        values = super().evaluate(view, cands, rng)
        self.per_decision = [*getattr(self, "per_decision", []), len(values[0])]
        return values


def test_worlds_are_spent_on_close_decisions_only() -> None:
    bot = _Counting(1, Settings(min_worlds=4, max_worlds=12, screen=2))
    for n, game in enumerate(_discard_states((4,), danger=True)):
        bot.act(PlayerView(game, game.actor))
        if n >= 12:
            break
    counts = bot.per_decision
    assert counts and set(counts) <= {2, 4, 8, 12}
    assert bot.worlds_used == sum(counts)


def test_search_v2_is_deterministic_for_a_seed() -> None:
    states = [g for g, _ in zip(_discard_states((6,), danger=True), range(5), strict=False)]
    runs = [[SearchV2Agent(9, SMALL).act(PlayerView(g, g.actor)) for g in states] for _ in range(2)]
    assert runs[0] == runs[1]


class LiveWorlds:
    """Positive control for a search bot: its worlds are the live game (the real hidden cards).
    Mixed in before the bot's class; the first argument is the live game."""

    def __init__(self, live: Game, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.live = live

    def _sample(self, info, rng, own_turn):  # type: ignore[no-untyped-def]
        return self.live.clone()


class _Cheater(LiveWorlds, SearchV2Agent):
    """``search-v2`` whose worlds are the live game."""


def test_decisions_do_not_depend_on_hidden_cards() -> None:
    rng = random.Random(4)
    settings = replace(SMALL, margin=-1e9, t_min=-1e9)  # play the best mean: touchy on purpose
    probe = SearchV2Agent(0, SMALL)
    compared = cheater_changed = 0
    for seed in (3, 4, 5):
        for game in _states(seed):
            view = PlayerView(game, game.actor)
            if len(view.legal_actions) < 2 or len(probe.candidates(view)) < 2:
                continue
            other = _hide_differently(game, game.actor, rng)
            # belief: search@v3's worlds; history: worlds weighed by the public log too
            for s in (
                SMALL,
                settings,
                replace(settings, belief=8),
                replace(settings, belief=8, history=1),
            ):
                honest = [SearchV2Agent(7, s).act(PlayerView(g, g.actor)) for g in (game, other)]
                assert honest[0] == honest[1]
            cheat = [_Cheater(g, 7, settings).act(PlayerView(g, g.actor)) for g in (game, other)]
            cheater_changed += cheat[0] != cheat[1]
            compared += 1
            if compared >= 12:
                break
        if compared >= 12:
            break
    assert compared >= 12
    assert cheater_changed >= 1  # the comparison would catch a bot that saw the hidden cards


def test_the_v2_oracle_rolls_out_the_real_hands_and_is_refused_unless_allowed() -> None:
    from agents.evaluate import evaluate

    game = Game.new("continental", 3, seed=4)
    bot = make_agent("search-oracle-v2:4", 1)
    assert bot.settings.max_worlds == 4 and bot.reads_hidden_state
    assert_oracle_worlds(bot, game)
    with pytest.raises(ValueError, match="reads the true hidden state"):
        evaluate(["search-oracle-v2:2", "strong"], players=2, games=1, rounds=[1])


def assert_oracle_worlds(bot: Any, game: Game) -> None:
    """An oracle search's worlds: refused before ``attach``, then the live game's hands with
    only the stock order redrawn (the positive control of what a view alone cannot give)."""
    from agents.contract.sampler import PublicInfo

    info = PublicInfo.from_view(PlayerView(game, game.actor))
    with pytest.raises(RuntimeError, match="attach"):  # a view alone holds nothing hidden
        bot._sample(info, random.Random(0), None)
    bot.attach(game)
    rng = random.Random(0)
    worlds = [bot._sample(info, rng, None) for _ in range(3)]
    for w in worlds:  # positive control: the hidden hands are the real ones
        assert w.state.hands == game.state.hands
        assert sorted(w.state.stock) == sorted(game.state.stock)
    assert len({tuple(w.state.stock) for w in worlds}) == 3  # ... the stock order is not
