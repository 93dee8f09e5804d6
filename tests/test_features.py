"""The v1 observation's derived features (``continental_env.contract.features``).

* The distance to the contract against a brute-force reference built on the meld validator: the
  fewest cards whose addition makes ``melds.has_contract`` true, over every multiset of card types
  (small hands), and the card types that reduce it.
* No hidden information: states that differ only in the stock order, opponents' unseen cards and
  penalty cards give every seat identical features and identical public-log entries. Positive
  controls: a deliberately leaking encoder is caught by the same check, and changing the seat's
  own hand does change the features.
"""

from __future__ import annotations

import copy
import random
from itertools import combinations_with_replacement

import numpy as np
import pytest
from helpers import act, make_game
from test_hidden_info import hidden_cards, swap_hidden

from agents import make_agent
from agents.contract.view import PlayerView
from continental_env.cards import JOKER, NUM_TYPES, parse_cards, to_counts
from continental_env.contract.features import (
    HISTORY,
    KINDS,
    PublicLog,
    contract_distance,
    encode_features,
    feature_layout,
    reducing_cards,
    unseen_counts,
)
from continental_env.contract.game import Game
from continental_env.melds import has_contract
from continental_env.rules import PRESETS, contract_for_round

# ----------------------------------------------------------------------------- distance


def brute_distance(counts: list[int], trios: int, runs: int, rules, limit: int) -> int | None:
    """Fewest added cards (every multiset of card types) making has_contract true, or None."""
    for k in range(limit + 1):
        for extra in combinations_with_replacement(range(NUM_TYPES), k):
            work = list(counts)
            for c in extra:
                work[c] += 1
            if has_contract(work, trios, runs, rules):
                return k
    return None


def small_hands(preset: str, seed: int, count: int) -> list[tuple[list[int], int]]:
    """Hands of rounds 1-3 (dealt size, or a few cards more, some with extra jokers)."""
    rng = random.Random(seed)
    rules = PRESETS[preset]
    out = []
    while len(out) < count:
        round_number = rng.choice((1, 2, 3))
        deck = [c for c in range(52) for _ in range(2)] + [JOKER] * (2 * rules.jokers_per_deck)
        rng.shuffle(deck)
        size = 6 + round_number + rng.choice((0, 0, 1, 2))
        counts = to_counts(deck[:size])
        counts[JOKER] += rng.choice((0, 0, 1, 2))  # jokers bring some hands within reach
        out.append((counts, round_number))
    return out


@pytest.mark.parametrize("preset", ["continental", "continental_us"])
def test_distance_matches_brute_force_on_small_hands(preset: str) -> None:
    rules = PRESETS[preset]
    checked = {0: 0, 1: 0, 2: 0}
    for counts, round_number in small_hands(preset, seed=11, count=150):
        trios, runs = contract_for_round(round_number)
        d = contract_distance(counts, trios, runs, rules)
        if d > 2:
            # Beyond the brute force's reach: at least it is not reachable with two cards.
            assert brute_distance(counts, trios, runs, rules, 1) is None
            continue
        assert brute_distance(counts, trios, runs, rules, d) == d, (counts, round_number)
        checked[d] += 1
        # A card reduces the distance exactly when the hand plus it is one card nearer.
        reducing = set(reducing_cards(counts, trios, runs, rules))
        for c in range(NUM_TYPES):
            work = list(counts)
            work[c] += 1
            nearer = d > 0 and brute_distance(work, trios, runs, rules, d - 1) is not None
            assert (c in reducing) == nearer, (counts, round_number, c)
    assert min(checked.values()) >= 2, checked  # every distance the brute force reaches


def test_distance_of_named_hands() -> None:
    rules = PRESETS["continental"]
    hand = to_counts(parse_cards("5C 5D 5H 4C 4D KC 9S"))
    assert contract_distance(hand, 2, 0, rules) == 1
    assert reducing_cards(hand, 2, 0, rules) == sorted(parse_cards("4C 4D 4H 4S JK"))
    assert contract_distance(to_counts(parse_cards("5C 5D 5H 4C 4D KC JK JK")), 2, 0, rules) == 0
    # Seven ranks, no pair: two trios need two cards each.
    assert contract_distance(to_counts(parse_cards("AC 3D 5H 7S 9C JD KH")), 2, 0, rules) == 4
    # Round 3, two runs: 3H 4H 5H + 8S 9S TS miss one card each, the kept card is there.
    hand = to_counts(parse_cards("3H 4H 5H 8S 9S TS KC 2D AD"))
    assert contract_distance(hand, 0, 2, rules) == 2
    assert {card for card in reducing_cards(hand, 0, 2, rules)} >= set(
        parse_cards("2H 6H 7S JS JK")
    )


# ----------------------------------------------------------------------------- hidden information


def play_logged(preset: str, players: int, seed: int, every: int) -> list[tuple[Game, PublicLog]]:
    """States of a game of `strong` bots every few decisions, each with the round's public log."""
    game = Game.new(preset, players, seed=seed)
    bots = [make_agent("strong", seed=seed + s) for s in range(players)]
    log = PublicLog()
    out = []
    step = 0
    while not game.is_over and len(out) < 30:
        seat = game.actor
        action = bots[seat].act(PlayerView(game, seat))
        if step % every == 0 and game.stock:
            out.append((game.clone(), log.copy()))
        log.record(game, action)
        game.apply(action)
        step += 1
    return out


def leaks(encoder, states: list[tuple[Game, PublicLog]], seed: int) -> int:
    """How many (state, seat) pairs get different features in a hidden-card variant."""
    rng = random.Random(seed)
    found = 0
    varied = 0
    for game, log in states:
        data = game.to_dict()
        for seat in range(game.num_players):
            variant = swap_hidden(data, seat, rng)
            other = Game.from_dict(variant)
            varied += variant["hands"] != data["hands"]
            if not np.array_equal(encoder(game, seat, log), encoder(other, seat, log)):
                found += 1
    assert varied, "the variants never differed: the check would prove nothing"
    return found


def honest(game: Game, seat: int, log: PublicLog) -> np.ndarray:
    return encode_features(game, seat, None, log)


def leaky(game: Game, seat: int, log: PublicLog) -> np.ndarray:
    """A deliberately leaking variant: the next seat's whole hand counted as seen."""
    out = encode_features(game, seat, None, log)
    sl = feature_layout(game.num_players)["unseen"]
    nxt = game.hands[(seat + 1) % game.num_players]
    out[sl] = np.maximum(0, out[sl] - np.array(nxt, dtype=np.float32))
    return out


@pytest.mark.parametrize(
    ("preset", "players"), [("continental", 4), ("continental_us", 3), ("continental_es", 2)]
)
def test_hidden_cards_do_not_change_features(preset: str, players: int) -> None:
    states = play_logged(preset, players, seed=players, every=23)
    assert len(states) >= 10
    assert leaks(honest, states, seed=1) == 0
    assert leaks(leaky, states, seed=1) > 0  # positive control: the check catches a leak


def test_public_log_entries_do_not_depend_on_hidden_cards() -> None:
    rng = random.Random(3)
    for game, _log in play_logged("continental", 4, seed=9, every=11):
        data = game.to_dict()
        variant = Game.from_dict(swap_hidden(data, game.actor, rng))
        for action in game.legal_actions():
            a, b = PublicLog(), PublicLog()
            a.record(game, action)
            b.record(variant, action)
            assert a.items == b.items


def test_penalty_card_and_drawn_card_never_logged() -> None:
    hands = ["2C 5D 9H KS 3C 4S 8D", "2D 5H 9S KC 3D 4C 8H", "2H 5S 9C KD 3H 4D 8S", "6C 6D"]
    g = make_game(hands=hands, current=1, discard="7C QH", stock_top="AS KH", phase="draw")
    log = PublicLog()
    for text in ("draw", "pass", "claim"):
        log.record(g, g.action_from_str(text))
        act(g, text)
    qh = parse_cards("QH")[0]
    assert log.items == [(1, KINDS.index("draw"), qh), (2, KINDS.index("pass"), qh),
                         (3, KINDS.index("claim"), qh)]  # fmt: skip
    layout = feature_layout(4)
    f = encode_features(g, 0, layout, log)
    d = NUM_TYPES
    declined = f[layout["declined"]].reshape(4, d)
    assert declined[1, qh] == 1 and declined[2, qh] == 1 and declined.sum() == 2
    # seat 3 knows its own penalty card (the AS); seats 0-2 do not: their unseen AS count is 2
    # minus what they hold
    a_s = parse_cards("AS")[0]
    assert unseen_counts(g, 0)[a_s] == 2
    assert unseen_counts(g, 3)[a_s] == 1


def test_own_hand_change_is_seen() -> None:
    for game, log in play_logged("continental", 4, seed=2, every=31)[:5]:
        seat = game.actor
        data = game.to_dict()
        variant = copy.deepcopy(data)
        mine = variant["hands"][seat]
        stock = variant["stock"]
        own = hidden_cards(variant, seat)[0]  # a card only this seat knows it holds
        i = next(i for i, c in enumerate(stock) if c not in mine)
        j = mine.index(own)
        mine[j], stock[i] = stock[i], mine[j]
        other = Game.from_dict(variant)
        assert not np.array_equal(honest(game, seat, log), honest(other, seat, log))


# ----------------------------------------------------------------------------- layout


@pytest.mark.parametrize("players", [2, 4, 8])
def test_layout_is_contiguous_and_documented(players: int) -> None:
    import continental_env.contract.features as features

    layout = feature_layout(players)
    stop = 0
    for name, sl in layout.items():
        assert sl.start == stop
        stop = sl.stop
        assert f"``{name}``" in features.__doc__
    game = Game.new("continental", players, seed=1)
    assert encode_features(game, 0).shape == (stop,)
    assert layout["history"].stop - layout["history"].start == HISTORY * (players + 10 + 18)


def test_history_is_newest_first_and_relative() -> None:
    game = Game.new("continental", 4, seed=4)
    log = PublicLog()
    actions = []
    while len(actions) < 12:
        action = game.legal_actions()[0]
        actions.append((game.actor, action))
        log.record(game, action)
        game.apply(action)
    layout = feature_layout(4)
    seat = game.actor
    f = encode_features(game, seat, layout, log)
    width = 4 + len(KINDS) + 18
    rows = f[layout["history"]].reshape(HISTORY, width)
    last_seat, last_action = actions[-1]
    assert rows[0, (last_seat - seat) % 4] == 1
    kind = game.layout.decode(last_action)[0]
    assert rows[0, 4 + KINDS.index(kind)] == 1
    assert rows.sum(axis=1).min() >= 2  # every row holds a seat and a kind


def test_the_engine_log_equals_one_fed_from_outside() -> None:
    # The engine's own log (recorded in Game.apply) holds the entries and totals of a log fed
    # with record(game, action) before each action, so features built either way agree.
    for game, log in play_logged("continental", 4, seed=6, every=17):
        engine = game.public_log
        assert engine.entries(game) == log.entries(game)
        if log.key is not None:  # the outside log has seen an action of this round
            assert vars(engine) == vars(log)
        else:
            assert engine.items == []
        for seat in range(4):
            assert np.array_equal(encode_features(game, seat, None, log),
                                  encode_features(game, seat))  # fmt: skip


def test_a_restored_log_equals_the_recorded_one() -> None:
    for game, log in play_logged("continental", 3, seed=8, every=29):
        if not log.items:
            continue
        again = PublicLog.restore(log.key, log.items, game.num_players)
        assert vars(again) == vars(log)
        for seat in range(3):
            assert np.array_equal(encode_features(game, seat, None, log),
                                  encode_features(game, seat, None, again))  # fmt: skip


def test_the_seat_totals_are_rotated_to_the_observer() -> None:
    # Every seat sees the same absolute totals, starting at itself (+0, +1, ...).
    seen = 0
    for game, _log in play_logged("continental", 4, seed=5, every=13)[3:8]:
        layout = feature_layout(4)
        record = game.public_log
        for seat in range(4):
            f = encode_features(game, seat, layout)
            discarded = f[layout["discarded"]].reshape(4, NUM_TYPES)
            declined = f[layout["declined"]].reshape(4, NUM_TYPES)
            for k in range(4):
                s = (seat + k) % 4
                assert (
                    discarded[k].tolist() == record.discarded[s * NUM_TYPES : (s + 1) * NUM_TYPES]
                )
                assert declined[k].tolist() == record.declined[s * NUM_TYPES : (s + 1) * NUM_TYPES]
        assert sum(record.discarded) == sum(record.discards)
        seen += sum(record.discards)
    assert seen > 0  # the positions had discards to rotate
