"""Loading a game from its JSON form, with every field checked (``Game.from_dict``)."""

from __future__ import annotations

import random
from typing import Any

from continental_env.cards import JOKER, NUM_NATURALS, NUM_TYPES, card_from_str
from continental_env.melds import RUN, TRIO, Meld
from continental_env.rules import PRESETS, RuleConfig

_REQUIRED = (
    "num_players",
    "round",
    "dealer",
    "current",
    "phase",
    "asked",
    "hands",
    "stock",
    "discard",
    "table",
    "laid_down",
    "scores",
    "rng",
)


def _fail(msg: str) -> None:
    raise ValueError(f"malformed game state: {msg}")


def _cards(value: Any, where: str) -> list[int]:
    if not isinstance(value, list):
        _fail(f"{where} must be a list of card strings")
    try:
        return [card_from_str(c) for c in value]
    except (ValueError, AttributeError) as exc:
        _fail(f"{where}: {exc}")
    raise AssertionError  # unreachable


def _seat_list(data: dict, key: str, p: int, kind: type, default: Any = None) -> list:
    value = data.get(key, default)
    if not isinstance(value, list) or len(value) != p:
        _fail(f"{key!r} must be a list with one entry per seat ({p})")
    if any(not isinstance(v, kind) or isinstance(v, bool) != (kind is bool) for v in value):
        _fail(f"{key!r} entries must be {kind.__name__}")
    return list(value)


def load_state(cls: type, data: dict[str, Any]) -> Any:
    """Build a ``Game`` from ``Game.to_dict`` output; every refusal is one ``ValueError``."""
    try:
        return _load_state(cls, data)
    except ValueError:
        raise
    except (TypeError, KeyError, IndexError, AttributeError) as exc:
        # A field of the wrong shape that the checks above did not foresee.
        raise ValueError(f"malformed game state: {type(exc).__name__}: {exc}") from None


def _load_state(cls: type, data: dict[str, Any]) -> Any:
    if not isinstance(data, dict):
        _fail("expected a dict")
    missing = [k for k in _REQUIRED if k not in data]
    if missing:
        _fail(f"missing fields {missing}")
    if "rules" in data and data["rules"] is not None:
        try:
            rules = RuleConfig.from_dict(data["rules"])
        except (TypeError, ValueError) as exc:
            _fail(f"rules: {exc}")
    elif data.get("preset") in PRESETS:
        rules = PRESETS[data["preset"]]
    else:
        _fail("needs 'rules' or a known 'preset'")
    p = data["num_players"]
    try:
        game = cls(rules, p)
    except ValueError as exc:
        _fail(str(exc))
    rnd = data["round"]
    if rnd not in rules.rounds:
        _fail(f"round {rnd!r} is not one of the rules' rounds {rules.rounds}")
    game.round = rnd
    game.round_index = idx = data.get("round_index", rules.rounds.index(rnd))
    # A finished game's index has moved past its last round, which stays in 'round'.
    at = idx - 1 if data.get("phase") == "game_over" and idx == len(rules.rounds) else idx
    if not isinstance(idx, int) or not 0 <= at < len(rules.rounds) or rules.rounds[at] != rnd:
        _fail(f"round_index {idx!r} does not match round {rnd}")
    for key in ("dealer", "current"):
        v = data[key]
        if not isinstance(v, int) or not 0 <= v < p:
            _fail(f"{key!r} must be a seat 0..{p - 1}, got {v!r}")
    game.dealer = data["dealer"]
    game.current = data["current"]
    phase = data["phase"]
    if phase not in ("draw", "claim", "play", "game_over"):
        _fail(f"unknown phase {phase!r}")
    game.phase = phase
    asked = data["asked"]
    queue = data.get("claim_queue", [] if asked is None else [asked])
    if phase == "claim":
        if not isinstance(asked, int) or not 0 <= asked < p or asked == game.current:
            _fail(f"phase 'claim' needs 'asked' to be another seat, got {asked!r}")
        if not isinstance(queue, list) or not queue or queue[0] != asked:
            _fail("claim_queue must start with the asked seat")
    elif asked is not None:
        _fail(f"'asked' must be null outside the claim phase, got {asked!r}")
    game.asked = asked
    game.claim_queue = list(queue) if phase == "claim" else []

    hands = data["hands"]
    if not isinstance(hands, list) or len(hands) != p:
        _fail(f"'hands' must hold one list per seat ({p})")
    game.hands = [[0] * NUM_TYPES for _ in range(p)]
    for seat, hand in enumerate(hands):
        for c in _cards(hand, f"hands[{seat}]"):
            game.hands[seat][c] += 1
    game.hand_sizes = [sum(h) for h in game.hands]
    game.stock = _cards(data["stock"], "stock")
    game.discard = _cards(data["discard"], "discard")
    table = data["table"]
    if not isinstance(table, list) or len(table) > game.layout.max_melds:
        _fail(f"'table' must be a list of at most {game.layout.max_melds} melds")
    game.table = []
    for i, m in enumerate(table):
        if not isinstance(m, dict) or not {"owner", "kind", "cards"} <= set(m):
            _fail(f"table[{i}] needs owner, kind and cards")
        if (
            m["kind"] not in (TRIO, RUN)
            or not isinstance(m["owner"], int)
            or not 0 <= m["owner"] < p
        ):
            _fail(f"table[{i}] has a bad kind or owner")
        meld_cards = _cards(m["cards"], f"table[{i}]")
        try:
            game.table.append(Meld.build(m["owner"], m["kind"], meld_cards, rules))
        except ValueError as exc:
            _fail(f"table[{i}]: {exc}")
    game.laid_down = _seat_list(data, "laid_down", p, bool)
    game.laid_down_turn = _seat_list(data, "laid_down_turn", p, int, [-1] * p)
    game.scores = _seat_list(data, "scores", p, int)
    game.claims = _seat_list(data, "claims", p, int, [0] * p)
    game.turn = data.get("turn", 0)
    if not isinstance(game.turn, int) or game.turn < 0:
        _fail("'turn' must be a non-negative int")
    known = data.get("known", [[] for _ in range(p)])
    if not isinstance(known, list) or len(known) != p:
        _fail("'known' must hold one list per seat")
    game.known = [[0] * NUM_TYPES for _ in range(p)]
    for seat, k in enumerate(known):
        for c in _cards(k, f"known[{seat}]"):
            game.known[seat][c] += 1
        if any(game.known[seat][c] > game.hands[seat][c] for c in range(NUM_TYPES)):
            _fail(f"known[{seat}] lists cards that are not in that hand")
    game.seen_discards = [0] * NUM_TYPES
    for c in _cards(data.get("seen_discards", []), "seen_discards"):
        game.seen_discards[c] += 1
    game.round_history = _round_history(data, rules, p, game.round_index)
    if "round_history" in data:
        totals = [sum(r["points"][s] for r in game.round_history) for s in range(p)]
        if totals != game.scores:
            _fail(f"'scores' {game.scores} do not add up to the round history's points {totals}")
    last = data.get("last_action", [None] * p)
    if not isinstance(last, list) or len(last) != p:
        _fail(f"'last_action' must be a list with one entry per seat ({p})")
    n = game.layout.num_actions
    if any(
        a is not None and (not isinstance(a, int) or isinstance(a, bool) or not 0 <= a < n)
        for a in last
    ):
        _fail(f"'last_action' entries must be null or action ids 0..{n - 1}, got {last!r}")
    game.last_action = list(last)
    moves = data.get("moves", 0)
    if not isinstance(moves, int) or isinstance(moves, bool) or moves < 0:
        _fail(f"'moves' must be a non-negative int, got {moves!r}")
    game.moves = moves
    game.joker_moved = data.get("joker_moved", False)
    if not isinstance(game.joker_moved, bool) or (game.joker_moved and phase != "play"):
        _fail("'joker_moved' must be a bool, true only in the play phase")
    owed = data.get("jokers_owed", 0)
    if not isinstance(owed, int) or isinstance(owed, bool) or owed < 0:
        _fail(f"'jokers_owed' must be a non-negative int, got {owed!r}")
    if owed and not (
        rules.swapped_joker_laid_off
        and phase == "play"
        and game.laid_down[game.current]
        and owed <= game.hands[game.current][JOKER]
    ):
        _fail(
            f"'jokers_owed'={owed} needs rules that make swapped jokers be laid off, the play "
            "phase, the seat in turn laid down and holding that many jokers"
        )
    game.jokers_owed = owed

    if phase == "claim":
        # Seats still to be asked: distinct, in turn order after the seat in turn, each allowed
        # to claim, and a declined card on the pile to claim.
        q = game.claim_queue
        order = [(s - game.current) % p if isinstance(s, int) and 0 <= s < p else 0 for s in q]
        if not all(0 < a < b for a, b in zip(order, [*order[1:], p], strict=True)):
            _fail(
                f"claim_queue {q!r} must list other seats in turn order after seat {game.current}"
            )
        barred = [s for s in q if not game._may_claim(s)]
        if barred:
            _fail(f"seats {barred} in claim_queue may not claim (laid down, or at the claim cap)")
        if not game.discard:
            _fail("phase 'claim' needs the declined card on top of the discard pile")
    # Every card of the round's decks is somewhere, exactly once.
    if phase != "game_over":
        decks = rules.decks(p, rnd)
        total = [0] * NUM_TYPES
        for h in game.hands:
            for c in range(NUM_TYPES):
                total[c] += h[c]
        for c in game.stock + game.discard:
            total[c] += 1
        for m in game.table:
            for c in m.cards:
                total[c] += 1
        expected = [decks] * NUM_NATURALS + [decks * rules.jokers_per_deck]
        if total != expected:
            wrong = [c for c in range(NUM_TYPES) if total[c] != expected[c]]
            from continental_env.cards import card_to_str

            _fail(
                f"cards are not conserved: {len(wrong)} card type(s) off, e.g. "
                f"{card_to_str(wrong[0])} appears {total[wrong[0]]} times, expected {expected[wrong[0]]}"
            )
        empty = [s for s in range(p) if game.hand_sizes[s] < 1]
        if empty:
            # Only a close empties a hand, and a close ends the round at once.
            _fail(f"seats {empty} hold no cards in a live round")
    rng = data["rng"]
    try:
        version, state, gauss = rng
        game.rng = random.Random()
        game.rng.setstate((version, tuple(state), gauss))
    except (TypeError, ValueError) as exc:
        _fail(f"rng: {exc}")
    seeds = data.get("deal_seeds")
    if seeds is None:
        # A hand-built state may leave the later rounds' seeds out: derive them from `rng`.
        derive = random.Random()
        derive.setstate(game.rng.getstate())
        seeds = [derive.getrandbits(64) for _ in rules.rounds]
    if (
        not isinstance(seeds, list)
        or len(seeds) != len(rules.rounds)
        or any(not isinstance(x, int) or isinstance(x, bool) for x in seeds)
    ):
        _fail(f"'deal_seeds' must be a list of {len(rules.rounds)} ints, one per round")
    game.deal_seeds = list(seeds)
    game._invalidate()
    if phase != "game_over" and not game.legal_actions():
        _fail(f"seat {game.actor} has no legal action in phase {phase!r}")
    return game


def _round_history(data: dict, rules: RuleConfig, p: int, round_index: int) -> list[dict]:
    """The rounds scored so far: one entry per round played before this one, in order."""
    history = data.get("round_history", [])
    if not isinstance(history, list):
        _fail(f"'round_history' must be a list of round results, got {type(history).__name__}")
    if "round_history" in data and len(history) != round_index:
        _fail(f"'round_history' holds {len(history)} rounds but {round_index} were played")
    out = []
    for i, entry in enumerate(history):
        if not isinstance(entry, dict) or not {"round", "points", "closer", "turns"} <= set(entry):
            _fail(f"round_history[{i}] needs round, points, closer and turns")
        pts, closer, turns = entry["points"], entry["closer"], entry["turns"]
        if entry["round"] != rules.rounds[i] if i < len(rules.rounds) else True:
            _fail(f"round_history[{i}] is round {entry['round']!r}, expected {rules.rounds[i]}")
        if (
            not isinstance(pts, list)
            or len(pts) != p
            or any(not isinstance(v, int) or isinstance(v, bool) for v in pts)
        ):
            _fail(f"round_history[{i}]['points'] must be {p} integers")
        if closer is not None and (not isinstance(closer, int) or not 0 <= closer < p):
            _fail(f"round_history[{i}]['closer'] must be a seat or null, got {closer!r}")
        if not isinstance(turns, int) or turns < 0:
            _fail(f"round_history[{i}]['turns'] must be a non-negative int")
        out.append(dict(entry, points=list(pts)))
    return out
