"""What the observation vector contains, plane by plane and scalar by scalar.

Every expected value here is computed from the engine's state by hand (card lists, the table's
melds, ``melds.can_fit``), not by the encoder, so a plane written to the wrong place, a seat
rotated the wrong way or a stale plane fails. The environment builds its vectors with the
incremental ``ObservationEncoder``; the plain ``encode_observation`` is checked against it too.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from helpers import make_game

import continental_env
from continental_env.cards import JOKER, NUM_TYPES, card_from_str, parse_cards
from continental_env.contract.aec import (
    PLANE,
    ObservationEncoder,
    encode_observation,
    observation_layout,
)
from continental_env.contract.game import Game
from continental_env.melds import can_fit


def counts(cards: list[int]) -> list[int]:
    out = [0] * NUM_TYPES
    for c in cards:
        out[c] += 1
    return out


def plane(obs: np.ndarray, part: slice, index: int = 0) -> np.ndarray:
    """Plane ``index`` of a part as the engine's 53 counts, after checking the 5 x 13 padding
    (the joker row holds the joker in column 0 and nothing else)."""
    grid = obs[part][PLANE * index : PLANE * (index + 1)].reshape(5, 13)
    assert not grid[4, 1:].any(), "the joker row holds only the joker"
    return grid.reshape(-1)[:NUM_TYPES]


def expected(game: Game, seat: int) -> dict[str, Any]:
    """Every part of ``seat``'s observation, from the engine's fields."""
    p = game.num_players
    order = [(seat + k) % p for k in range(p)]
    top = [0] * NUM_TYPES
    if game.discard and not game.is_over:
        top[game.discard[-1]] = 1
    fits = [int(any(can_fit(meld, c, game.rules) for meld in game.table)) for c in range(NUM_TYPES)]
    phase = {"draw": [1, 0, 0], "claim": [0, 1, 0], "play": [0, 0, 1]}.get(game.phase, [0, 0, 0])
    trios, runs = game.contract
    return {
        "hand": [counts(game.hand_cards(seat))],
        "discard_top": [top],
        "discards_seen": [list(game.seen_discards)],
        "known_opp": [list(game.known[s]) for s in order[1:]],
        "table": [
            counts([c for meld in game.table if meld.owner == s for c in meld.cards]) for s in order
        ],
        "fits": [fits],
        "round": [1.0 if r == game.round else 0.0 for r in range(1, 8)],
        "phase": phase,
        "contract": [trios / 3, runs / 3],
        "hand_sizes": [sum(game.hands[s]) / 20 for s in order],
        "laid_down": [float(game.laid_down[s]) for s in order],
        "scores": [game.scores[s] / 100 for s in order],
        "claims": [game.claims[s] for s in order],
        "stock": [len(game.stock) / 100],
        "turn": [game.turn / game.rules.max_turns_per_round],
    }


def check(obs: np.ndarray, game: Game, seat: int) -> None:
    layout = observation_layout(game.num_players)
    want = expected(game, seat)
    for name in ("hand", "discard_top", "discards_seen", "known_opp", "table", "fits"):
        for i, values in enumerate(want[name]):
            assert plane(obs, layout[name], i).tolist() == values, f"{name} plane {i}, seat {seat}"
    for name in ("round", "phase", "contract", "hand_sizes", "laid_down", "scores", "claims"):
        np.testing.assert_allclose(obs[layout[name]], want[name], rtol=1e-6, err_msg=name)
    np.testing.assert_allclose(obs[layout["stock"]], want["stock"], rtol=1e-6)
    np.testing.assert_allclose(obs[layout["turn"]], want["turn"], rtol=1e-6)


def observe(game: Game, seat: int) -> np.ndarray:
    raw = continental_env.raw_env(num_players=game.num_players, preset=game.rules)
    raw.reset(seed=0)
    raw.game = game
    return raw.observe(f"player_{seat}")["observation"]


@pytest.mark.parametrize(
    ("players", "preset", "seed"),
    [(4, "continental", 3), (3, "continental_us", 5), (2, "continental_es", 8)],
)
def test_every_part_matches_the_engine_through_random_play(
    players: int, preset: str, seed: int
) -> None:
    env = continental_env.env(num_players=players, preset=preset)
    env.reset(seed=seed)
    raw = env.unwrapped
    rng = random.Random(seed)
    held = []  # (observation handed out, its copy): never changed afterwards
    checked = with_table = 0
    for step, agent in enumerate(env.agent_iter(max_iter=1500)):
        obs, _r, term, trunc, _i = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = raw.agent_name_mapping[agent]
        check(obs["observation"], raw.game, seat)
        if step % 7 == 0:  # the other seats' views too, rotated to each
            for other in raw.possible_agents:
                check(raw.observe(other)["observation"], raw.game, raw.agent_name_mapping[other])
        if step % 50 == 0:
            held.append((obs["observation"], obs["observation"].copy()))
        checked += 1
        with_table += bool(raw.game.table)
        legal = np.flatnonzero(obs["action_mask"])
        env.step(int(legal[rng.randrange(len(legal))]))
    assert checked > 500
    assert with_table > 50, "the check covered positions with melds on the table"
    for handed_out, copy in held:
        assert np.array_equal(handed_out, copy), "an observation changed after it was handed out"


def test_the_encoder_equals_the_reference_over_games_clones_and_assigned_positions() -> None:
    rng = random.Random(1)
    layout = observation_layout(3)
    encoder = ObservationEncoder(3)
    positions = []
    for seed in range(2):
        game = Game.new("continental", 3, seed=seed)
        while not game.is_over:
            if rng.random() < 0.05:
                positions.append(game.clone())
            legal = game.legal_actions()
            game.apply(legal[rng.randrange(len(legal))])
        positions.append(game)
    rng.shuffle(positions)  # unrelated positions one after another: nothing may carry over
    for game in positions:
        for seat in range(3):
            assert np.array_equal(
                encoder.encode(game, seat), encode_observation(game, seat, layout)
            )


def test_table_and_known_cards_are_rotated_to_the_observers_seat() -> None:
    # Seat 2 owns both melds; seat 1 took the 9S from the discard pile (known to all).
    game = make_game(
        hands=["2C 5D 8H KS", "9S 3C 4C JK", "KD QD", "AH AH 7S"],
        table=[(2, "trio", "7C 7D 7H"), (2, "run", "2D 3D 4D 5D")],
        discard="6S",
        round_number=2,
        current=0,
    )
    game.known[1][card_from_str("9S")] = 1
    layout = observation_layout(4)
    melds = counts(parse_cards("7C 7D 7H 2D 3D 4D 5D"))
    nine = counts(parse_cards("9S"))
    empty = [0] * NUM_TYPES
    for seat in range(4):
        obs = observe(game, seat)
        tables = [plane(obs, layout["table"], rel).tolist() for rel in range(4)]
        rel_owner = (2 - seat) % 4
        assert tables[rel_owner] == melds, f"seat {seat} sees seat 2's melds at +{rel_owner}"
        assert all(t == empty for rel, t in enumerate(tables) if rel != rel_owner)
        known = [plane(obs, layout["known_opp"], k).tolist() for k in range(3)]
        if seat == 1:
            assert all(k == empty for k in known), "a seat's own known cards are not an opponent's"
        else:
            rel = (1 - seat) % 4
            assert known[rel - 1] == nine, f"seat {seat} sees seat 1's 9S at +{rel}"
            assert all(k == empty for i, k in enumerate(known) if i != rel - 1)
        hand = plane(obs, layout["hand"]).tolist()
        assert hand == counts(game.hand_cards(seat))
        laid = obs[layout["laid_down"]].tolist()
        assert laid == [1.0 if (seat + k) % 4 == 2 else 0.0 for k in range(4)]


def test_fits_mark_the_cards_that_extend_the_table() -> None:
    game = make_game(
        hands=["2C 5D 8H KS", "9S 3C", "KD QD", "AH AH 7S"],
        table=[(2, "trio", "7C 7D 7H"), (2, "run", "2D 3D 4D 5D")],
        discard="6S",
        round_number=2,
    )
    fits = plane(observe(game, 0), observation_layout(4)["fits"]).tolist()
    marked = {c for c in range(NUM_TYPES) if fits[c]}
    # Any 7 and the joker go on the trio; AD and 6D extend the run.
    assert marked == set(parse_cards("7C 7D 7H 7S AD 6D")) | {JOKER}


def test_discard_top_is_the_pile_top_and_empty_once_the_game_is_over() -> None:
    game = make_game(hands=["2C 5D 8H", "9S 3C 4C"], discard="4H 6S", phase="draw")
    obs = observe(game, 1)
    top = plane(obs, observation_layout(2)["discard_top"]).tolist()
    assert top == counts(parse_cards("6S"))
    game.apply(game.action_from_str("take"))
    obs = observe(game, 1)
    assert plane(obs, observation_layout(2)["discard_top"]).tolist() == counts(parse_cards("4H"))


def test_the_check_catches_planes_rotated_the_wrong_way() -> None:
    # Positive control: the same position with the table and known planes turned one seat the
    # other way must fail the content check.
    game = make_game(
        hands=["2C 5D 8H KS", "9S 3C 4C JK", "KD QD", "AH AH 7S"],
        table=[(2, "trio", "7C 7D 7H"), (1, "run", "2D 3D 4D 5D")],
        discard="6S",
        round_number=2,
    )
    game.known[1][card_from_str("9S")] = 1
    layout = observation_layout(4)
    obs = observe(game, 0)
    check(obs, game, 0)
    for name in ("table", "known_opp"):
        turned = obs.copy()
        part = turned[layout[name]].reshape(-1, PLANE)
        turned[layout[name]] = np.roll(part, 1, axis=0).reshape(-1)
        with pytest.raises(AssertionError):
            check(turned, game, 0)
