"""The game's two halves: ``Setup`` (static) and ``State`` (one position, fields declared once).

``clone``, ``to_dict``/``from_dict``, the per-round reset and the redacted view are generated
from the ``State`` field declarations, so these tests walk every field rather than naming them.
"""

from __future__ import annotations

import json
import random
from dataclasses import fields

import pytest

from continental_env.contract.actions import num_actions
from continental_env.contract.game import Game
from continental_env.contract.state import FIELD_NAMES, Phase, Setup, State
from continental_env.rules import PRESETS


def played(
    preset: str = "continental_es", players: int = 4, seed: int = 3, steps: int = 150
) -> Game:
    """A game some way into play (a round scored, melds on the table)."""
    g = Game.new(preset, players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if g.is_over:
            break
        g.apply(rng.choice(g.legal_actions()))
    return g


def stored_fields() -> list[str]:
    return [name for name in FIELD_NAMES if name != "hand_sizes"]


def test_every_field_round_trips_through_json() -> None:
    g = played()
    data = json.loads(json.dumps(g.to_dict()))
    back = Game.from_dict(data)
    for name in stored_fields():
        a, b = getattr(g.state, name), getattr(back.state, name)
        if name == "rng":
            assert a.getstate() == b.getstate()
        elif name == "table":
            assert [m.to_dict() for m in a] == [m.to_dict() for m in b]
        else:
            assert a == b, name
    assert back.state.hand_sizes == [sum(h) for h in back.state.hands]
    assert back.to_dict() == g.to_dict()


def test_json_keys_are_the_setup_keys_and_the_stored_fields() -> None:
    keys = set(played().to_dict())
    assert keys == {"preset", "rules", "num_players", *stored_fields()}


def test_clone_shares_no_mutable_value_with_the_original() -> None:
    g = played()
    c = g.clone()
    for name in FIELD_NAMES:
        a, b = getattr(g.state, name), getattr(c.state, name)
        if isinstance(a, list | random.Random):
            assert a is not b, name
        if isinstance(a, list) and a and isinstance(a[0], list | dict):
            assert a[0] is not b[0], name
    for m, n in zip(g.state.table, c.state.table, strict=True):
        assert m is not n and m.cards is not n.cards
    # Playing on in the clone leaves the original as it was.
    before = g.to_dict()
    rng = random.Random(0)
    for _ in range(40):
        if c.is_over:
            break
        c.apply(rng.choice(c.legal_actions()))
    assert g.to_dict() == before


@pytest.mark.parametrize("name", stored_fields())
def test_a_field_of_the_wrong_type_is_one_value_error_naming_it(name: str) -> None:
    data = played().to_dict()
    refused = 0
    for junk in ("x", 1.5, {"a": 1}, [[["deep"]]]):
        bad = json.loads(json.dumps(data))
        bad[name] = junk
        with pytest.raises(ValueError) as err:
            Game.from_dict(bad)
        message = str(err.value)
        assert message.startswith("malformed game state: ")
        assert message.count("malformed game state") == 1
        refused += name in message or name.split("_")[0] in message
    assert refused, f"no message named {name!r}"


def test_required_keys_are_reported_missing_and_optional_ones_have_defaults() -> None:
    data = played().to_dict()
    for name in State.required_keys():
        bad = dict(data)
        del bad[name]
        with pytest.raises(ValueError, match=rf"missing fields \['{name}'\]"):
            Game.from_dict(bad)
    # A hand-built state may leave every optional key out (and keeps what it gives).
    fresh = Game.new("continental", 3, seed=1).to_dict()
    optional = set(stored_fields()) - set(State.required_keys())
    trimmed = {k: v for k, v in fresh.items() if k not in optional}
    g = Game.from_dict(trimmed)
    assert g.state.hands == Game.from_dict(fresh).state.hands
    assert len(g.state.deal_seeds) == len(PRESETS["continental"].rounds)


def test_game_reads_every_position_field_through_to_the_state() -> None:
    g = played()
    for name in FIELD_NAMES:
        assert getattr(g, name) is getattr(g.state, name), name
    with pytest.raises(AttributeError):
        g.hands = []  # type: ignore[misc]  # positions change through apply (or g.state)


def test_reset_round_restarts_exactly_the_per_round_fields() -> None:
    g = played()
    setup = g.setup
    s = g.state.clone()
    kept = {n: json.dumps(v, default=str) for n, v in State.to_dict(s).items()}
    s.reset_round(setup)
    fresh = State.fresh(setup)
    per_round = {f.name for f in fields(State) if f.metadata["per_round"]}
    assert {"hands", "table", "stock", "laid_down", "known", "turn"} <= per_round
    assert not per_round & {"scores", "round_history", "moves", "deal_seeds", "round"}
    after = s.to_dict()
    for name, value in after.items():
        if name in per_round:
            assert value == State.to_dict(fresh)[name], name
        else:
            assert json.dumps(value, default=str) == kept[name], name


def test_redacted_hides_exactly_the_hidden_fields() -> None:
    g = played(players=4, steps=60)
    seat = 1
    view = g.state.redacted(seat)
    assert view.hands[seat] == g.state.hands[seat]
    for s in range(4):
        if s != seat:
            assert view.hands[s] == g.state.known[s]
    assert view.stock == [0] * len(g.state.stock)
    assert set(view.deal_seeds) == {0}
    public = set(stored_fields()) - {"hands", "stock", "rng", "deal_seeds"}
    for name in public:
        assert view.to_dict()[name] == g.state.to_dict()[name], name
    # Two positions that differ only in hidden cards redact to the same thing (and, as a
    # positive control, a public difference shows).
    other = g.clone()
    opp = (seat + 1) % 4
    hidden = next(c for c in range(53) if other.state.hands[opp][c] > other.state.known[opp][c])
    swap_in = other.state.stock[-1]
    other.state.hands[opp][hidden] -= 1
    other.state.hands[opp][swap_in] += 1
    other.state.stock[-1] = hidden
    assert other.state.redacted(seat).to_dict() == view.to_dict()
    other.state.scores[opp] += 1
    assert other.state.redacted(seat).to_dict() != view.to_dict()


def test_setup_is_shared_and_knows_the_action_count_without_a_game() -> None:
    rules = PRESETS["continental"]
    assert Setup.of(rules, 4) is Setup.of(rules, 4)
    for p in range(2, 9):
        assert (
            num_actions(p)
            == Game.new(rules, p, seed=0).num_actions
            == Setup.of(rules, p).num_actions
        )
    with pytest.raises(ValueError, match="allows"):
        Setup(PRESETS["continental_us"], 7)


def test_phases_are_their_json_strings() -> None:
    assert [p.value for p in Phase] == ["draw", "claim", "play", "game_over"]
    assert Phase.CLAIM == "claim" and repr(Phase.PLAY) == "'play'"
    g = Game.new("continental", 2, seed=0)
    assert json.loads(json.dumps(g.to_dict()))["phase"] == "draw"
