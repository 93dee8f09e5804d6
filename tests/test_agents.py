"""The bots: legal in every preset and table size, blind to hidden cards, and their behaviours.

Positions are built with ``position(...)`` from card strings; every card of the round's decks
that a test does not place goes to the stock, so positions always conserve cards.
"""

from __future__ import annotations

import random
import sys
import types
from collections import Counter
from dataclasses import replace
from typing import Any

import pytest

from agents import AGENT_NAMES, make_agent
from agents.contract.view import PlayerView
from continental_env.cards import JOKER, NUM_NATURALS, card_to_str, parse_cards
from continental_env.contract.game import (
    CLAIM,
    CLOSE,
    DISCARD_BASE,
    DRAW,
    LAYDOWN,
    PASS,
    TAKE,
    Game,
)
from continental_env.rules import PRESETS

BOTS = ("random", "greedy", "strong")


def position(
    hands: list[str],
    *,
    preset: str = "continental",
    round_number: int = 1,
    phase: str = "play",
    current: int = 0,
    asked: int | None = None,
    discard: str = "",
    table: tuple[tuple[int, str, str], ...] = (),
    laid_down: list[bool] | None = None,
    known: list[str] | None = None,
    turn: int = 0,
) -> Game:
    """A game in a hand-made position (hands as card texts, the rest of the decks in the stock)."""
    rules = PRESETS[preset]
    p = len(hands)
    decks = rules.decks(p, round_number)
    deck = Counter({c: decks for c in range(NUM_NATURALS)})
    deck[JOKER] = decks * rules.jokers_per_deck
    placed: Counter[int] = Counter()
    for text in [*hands, discard, *(c for _o, _k, c in table)]:
        placed.update(parse_cards(text))
    rest = deck - placed
    assert not placed - deck, "the position uses more cards than the decks hold"
    strs = [card_to_str(c) for c in sorted(rest.elements())]
    owners = {o for o, _k, _c in table}
    state: dict[str, Any] = {
        "preset": preset,
        "num_players": p,
        "round": round_number,
        "dealer": (current - 1) % p,
        "current": current,
        "phase": phase,
        "asked": asked,
        "claim_queue": [] if asked is None else [asked],
        "hands": [[card_to_str(c) for c in parse_cards(h)] for h in hands],
        "stock": strs,
        "discard": [card_to_str(c) for c in parse_cards(discard)],
        "table": [
            {"owner": o, "kind": k, "cards": [card_to_str(c) for c in parse_cards(t)]}
            for o, k, t in table
        ],
        "laid_down": laid_down if laid_down is not None else [s in owners for s in range(p)],
        "scores": [0] * p,
        "turn": turn,
        "known": [[card_to_str(c) for c in parse_cards(k)] for k in (known or [""] * p)],
        "rng": _rng_field(),
    }
    return Game.from_dict(state)


def _rng_field() -> list[Any]:
    version, st, gauss = random.Random(7).getstate()
    return [version, list(st), gauss]


def decide(name: str, game: Game, seed: int = 0) -> int:
    return make_agent(name, seed).act(PlayerView(game, game.actor))


def text_of(name: str, game: Game) -> str:
    return game.action_to_str(decide(name, game))


# ----------------------------------------------------------------------------- registry


def test_registry_builds_every_bot_and_refuses_unknown_names() -> None:
    for name in AGENT_NAMES:
        assert make_agent(name, 1).name == name
    with pytest.raises(ValueError, match="unknown agent"):
        make_agent("nope", 0)


def test_registry_ppo_hook_calls_load_agent(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    fake = types.ModuleType("agents.bots.ppo_agent")
    fake.load_agent = lambda path, seed: calls.append((path, seed)) or "loaded"  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "agents.bots.ppo_agent", fake)
    assert make_agent("ppo:models/x.zip", 5) == "loaded"
    assert calls == [("models/x.zip", 5)]


# ----------------------------------------------------------------------------- legality


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_every_bot_always_returns_a_legal_action(preset: str) -> None:
    # Short rounds keep random play cheap; every round's contract still comes up.
    rules = replace(PRESETS[preset], max_turns_per_round=40)
    for players in range(2, 7):
        mix = [BOTS[(players + i) % 3] for i in range(players)]
        game = Game.new(rules, players, seed=players)
        bots = [make_agent(name, seat) for seat, name in enumerate(mix)]
        while not game.is_over:
            seat = game.actor
            view = PlayerView(game, seat)
            action = bots[seat].act(view)
            assert action in view.legal_actions, (preset, players, mix[seat], action)
            game.apply(action)


def test_random_bot_uses_only_its_own_generator() -> None:
    game = Game.new("continental", 3, seed=3)
    game.apply(DRAW)  # a claim window or the play step: several legal actions either way
    while len(game.legal_actions()) < 3:
        game.apply(game.legal_actions()[-1])
    view = PlayerView(game, game.actor)
    random.seed(1)
    first = [make_agent("random", 9).act(view) for _ in range(5)]
    random.seed(2)
    second = [make_agent("random", 9).act(view) for _ in range(5)]
    assert first == second
    bot = make_agent("random", random.Random(4))
    assert {bot.act(view) for _ in range(60)} == set(view.legal_actions)


# ----------------------------------------------------------------------------- no cheating


def _hide_differently(game: Game, seat: int, rng: random.Random) -> Game:
    """The same game with the cards ``seat`` cannot see shuffled among the places it can't see."""
    data = game.to_dict()
    pool = list(data["stock"])
    keep = []
    for s, hand in enumerate(data["hands"]):
        if s == seat:
            keep.append(list(hand))
            continue
        known = Counter(data["known"][s])
        mine = []
        for c in hand:
            if known[c]:
                known[c] -= 1
                mine.append(c)
            else:
                pool.append(c)
        keep.append(mine)
    rng.shuffle(pool)
    for s, hand in enumerate(data["hands"]):
        if s != seat:
            n = len(hand) - len(keep[s])
            keep[s] += pool[:n]
            del pool[:n]
    data["hands"] = keep
    data["stock"] = pool
    data["rng"] = _rng_field()
    return Game.from_dict(data)


@pytest.mark.parametrize("preset", sorted(PRESETS))
def test_no_bot_decision_depends_on_hidden_cards(preset: str) -> None:
    rules = replace(PRESETS[preset], max_turns_per_round=60, rounds=(1, 2, 6))
    rng = random.Random(11)
    compared = changed = 0
    for game_seed in range(2):
        game = Game.new(rules, 4, seed=game_seed)
        players = [make_agent(n, s) for s, n in enumerate(("strong", "greedy", "strong", "random"))]
        step = 0
        while not game.is_over:
            seat = game.actor
            if step % 3 == 0:
                other = _hide_differently(game, seat, rng)
                changed += other.to_dict()["hands"] != game.to_dict()["hands"]
                for name in BOTS:
                    assert decide(name, game, step) == decide(name, other, step), (name, step)
                    compared += 1
            game.apply(players[seat].act(PlayerView(game, seat)))
            step += 1
    assert compared > 300 and changed > 100


# ----------------------------------------------------------------------------- greedy


def test_greedy_lays_down_as_soon_as_it_can() -> None:
    game = position(["7H 7S 7D 9C 9D JK 2S 4H", "AC 2C 3C 4C 5C 6C 8C"])
    assert decide("greedy", game) == LAYDOWN


def test_greedy_never_claims_a_useless_card_but_claims_the_completing_one() -> None:
    hands = ["7H 7S 9C 9D 2S 4H KC", "AC 2C 3C 4C 5C 6C 8C"]
    useless = position(hands, phase="claim", current=1, asked=0, discard="5D")
    assert decide("greedy", useless) == PASS
    helps = position(hands, phase="claim", current=1, asked=0, discard="7D")  # pair -> trio only
    assert decide("greedy", helps) == PASS
    hands[0] = "7H 7S 9C 9D 9S 4H KC"
    completes = position(hands, phase="claim", current=1, asked=0, discard="7D")
    assert decide("greedy", completes) == CLAIM


def test_greedy_takes_only_a_discard_that_starts_a_meld() -> None:
    hands = ["7H 9S 2C 4D JH QS KC", "AC 2C 3C 4C 5C 6C 8C"]
    assert decide("greedy", position(hands, phase="draw", discard="7C")) == TAKE
    assert decide("greedy", position(hands, phase="draw", discard="5H")) == DRAW


def test_greedy_discards_its_highest_unmatched_card() -> None:
    game = position(["7H 7S 9C 9D 2S 4H KC JK", "AC 2C 3C 4C 5C 6C 8C"])
    assert text_of("greedy", game) == "discard KC"


def test_greedy_lays_off_then_closes() -> None:
    table = ((0, "trio", "7H 7S 7D"), (0, "trio", "9C 9D 9S"))
    game = position(["7C 4H", "AC 2C 3C 4C 5C 6C 8C"], table=table)
    assert text_of("greedy", game) == "layoff 7C 0"
    game.apply(decide("greedy", game))
    assert decide("greedy", game) == CLOSE


# ----------------------------------------------------------------------------- strong


def test_strong_closes_and_lays_off_everything() -> None:
    table = ((0, "trio", "7H 7S 7D"), (1, "run", "3C 4C 5C 6C"))
    game = position(["7C 2C 8C 4H", "AC 9C TC JC QC KC 8D"], round_number=2, table=table)
    seen = []
    while game.phase == "play" and game.current == 0:
        a = decide("strong", game)
        seen.append(game.action_to_str(a))
        game.apply(a)
    # 7C goes on the run, not the trio, so that 8C fits after it; then 2C; then close.
    assert seen[0] == "layoff 7C 1"
    assert sorted(seen[1:3]) == ["layoff 2C 1", "layoff 8C 1"]
    assert seen[-1] == "close"


def test_strong_keeps_jokers_and_claims_the_completing_card() -> None:
    game = position(["JK 7H 7S 9C 9D 2S KC 5D", "AC 2C 3C 4C 5C 6C 8C"])
    assert text_of("strong", game) == "discard KC"
    completes = position(
        ["7H 7S 9C 9D 9S 4H KC", "AC 2C 3C 4C 5C 6C 8C"],
        phase="claim", current=1, asked=0, discard="7D",
    )  # fmt: skip
    assert decide("strong", completes) == CLAIM


def test_strong_weighs_the_penalty_card() -> None:
    # A long hand gains little from a card that only helps: the penalty card is not worth it.
    long_hand = "7H 7S 2C 5D 9H JS KD 3H QC TD 8S AD 4C"
    game = position(
        [long_hand, "AC 2D 3C 4D 5C 6D 8C"], phase="claim", current=1, asked=0, discard="7D"
    )
    assert decide("strong", game) == PASS


def test_strong_avoids_feeding_the_next_player() -> None:
    # Seat 1 (next) is known to have taken two queens: strong keeps its unmatched queen.
    hand = "7H 7S 9C 9D QD 5C 3S 4H"
    plain = position([hand, "QH QS 2C 3C 4C 5D 6C"])
    assert text_of("strong", plain) == "discard QD"
    fed = position([hand, "QH QS 2C 3C 4C 5D 6C"], known=["", "QH QS"])
    assert text_of("strong", fed) != "discard QD"


def test_strong_beats_greedy_on_a_few_deals() -> None:
    totals = {"strong": 0, "greedy": 0}
    for seed in range(3):
        game = Game.new(replace(PRESETS["continental"], rounds=(1, 4)), 2, seed=seed)
        for seats in (("strong", "greedy"), ("greedy", "strong")):
            g = game.clone()
            bots = [make_agent(n, i) for i, n in enumerate(seats)]
            while not g.is_over:
                g.apply(bots[g.actor].act(PlayerView(g, g.actor)))
            for s, n in enumerate(seats):
                totals[n] += g.scores[s]
    assert totals["strong"] < totals["greedy"]


def test_discard_ids_are_in_the_discard_range() -> None:
    game = position(["7H 7S 9C 9D 2S 4H KC JK", "AC 2C 3C 4C 5C 6C 8C"])
    for name in BOTS:
        a = decide(name, game)
        assert a in game.legal_actions()
        if name != "random":
            assert DISCARD_BASE <= a < DISCARD_BASE + 53


def test_view_observation_equals_the_observation_of_a_game_with_hidden_cards_removed() -> None:
    # PlayerView.observation() encodes the live game; that is safe only because the encoder reads
    # nothing hidden. Compare with a copy whose opponents' hands and stock are emptied.
    import numpy as np

    from agents.contract.view import _redacted
    from continental_env.contract.aec import encode_observation, observation_layout

    game = Game.new("continental", 4, seed=5)
    rng = random.Random(5)
    layout = observation_layout(4)
    for _ in range(400):
        if game.is_over:
            break
        seat = game.actor
        view = PlayerView(game, seat)
        hidden_free = encode_observation(_redacted(game, seat), seat, layout)
        assert np.array_equal(view.observation(), hidden_free)
        game.apply(rng.choice(game.legal_actions()))


def test_every_name_the_agents_package_exports_exists() -> None:
    import agents

    missing = [name for name in agents.__all__ if not hasattr(agents, name)]
    assert not missing
    namespace: dict = {}
    exec("from agents import *", namespace)  # fails on a stale __all__ entry
    assert "make_agent" in namespace


def test_every_game_view_offers_the_one_view_protocol() -> None:
    """``agents.bots.base.View``: the members every game's view has, read on a live view of each
    game; a view missing one is caught (the control)."""
    from agents.bots.view import View
    from agents.games import game_names, game_spec

    members = [n for n in View.__annotations__] + ["discard_top", "hand_cards", "action_to_str"]
    for name in game_names():
        spec = game_spec(name)
        game = spec.new_game(4, 3, {})
        view = spec.view(game, game.actor)
        absent = [m for m in members if not hasattr(view, m)]
        assert not absent, f"{name}: {absent}"
        assert view.legal_actions and view.action_to_str(view.legal_actions[0])

    class Partial:
        seat = 0

    assert [m for m in members if not hasattr(Partial(), m)]
