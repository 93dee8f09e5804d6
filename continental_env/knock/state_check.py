"""Loading a knock game from its JSON form, every field checked (``Game.from_dict``)."""

from __future__ import annotations

import random
from typing import Any

from continental_env.cards import JOKER, NUM_NATURALS, NUM_TYPES, card_from_str, card_to_str

_REQUIRED = (
    "num_players",
    "hand_index",
    "dealer",
    "current",
    "phase",
    "hands",
    "stock",
    "discard",
    "scores",
    "in_game",
    "chips",
    "pot",
    "rng",
    "deal_seeds",
)
_RECORD_KEYS = ("players", "shown", "deadwood", "points", "chips", "eliminated", "buys")


def _fail(msg: str) -> None:
    raise ValueError(f"malformed knock game state: {msg}")


def _is_int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def _counts(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        _fail(f"{where} must be a list of card strings")
    counts = [0] * NUM_TYPES
    for c in value:
        if not isinstance(c, str):
            _fail(f"{where}: {c!r} is not a card string")
        try:
            counts[card_from_str(c)] += 1
        except ValueError as exc:
            _fail(f"{where}: {exc}")
    return counts


def _cards(value: Any, where: str) -> list[int]:
    _counts(value, where)  # validates
    return [card_from_str(c) for c in value]


def _per_seat(data: dict, key: str, p: int, check: Any, what: str, default: Any = None) -> list:
    value = data.get(key, default)
    if not isinstance(value, list) or len(value) != p:
        _fail(f"{key!r} must be a list with one entry per seat ({p})")
    if not all(check(v) for v in value):
        _fail(f"{key!r} entries must be {what}")
    return list(value)


def _seat(value: Any, key: str, p: int) -> int:
    if not _is_int(value) or not 0 <= value < p:
        _fail(f"{key!r} must be a seat 0..{p - 1}, got {value!r}")
    return value


def load_state(cls: type, data: Any) -> Any:
    """Build a ``Game`` from ``Game.to_dict`` output, validating as it goes."""
    if not isinstance(data, dict):
        _fail("expected a dict")
    if data.get("game", "knock") != "knock":
        _fail(f"'game' is {data.get('game')!r}, not 'knock'")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        _fail(f"missing fields {missing}")
    options = data.get("options", {})
    if not isinstance(options, dict):
        _fail("'options' must be a dict")
    unknown = set(options) - {"stake", "max_turns_per_hand", "max_hands"}
    if unknown:
        _fail(f"unknown options {sorted(unknown)}")
    try:
        game = cls(
            data["num_players"],
            options.get("stake", 50),
            options.get("max_turns_per_hand", 200),
            options.get("max_hands", 100),
        )
    except ValueError as exc:
        _fail(str(exc))
    p = game.num_players
    phase = data["phase"]
    if phase not in ("draw", "play", "buy", "game_over"):
        _fail(f"unknown phase {phase!r}")
    game.phase = phase
    idx = data["hand_index"]
    if not _is_int(idx) or not 0 <= idx < game.max_hands:
        _fail(f"hand_index {idx!r} must be 0..{game.max_hands - 1}")
    game.hand_index = idx
    game.dealer = _seat(data["dealer"], "dealer", p)
    game.current = _seat(data["current"], "current", p)

    game.scores = _per_seat(data, "scores", p, _is_int, "ints")
    game.in_game = _per_seat(data, "in_game", p, lambda v: isinstance(v, bool), "bools")
    game.chips = _per_seat(data, "chips", p, _is_int, "ints")
    game.buys = _per_seat(data, "buys", p, lambda v: _is_int(v) and v >= 0, "counts", [0] * p)
    game.pot = data["pot"]
    if not _is_int(game.pot) or game.pot < 0:
        _fail(f"'pot' must be a non-negative int, got {game.pot!r}")
    if sum(game.chips) + game.pot != 0:
        _fail(f"chips {game.chips} and pot {game.pot} must sum to 0 (every chip is somewhere)")
    live = phase != "game_over"
    alive = [s for s in range(p) if game.in_game[s]]
    if live and len(alive) < 2:
        _fail("a running game needs at least two players still in")
    if live and any(game.scores[s] > 100 for s in alive):
        _fail("a player still in has a total over 100")
    if phase in ("draw", "play") and not game.in_game[game.current]:
        _fail(f"seat {game.current} is to act but is no longer in the game")
    if phase in ("draw", "play") and not game.in_game[game.dealer]:
        _fail(f"the dealer, seat {game.dealer}, is no longer in the game")
    if not live and game.pot:
        _fail("the pot of a finished game must be empty")

    buyers = data.get("buyers", [])
    if not isinstance(buyers, list) or not all(_is_int(s) and 0 <= s < p for s in buyers):
        _fail("'buyers' must be a list of seats")
    if phase == "buy":
        if not buyers or buyers != sorted(set(buyers)) or buyers[0] != game.current:
            _fail("in phase 'buy', 'buyers' lists the seats still to answer, the current first")
        if any(not game.in_game[s] or not game._may_buy(s) for s in buyers):
            _fail(f"'buyers' {buyers} includes a seat that may not buy back")
    elif buyers:
        _fail("'buyers' must be empty outside phase 'buy'")
    game.buyers = list(buyers)

    hands = data["hands"]
    if not isinstance(hands, list) or len(hands) != p:
        _fail(f"'hands' must hold one list per seat ({p})")
    game.hands = [_counts(h, f"hands[{s}]") for s, h in enumerate(hands)]
    game.stock = _cards(data["stock"], "stock")
    game.discard = _cards(data["discard"], "discard")
    game.turn = data.get("turn", 0)
    if not _is_int(game.turn) or not 0 <= game.turn < game.max_turns_per_hand:
        _fail(f"'turn' must be an int in 0..{game.max_turns_per_hand - 1}")
    known = data.get("known", [[] for _ in range(p)])
    if not isinstance(known, list) or len(known) != p:
        _fail(f"'known' must hold one list per seat ({p})")
    game.known = [_counts(k, f"known[{s}]") for s, k in enumerate(known)]
    for s in range(p):
        if any(game.known[s][c] > game.hands[s][c] for c in range(NUM_TYPES)):
            _fail(f"known[{s}] lists cards that are not in that hand")
    game.seen_discards = _counts(data.get("seen_discards", []), "seen_discards")

    if phase in ("draw", "play"):
        for s in range(p):
            want = 0 if not game.in_game[s] else 10
            if phase == "play" and s == game.current:
                want = 11
            if sum(game.hands[s]) != want:
                _fail(f"hands[{s}] holds {sum(game.hands[s])} cards, expected {want}")
        total = [0] * NUM_TYPES
        for h in game.hands:
            for c in range(NUM_TYPES):
                total[c] += h[c]
        for c in game.stock + game.discard:
            total[c] += 1
        expected = [2] * NUM_NATURALS + [game.jokers]
        if total != expected:
            wrong = next(c for c in range(NUM_TYPES) if total[c] != expected[c])
            _fail(
                f"cards are not conserved: {card_to_str(wrong)} appears {total[wrong]} times, "
                f"expected {expected[wrong]} (2 decks and {game.jokers} {card_to_str(JOKER)})"
            )
    elif any(map(sum, game.hands)) or game.stock or game.discard:
        _fail(f"outside a hand (phase {phase!r}) the hands, stock and discard pile are empty")

    history = data.get("hand_history", [])
    if not isinstance(history, list) or any(
        not isinstance(r, dict) or any(not isinstance(r.get(k), list) for k in _RECORD_KEYS)
        for r in history
    ):
        _fail(f"'hand_history' must be a list of records with the lists {list(_RECORD_KEYS)}")
    if phase in ("buy", "game_over") and not history:
        _fail(f"phase {phase!r} follows a hand, but 'hand_history' is empty")
    from continental_env.knock.game import copy_record, copy_result

    try:
        game.hand_history = [copy_record(r) for r in history]
    except (KeyError, TypeError) as exc:
        _fail(f"'hand_history' record: {exc}")
    result = data.get("result")
    if live and result is not None:
        _fail("'result' must be null while the game runs")
    if not live:
        if (
            not isinstance(result, dict)
            or not isinstance(result.get("winners"), list)
            or not result["winners"]
            or not all(_is_int(s) and 0 <= s < p for s in result["winners"])
        ):
            _fail("a finished game needs 'result' with its 'winners' (a list of seats)")
        game.result = copy_result(result)
    moves = data.get("moves", 0)
    if not _is_int(moves) or moves < 0:
        _fail("'moves' must be a non-negative int")
    game.moves = moves
    rng = data["rng"]
    try:
        version, state, gauss = rng
        game.rng = random.Random()
        game.rng.setstate((version, tuple(state), gauss))
    except (TypeError, ValueError) as exc:
        _fail(f"rng: {exc}")
    seeds = data["deal_seeds"]
    if (
        not isinstance(seeds, list)
        or len(seeds) != game.max_hands
        or not all(_is_int(x) for x in seeds)
    ):
        _fail(f"'deal_seeds' must be a list of {game.max_hands} ints, one per possible hand")
    game.deal_seeds = list(seeds)
    game._legal = None
    return game
