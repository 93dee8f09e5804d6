"""Random legal play over every preset and 2-6 players, checking invariants after every action.

Invariants: cards are conserved (hands + stock + discard pile + table = the round's decks),
every live state has a legal action, legal ids are sorted and unique and their texts round-trip,
hand sizes match the hands, scores are the sum of the rounds' points, and the game ends.
``clone`` and the JSON round trip are checked along the way on a sample of states.
"""

from __future__ import annotations

import json
import random

import pytest
from helpers import all_cards, deck_multiset
from reference import ref_meld, ref_run, ref_trio

from continental_env.cards import JOKER, card_to_str, rank_of
from continental_env.contract.game import Game
from continental_env.rules import PRESETS

PRESET_NAMES = ("continental", "continental_us", "continental_es")
CASES = [(preset, players) for preset in PRESET_NAMES for players in range(2, 7)]
# Safety bound: 7 rounds of at most 200 turns, each turn a handful of actions per seat.
MAX_ACTIONS = 7 * 200 * 40


def reference_table_actions(g: Game) -> set[str]:
    """Lay-offs, swaps and joker moves the seat in turn may make, from RULES.md 1.4 / 1.8 alone
    (a card at either end of a run or anywhere in a trio, checked by the brute-force reference).
    """
    seat = g.current
    if g.phase != "play" or not g.laid_down[seat]:
        return set()
    rules = g.rules
    held = sorted({c for c in g.hand_cards(seat)})
    out: set[str] = set()
    for m, meld in enumerate(g.table):
        cards = list(meld.cards)
        trio = meld.kind == "trio"
        if g.hand_sizes[seat] >= 2:
            for c in held:
                name = card_to_str(c)
                if trio:
                    if ref_trio([*cards, c]):
                        out.add(f"layoff {name} {m}")
                    continue
                if c == JOKER:
                    if ref_run([c, *cards], rules, ordered=True):
                        out.add(f"layoff JK {m} low")
                    if ref_run([*cards, c], rules, ordered=True):
                        out.add(f"layoff JK {m} high")
                    continue
                if ref_run([c, *cards], rules, True) or ref_run([*cards, c], rules, True):
                    out.add(f"layoff {name} {m}")
                elif rules.joker_rule == "shift" and meld.owner == seat:
                    # 003: the natural takes its joker's place, the joker moves to an open end
                    for i, x in enumerate(cards):
                        if x == JOKER:
                            put = [*cards[:i], c, *cards[i + 1 :]]
                            if ref_run(put, rules, True) and (
                                ref_run([*put, JOKER], rules, True)
                                or ref_run([JOKER, *put], rules, True)
                            ):
                                out.add(f"layoff {name} {m}")
        if rules.joker_rule == "swap" and JOKER in cards:
            for c in held:
                if c == JOKER:
                    continue
                if trio:
                    if rank_of(c) == meld.rank:
                        out.add(f"swap {card_to_str(c)} {m}")
                    continue
                for i, x in enumerate(cards):
                    if x == JOKER and ref_run([*cards[:i], c, *cards[i + 1 :]], rules, True):
                        out.add(f"swap {card_to_str(c)} {m}")
        movable = meld.owner == seat and len(cards) >= 5 and JOKER in (cards[0], cards[-1])
        if rules.joker_rule == "shift" and not trio and movable:
            for n, other in enumerate(g.table):
                if n == m or other.kind != "run":
                    continue
                if ref_run([JOKER, *other.cards], rules, True):
                    out.add(f"movejoker {m} {n} low")
                if ref_run([*other.cards, JOKER], rules, True):
                    out.add(f"movejoker {m} {n} high")
    return out


def check_table(g: Game) -> None:
    """Every table meld is valid as laid out, and the engine's idea of it matches its cards."""
    trios, runs = g.contract
    for seat in range(g.num_players):
        kinds = [m.kind for m in g.table if m.owner == seat]
        if g.laid_down[seat]:  # exactly the contract, laid down in one action
            assert (kinds.count("trio"), kinds.count("run")) == (trios, runs)
        else:
            assert kinds == []
    for meld in g.table:
        assert ref_meld(meld.kind, meld.cards, g.rules, ordered=True), meld
        if meld.kind == "run":
            for i, c in enumerate(meld.cards):
                assert c == JOKER or meld.represented(i) == c, meld


def check_play_actions(g: Game) -> None:
    """The engine's table actions (and 004's discards) equal the reference's."""
    if g.phase != "play":
        return
    texts = [g.action_to_str(a) for a in g.legal_actions()]
    table_moves = {t for t in texts if t.split()[0] in ("layoff", "swap", "movejoker")}
    assert table_moves == reference_table_actions(g)
    if g.rules.discard_restriction and g.hand_sizes[g.current] >= 2:
        held = sorted({c for c in g.hand_cards(g.current)})
        if not g.laid_down[g.current]:

            def fits(c: int) -> bool:
                for meld in g.table:
                    if meld.kind == "trio" and ref_trio([*meld.cards, c]):
                        return True
                    if meld.kind == "run" and (
                        ref_run([c, *meld.cards], g.rules, True)
                        or ref_run([*meld.cards, c], g.rules, True)
                    ):
                        return True
                return False

            held = [c for c in held if not fits(c)] or held
        assert {t for t in texts if t.startswith("discard")} == {
            f"discard {card_to_str(c)}" for c in held
        }


def check_state(g: Game, deep: bool = False) -> None:
    """Invariants of one state (``deep``: also against the reference rules)."""
    if g.is_over:
        assert g.legal_actions() == [] and g.actor is None
        return
    assert all_cards(g) == deck_multiset(g.rules, g.num_players, g.round)
    assert g.hand_sizes == [sum(h) for h in g.hands]
    legal = g.legal_actions()
    assert legal, f"no legal action in a live state: {g!r}"
    assert legal == sorted(set(legal))
    assert all(0 <= a < g.num_actions for a in legal)
    for a in legal:
        assert g.action_from_str(g.action_to_str(a)) == a
    if g.phase == "claim":
        assert g.actor == g.asked and g.asked != g.current
        assert not g.laid_down[g.asked] or g.rules.claims_after_laydown
    else:
        assert g.asked is None and g.actor == g.current
    assert g.scores == [sum(r["points"][s] for r in g.round_history) for s in range(g.num_players)]


def check_round_points(g: Game) -> None:
    for result in g.round_history:
        for seat, pts in enumerate(result["points"]):
            if seat == result["closer"]:
                assert pts in (0, g.rules.one_turn_bonus)
            else:
                assert pts >= 0


def check_round_trip(g: Game, rng: random.Random) -> None:
    """JSON round trip restores the state and continues identically; clone is independent."""
    data = g.to_dict()
    text = json.dumps(data)
    back = Game.from_dict(json.loads(text))
    assert back.to_dict() == data
    assert back.legal_actions() == g.legal_actions()
    copy = g.clone()
    # Play the same few actions on the original's clone and on the restored game.
    seed = rng.getrandbits(32)
    for other in (copy, back):
        r = random.Random(seed)
        for _ in range(8):
            if other.is_over:
                break
            other.apply(r.choice(other.legal_actions()))
    assert copy.to_dict() == back.to_dict()
    assert json.dumps(g.to_dict()) == text, "playing on a clone changed the original"


def eager_choice(g: Game, rng: random.Random) -> int:
    """A random action that lays down, closes and lays off whenever it can (for coverage)."""
    legal = g.legal_actions()
    texts = {a: g.action_to_str(a) for a in legal}
    for word in ("close", "laydown"):
        for a in legal:
            if texts[a] == word:
                return a
    plays = [a for a in legal if texts[a].split()[0] in ("layoff", "swap", "movejoker")]
    if plays and rng.random() < 0.8:
        return rng.choice(plays)
    return rng.choice(legal)


def play(
    preset: str, players: int, seed: int, round_trip_every: int = 0, eager: bool = False
) -> Game:
    g = Game.new(preset, players, seed=seed)
    rng = random.Random(seed)
    check_state(g)
    for step in range(MAX_ACTIONS):
        if g.is_over:
            break
        if round_trip_every and step % round_trip_every == 0:
            check_round_trip(g, rng)
        g.apply(eager_choice(g, rng) if eager else rng.choice(g.legal_actions()))
        check_state(g, deep=eager)
    assert g.is_over, "the game did not end"
    check_round_points(g)
    assert len(g.round_history) == len(g.rules.rounds)
    return g


@pytest.mark.parametrize(("preset", "players"), CASES)
def test_random_games_keep_every_invariant(preset: str, players: int) -> None:
    for seed in (players, 100 + players):
        play(preset, players, seed, round_trip_every=97)
    for seed in (200 + players, 300 + players):
        play(preset, players, seed, round_trip_every=31, eager=True)


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_random_games_with_more_players_than_four(preset: str) -> None:
    players = PRESETS[preset].max_players
    play(preset, players, seed=7, round_trip_every=0)


def test_same_seed_and_same_actions_give_the_same_game() -> None:
    a = play("continental", 3, seed=21)
    b = play("continental", 3, seed=21)
    assert a.to_dict() == b.to_dict()


def test_clone_is_independent_of_the_original() -> None:
    g = Game.new("continental_us", 3, seed=8)
    rng = random.Random(8)
    for _ in range(40):
        g.apply(rng.choice(g.legal_actions()))
    before = g.to_dict()
    copy = g.clone()
    for _ in range(60):
        if copy.is_over:
            break
        copy.apply(rng.choice(copy.legal_actions()))
    assert g.to_dict() == before
    assert copy.to_dict() != before
    # and the clone's generator is a copy: the same actions give the same shuffles
    twin = g.clone()
    assert twin.rng.getstate() == g.rng.getstate() and twin.rng is not g.rng
