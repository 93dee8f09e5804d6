"""The ``search@v1`` bot: registry, pruning, determinism, and decisions from the view alone."""

from __future__ import annotations

import random
from dataclasses import replace

import pytest

from agents import make_agent
from agents.contract.search import DEFAULT_SIMS, MARGIN, SearchAgent, fast_policy
from agents.contract.strong import StrongAgent
from agents.contract.view import PlayerView
from continental_env.contract.game import CLAIM, CLOSE, DRAW, LAYDOWN, PASS, TAKE, Game
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
    bot = make_agent("search@v1", 1)
    assert bot.sims == DEFAULT_SIMS and bot.rollout == "strong" and bot.rule == "guard"
    bot = make_agent("search@v1:3", 1)
    assert isinstance(bot, SearchAgent) and bot.sims == 3 and bot.name == "search@v1:3"
    assert make_agent("search@v1:2:greedy", 1).rollout == "greedy"
    bot = make_agent("search@v1:2:fast:argmin", 1)
    assert (bot.rollout, bot.rule, bot.name) == ("fast", "argmin", "search@v1:2:fast:argmin")
    with pytest.raises(ValueError, match="budget"):
        make_agent("search@v1:x", 1)
    with pytest.raises(ValueError, match="at least 1"):
        make_agent("search@v1:0", 1)
    with pytest.raises(ValueError, match="rollout"):
        make_agent("search@v1:2:nope", 1)
    with pytest.raises(ValueError, match="decision rule"):
        make_agent("search@v1:2:strong:best", 1)
    with pytest.raises(ValueError, match="too many"):
        make_agent("search@v1:2:strong:guard:x", 1)


def test_candidates_put_strong_first_and_trivial_decisions_cost_nothing() -> None:
    bot = SearchAgent(0, sims=1)
    strong = StrongAgent(0)

    def no_worlds(view, rng):  # type: ignore[no-untyped-def]
        raise AssertionError("a decision with one candidate sampled worlds")

    bot._worlds = no_worlds  # type: ignore[method-assign]
    kinds = {"draw": 0, "claim": 0, "lay down": 0}
    seen_single = 0
    for game in _states(seed=1, every=1):
        view = PlayerView(game, game.actor)
        cands = bot.candidates(view)
        assert cands and set(cands) <= set(view.legal_actions) and len(set(cands)) == len(cands)
        assert cands[0] == strong.act(view)
        if len(cands) == 1:
            before = bot.decisions
            assert bot.act(view) == cands[0] and bot.decisions == before
            seen_single += len(view.legal_actions) == 1
        elif view.phase == "draw":
            assert set(cands) == {DRAW, TAKE}
            kinds["draw"] += 1
        elif view.phase == "claim":
            assert set(cands) == {CLAIM, PASS}
            kinds["claim"] += 1
        else:
            assert LAYDOWN in cands and len(cands) == 2
            kinds["lay down"] += 1
        if CLOSE in view.legal_actions:
            assert cands == [CLOSE]
        if min(kinds.values()) >= 1 and game.moves > 150:
            break
    assert min(kinds.values()) >= 1 and seen_single >= 1, kinds


def test_one_world_plays_exactly_as_strong_without_searching() -> None:
    bot, strong = SearchAgent(3, sims=1), StrongAgent(0)
    for game in _states(seed=6, every=3):
        view = PlayerView(game, game.actor)
        assert bot.act(view) == strong.act(view)
    assert bot.rollouts == 0 and bot.decisions == 0


def test_guard_rule_keeps_strong_unless_an_alternative_is_clearly_better() -> None:
    guard = SearchAgent(0, sims=4)
    argmin = SearchAgent(0, sims=4, rule="argmin")
    strong_move = [10.0, -5.0, 20.0, 0.0]
    # Lower is better. Clearly better in every world: taken.
    better = [v - 2 * MARGIN - 1 for v in strong_move]
    assert guard.choose([strong_move, better]) == 1
    # Better on average but only through one lucky world: too noisy for the guard.
    lucky = [10.0, -5.0, 20.0, -40.0]
    assert guard.choose([strong_move, lucky]) == 0 and argmin.choose([strong_move, lucky]) == 1
    # Better by less than the margin: strong's move stays.
    slight = [v - MARGIN / 2 for v in strong_move]
    assert guard.choose([strong_move, slight]) == 0 and argmin.choose([strong_move, slight]) == 1
    # Of two clear improvements, the larger.
    assert guard.choose([strong_move, better, [v - 10 for v in strong_move]]) == 2
    # Ties go to strong's move.
    assert argmin.choose([strong_move, list(strong_move)]) == 0


def test_search_is_deterministic_for_a_seed_and_budget() -> None:
    states = [g for g, _ in zip(_searched_states((2,)), range(6), strict=False)]
    runs = []
    for _ in range(2):
        bot = make_agent("search@v1:2", 5)
        runs.append([bot.act(PlayerView(g, g.actor)) for g in states])
    assert runs[0] == runs[1]


class _Cheater(SearchAgent):
    """Positive control: rolls out the live game (the real hidden cards), handed to it aside
    from the view (a view holds no reference to the game)."""

    def __init__(self, live: Game, *args, **kwargs) -> None:  # type: ignore[no-untyped-def]
        super().__init__(*args, **kwargs)
        self.live = live

    def _worlds(self, view, rng):  # type: ignore[no-untyped-def]
        return [self.live.clone() for _ in range(self.sims)]


def _searched_states(seeds: tuple[int, ...]):
    """States where the search has two or more candidates to compare."""
    probe = SearchAgent(0, 1)
    for seed in seeds:
        for game in _states(seed=seed, every=1):
            if len(probe.candidates(PlayerView(game, game.actor))) >= 2:
                yield game


def test_search_decision_does_not_depend_on_hidden_cards() -> None:
    rng = random.Random(4)
    compared = cheater_changed = 0
    for game in _searched_states((3, 4, 5)):
        other = _hide_differently(game, game.actor, rng)
        # The default rule and the touchier argmin rule (it follows any change in the rollouts).
        for rule in ("guard", "argmin"):
            honest = [
                SearchAgent(7, 2, rule=rule).act(PlayerView(g, g.actor)) for g in (game, other)
            ]
            assert honest[0] == honest[1]
        cheat = [
            _Cheater(g, 7, 2, rule="argmin").act(PlayerView(g, g.actor)) for g in (game, other)
        ]
        cheater_changed += cheat[0] != cheat[1]
        compared += 1
        if compared >= 12:
            break
    assert compared >= 12
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
    bot = make_agent("search@v1:2", 0)
    game.apply(bot.act(PlayerView(game, 0)))
    assert bot.act(PlayerView(game, 0)) == CLOSE


def _plan_by_full_scan(hand, unseen, trios, runs, rules):
    """``make_plan``'s choice without its lower-bound pruning: every (run, trio) combination of
    the same candidates is costed, and the first cheapest one (in enumeration order) is kept."""
    from itertools import combinations, combinations_with_replacement

    from agents.contract import strong as s

    plan = s.make_plan.__wrapped__(hand, unseen, trios, runs, rules)
    jh = 0.5 * unseen[s.JOKER]
    slot = [s._slot_cost(u + jh) for u in unseen]
    trio_cands = sorted(
        (max(0, 3 - sum(hand[c] for c in s.RANK_CARDS[r])) * s._slot_cost(
            sum(unseen[c] for c in s.RANK_CARDS[r]) + jh) - 0.01 * sum(hand[c] for c in s.RANK_CARDS[r]),
         r) for r in range(13)
    )[: trios + s.EXTRA_TRIO_CANDIDATES] if trios else []  # fmt: skip
    windows = s._run_windows(rules)
    run_cands = sorted(
        (sum(slot[c] for c in w if not hand[c]), w) for w in windows if any(hand[c] for c in w)
    )
    if len(run_cands) < runs:
        run_cands += sorted((sum(slot[c] for c in w), w) for w in windows)
    run_cands = run_cands[: runs + s.EXTRA_RUN_CANDIDATES] if runs else []
    costs = []
    for rc in combinations_with_replacement(run_cands, runs):
        uses: dict[int, int] = {}
        missing = []
        for _c, w in rc:
            for c in w:
                uses[c] = uses.get(c, 0) + 1
                extra = uses[c] - 1 - hand[c]
                if extra >= 0:
                    missing.append(s._slot_cost(max(0, unseen[c] - extra) + jh))
        for tc in combinations(range(len(trio_cands)), trios):
            slots = list(missing)
            for t in tc:
                r = trio_cands[t][1]
                have = sum(max(0, hand[c] - min(uses.get(c, 0), hand[c])) for c in s.RANK_CARDS[r])
                slots += [s._slot_cost(sum(unseen[c] for c in s.RANK_CARDS[r]) + jh)] * max(
                    0, 3 - have
                )
            slots.sort(reverse=True)
            costs.append(sum(slots[min(hand[s.JOKER], len(slots)) :]))
    return plan, min(costs)


def test_make_plan_pruning_keeps_the_cheapest_plan() -> None:
    # Hands and unseen counts from real positions of every contract: the pruned search must find
    # the cost of an exhaustive scan of the same candidates.
    from agents.contract.handtools import unseen_counts

    checked = 0
    for seed in (3, 4):
        game = Game.new(replace(PRESETS["continental"], max_turns_per_round=30), 4, seed=seed)
        bots = [make_agent("strong", s) for s in range(4)]
        while not game.is_over:
            view = PlayerView(game, game.actor)
            if game.state.moves % 7 == 0:
                trios, runs = view.contract
                plan, cheapest = _plan_by_full_scan(
                    tuple(view.hand), tuple(unseen_counts(view)), trios, runs, view.rules
                )
                assert plan.cost == pytest.approx(cheapest, abs=1e-9)
                checked += 1
            game.apply(bots[game.actor].act(view))
    assert checked > 100


def test_rollout_view_reads_the_world_in_place_and_decides_the_same() -> None:
    strong = StrongAgent(0)
    n = 0
    for game in _states(11, 3):
        if game.actor is None:
            continue
        seat = game.actor
        fast = PlayerView.in_world(game, seat)
        assert fast.hand is game.state.hands[seat]  # no copy
        assert strong.act(fast) == strong.act(PlayerView(game, seat))
        n += 1
    assert n > 50
