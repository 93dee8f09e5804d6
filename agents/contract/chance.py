"""The contract game's chance events for the harness's control-variate estimator
(``agents.evaluate.variance``): every card drawn from the stock, with a frozen value estimate.

**Chance events.** Given everything that happened so far, the next card off the stock is equally
likely to be any card left in it (each copy counts): the deal shuffles the whole deck and a
re-formed stock is shuffled again (``Game._pop_stock``), and no player sees the stock's order
(oracle diagnostics are refused with the estimator). So a draw by seat ``r`` — a turn's draw, a
claim's penalty card, a draw after a reshuffle — is a chance node whose outcomes are the stock's
card types, each with probability (copies / cards in the stock). The deal of each round is a chance
event too, but duplicate deals already cancel it: every seating gets the same hands seat by seat,
so a value that reads the hands gives the candidate's correction at the deal in one seating
exactly what the other seatings give its opponents, and their sum is zero.

**Value.** Both models read the same few facts of each seat's table as the referee sees it
(``FEATURES``: distance to the contract and the share of the stock that shortens it, points in
hand and outside the best plan, whether laid down, cards that fit no table meld, how near the
others are to closing, a race's guess at who closes first). ``ValueModel`` is linear in them, its
weights fitted on duplicate deals of other seeds so that the corrected paired difference varies
least (``agents/models/aivat_value_v1.json``, ``scripts/fit_aivat_value.py``; the harness's,
``MODEL_FILE``). ``MlpValueModel`` adds a small network regressed on each seat's points at the
round's end, mixed with a linear term the same way (``aivat_value_v2.json``,
``scripts/fit_aivat_mlp.py``); on the same deals it removed no more variance than the linear
model, so the harness keeps the linear one. Whatever its quality the correction below has mean
zero; a better value only removes more variance.

**Correction.** At a draw, each seat ``s`` gets ``V_s(after the card drawn) - sum_t p_t V_s(after
card t)``: its value as the draw fell minus its expectation over the stock. ``ChanceRecorder``
hooks the game's stock (one game, one recorder) and sums these per seat.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import math
from collections.abc import Sequence
from dataclasses import dataclass
from importlib import resources
from typing import Any

import numpy as np

from continental_env.cards import NUM_TYPES
from continental_env.contract.game import Game
from continental_env.contract.state import Phase
from continental_env.melds.distance import hand_analysis

MODEL_FILE = "aivat_value_v1.json"  # the harness's; each file is frozen: a refit goes to a new file
CAP = 6  # distances and stuck counts above this add nothing the model can use

TIME_CAP = 40.0  # draws: a seat this far from its contract is simply far

# The value model's inputs, for one seat, in order (``features``). "down": laid down this round,
# "up" not; "d": distance to the contract (0 once down); "pts": points in hand; "dead": points of
# the cards outside its best plan (``hand_analysis``; down: of the cards fitting no table meld);
# "p": the share of the stock that would bring it nearer; "ttc": draws to the contract at that
# rate, d / p, over ten; "stuck": cards that fit no table meld (a seat down closes once at most
# one is left); "od", "ottc": the nearest distance and time among the other seats not down;
# "olaid": other seats down; "ostuck": the fewest stuck cards among them (CAP if none); "first":
# a race's guess that it closes first (``first_share``), so "pts*(1-first)" guesses the points
# it is left holding.
FEATURES = (
    "1", "pts", "dead", "n", "down", "up*d", "up*[d=0]", "up*[d=1]", "up*[d=2]", "up*p",
    "up*ttc", "dead*up*[d<=1]", "pts*up*[d=0]", "pts*ttc", "pts*down", "down*stuck",
    "down*[stuck<=1]", "pts*down*[stuck<=1]", "od", "ottc", "olaid", "ostuck", "pts*[olaid>0]",
    "pts*[od=0]", "pts*ottc", "pts*ostuck", "turn", "pts*turn", "first", "pts*(1-first)",
    "dead*(1-first)",
)  # fmt: skip
RACE_SCALE = 2.0  # turns: how sharply the nearer seat is the likelier first to close ("first")


@dataclass(frozen=True)
class Seat:
    """What the value reads of one seat's hand."""

    down: bool
    distance: int  # to the contract; 0 once down
    points: int
    cards: int
    stuck: int  # cards fitting no table meld (down); all its cards (not down)
    dead: int = 0  # points outside the best plan (not down), of the stuck cards (down)
    share: float = 0.0  # of the stock that brings it nearer (not down)

    @property
    def time(self) -> float:
        """Draws to the contract at its share of the stock, over ten (0 once down)."""
        if self.down:
            return 0.0
        return min(self.distance / max(self.share, 1.0 / TIME_CAP), TIME_CAP) / 10.0

    @property
    def turns(self) -> float:
        """A rough count of turns before it can close: draws to the contract and one turn more
        (not down); down, a turn per stuck card beyond the one it closes with."""
        if self.down:
            return max(self.stuck - 1, 0)
        return 10.0 * self.time + 1.0


def first_share(me: Seat, others: Sequence[Seat]) -> float:
    """A race's guess at the chance that ``me`` closes first: softmin of the seats' ``turns``."""
    mine = math.exp(-me.turns / RACE_SCALE)
    return mine / (mine + sum(math.exp(-o.turns / RACE_SCALE) for o in others))


def features(me: Seat, others: Sequence[Seat], turn: int) -> list[float]:
    """The model's inputs (``FEATURES``) for seat ``me`` given the other seats."""
    up = 0.0 if me.down else 1.0
    down = 1.0 - up
    d = min(me.distance, CAP)
    pts = float(me.points)
    waiting = [o for o in others if not o.down]
    od = min(min((o.distance for o in waiting), default=CAP), CAP)
    ottc = min((o.time for o in waiting), default=TIME_CAP / 10.0)
    olaid = sum(o.down for o in others)
    ostuck = min([min(o.stuck, CAP) for o in others if o.down], default=CAP)
    near = 1.0 if me.stuck <= 1 else 0.0
    ttc = me.time
    t = turn / 10.0
    first = first_share(me, others)
    return [
        1.0, pts, float(me.dead), float(me.cards), down, up * d, up * (d == 0), up * (d == 1),
        up * (d == 2), up * me.share, up * ttc, me.dead * up * (d <= 1), pts * up * (d == 0),
        pts * ttc, pts * down, down * min(me.stuck, CAP), down * near, pts * down * near,
        float(od), ottc, float(olaid), float(ostuck), pts * (olaid > 0), pts * (od == 0),
        pts * ottc, pts * ostuck, t, pts * t, first, pts * (1.0 - first), me.dead * (1.0 - first),
    ]  # fmt: skip


@dataclass(frozen=True)
class ValueModel:
    """Per round, the weights of ``FEATURES`` estimating a seat's points at the round's end."""

    name: str
    weights: dict[int, tuple[float, ...]]  # round number -> one weight per feature

    @property
    def label(self) -> str:
        """The name and a digest of the weights, as reports and checkpoints name the model: a
        file refitted under an old name still tells its corrections apart."""
        text = json.dumps(sorted(self.weights.items()))
        return f"{self.name}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"

    def value(self, round_number: int, me: Seat, others: Sequence[Seat], turn: int) -> float:
        """The estimated points ``me`` scores when this round ends (0 for a round not fitted)."""
        return self.value_of(round_number, features(me, others, turn))

    def value_of(self, round_number: int, inputs: Sequence[float]) -> float:
        """The value of ``features`` already computed (0 for a round not fitted)."""
        w = self.weights.get(round_number)
        if w is None:
            return 0.0
        return math.fsum(a * b for a, b in zip(w, inputs, strict=True))

    def draw_corrections(
        self, round_number: int, variants: Sequence[Any], copies: Sequence[int], actual: int
    ) -> list[float]:
        """Per seat, V(as the draw fell) - E[V]; by linearity, the value of the features as they
        fell minus the value of their expectation (``MlpValueModel.draw_corrections``' arguments)."""
        expected = expected_features(variants, copies)
        return [
            self.value_of(round_number, variants[actual][k]) - self.value_of(round_number, e)
            for k, e in enumerate(expected)
        ]

    @staticmethod
    def from_dict(data: Any, where: str) -> ValueModel:
        """The model of a JSON object; ValueError naming ``where`` and what is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError(f"{where}: not a value model (needs 'name' and 'weights')")
        if data.get("features") != list(FEATURES):
            raise ValueError(f"{where}: its features are not this version's {len(FEATURES)}")
        weights = data.get("weights")
        if not isinstance(weights, dict) or not weights:
            raise ValueError(f"{where}: 'weights' must map round numbers to weight lists")
        out: dict[int, tuple[float, ...]] = {}
        for key, row in weights.items():
            ok = isinstance(row, list) and len(row) == len(FEATURES)
            if not (key.isascii() and key.isdigit() and ok and all(_finite(x) for x in row)):
                raise ValueError(
                    f"{where}: weights of round {key!r} must be {len(FEATURES)} finite numbers"
                )
            out[int(key)] = tuple(float(x) for x in row)
        return ValueModel(data["name"], out)


ROUNDS = 7  # the network's one-hot of the round number (1..ROUNDS); other rounds get no correction


@dataclass(frozen=True, eq=False)  # holds arrays: compared by identity
class MlpValueModel:
    """A value of two parts, both reading ``FEATURES`` of a seat: a small network (ReLU layers,
    its inputs the standardised features and a one-hot of the round number) times ``scale``,
    plus a linear term ``linear``. ``scripts/fit_aivat_mlp.py`` regresses the network on each
    seat's points at the round's end and then fits the mix so the paired difference varies least;
    a fixed function either way, so the correction keeps its mean of zero."""

    name: str
    mean: tuple[float, ...]
    spread: tuple[float, ...]
    layers: tuple[tuple[Any, Any], ...]  # (weights in x out, bias) per layer, numpy arrays
    scale: float
    linear: tuple[float, ...]

    @property
    def label(self) -> str:
        """The name and a digest of everything the value computes with."""
        text = json.dumps(self.to_dict(), sort_keys=True)
        return f"{self.name}:{hashlib.sha256(text.encode()).hexdigest()[:12]}"

    @staticmethod
    def network_only(name: str, network: dict[str, Any]) -> MlpValueModel:
        """The network of ``network`` (``mean``, ``scale``, ``layers`` of ``w``, ``b``) alone."""
        layers = tuple(
            (np.asarray(layer["w"], np.float64), np.asarray(layer["b"], np.float64))
            for layer in network["layers"]
        )
        return MlpValueModel(
            name, tuple(network["mean"]), tuple(network["scale"]), layers, 1.0,
            (0.0,) * len(FEATURES),
        )  # fmt: skip

    def with_mix(self, linear: Sequence[float], scale: float) -> MlpValueModel:
        """The same network with the mix's weights."""
        return dataclasses.replace(self, linear=tuple(linear), scale=scale)

    def network_values(self, rows: Any, round_index: Any) -> Any:
        """The network alone, per row of ``rows`` (features) and its round index (number - 1);
        0 for a round index outside the one-hot."""
        rows = np.asarray(rows, np.float64)
        idx = np.asarray(round_index)
        known = (idx >= 0) & (idx < ROUNDS)
        onehot = np.zeros((len(rows), ROUNDS))
        onehot[np.flatnonzero(known), idx[known]] = 1.0
        h = np.concatenate([(rows - self.mean) / self.spread, onehot], axis=1)
        for i, (w, b) in enumerate(self.layers):
            h = h @ w + b
            if i < len(self.layers) - 1:
                h = np.maximum(h, 0.0)
        return np.where(known, h[:, 0], 0.0)

    def row_values(self, rows: Any, round_index: Any) -> Any:
        """The value of each row of features and its round index (number - 1); 0 for a round
        outside the one-hot."""
        rows = np.asarray(rows, np.float64)
        idx = np.asarray(round_index)
        linear = np.where((idx >= 0) & (idx < ROUNDS), rows @ np.asarray(self.linear), 0.0)
        return self.scale * self.network_values(rows, idx) + linear

    def values(self, round_number: int, rows: Any) -> Any:
        """The value of each row of features in round ``round_number``."""
        rows = np.asarray(rows, np.float64)
        return self.row_values(rows, np.full(len(rows), round_number - 1))

    def draw_corrections(
        self, round_number: int, variants: Sequence[Any], copies: Sequence[int], actual: int
    ) -> list[float]:
        """Per seat, V(as the draw fell) - E[V]: ``variants`` are the seats' feature rows after
        each distinct outcome, ``copies`` how many stock cards give each, ``actual`` the one that fell."""
        seats = len(variants[0])
        v = self.values(round_number, np.asarray(variants, np.float64).reshape(-1, len(FEATURES)))
        v = v.reshape(len(variants), seats)
        p = np.asarray(copies, np.float64) / sum(copies)
        return [float(x) for x in v[actual] - p @ v]

    def to_dict(self) -> dict[str, Any]:
        """The model as JSON data (``from_dict`` reads it back)."""
        return {
            "name": self.name,
            "kind": "network",
            "features": list(FEATURES),
            "rounds": ROUNDS,
            "mean": list(self.mean),
            "spread": list(self.spread),
            "layers": [{"w": w.tolist(), "b": b.tolist()} for w, b in self.layers],
            "scale": self.scale,
            "linear": list(self.linear),
        }

    @staticmethod
    def from_dict(data: Any, where: str) -> MlpValueModel:
        """The model of a JSON object; ValueError naming ``where`` and what is wrong."""
        if not isinstance(data, dict) or not isinstance(data.get("name"), str):
            raise ValueError(f"{where}: not a network value model (needs 'name' and 'layers')")
        if data.get("features") != list(FEATURES) or data.get("rounds") != ROUNDS:
            raise ValueError(f"{where}: its features or rounds are not this version's")
        try:
            layers = tuple((_numbers(x["w"]), _numbers(x["b"])) for x in data["layers"])
            vectors = [tuple(_numbers(data[key]).tolist()) for key in ("mean", "spread", "linear")]
            scale = float(_numbers(data["scale"]))
        except (KeyError, TypeError, ValueError, OverflowError) as exc:
            raise ValueError(f"{where}: not a network value model ({exc})") from None
        _check_network(layers, vectors, scale, where)
        mean, spread, linear = vectors
        return MlpValueModel(data["name"], mean, spread, layers, scale, linear)


def _numbers(data: Any) -> Any:
    """``data`` (JSON numbers, nested lists of them) as a float64 array; TypeError for strings,
    booleans or anything else that is not a number."""
    raw = np.asarray(data)
    if raw.dtype.kind not in "iuf":
        raise TypeError(f"expected numbers, got {raw.dtype.name} values")
    return raw.astype(np.float64)


def _check_network(
    layers: tuple, vectors: list[tuple[float, ...]], scale: float, where: str
) -> None:
    """ValueError unless the layers chain from the inputs to one output, the mean, spread and
    linear weights have one number per feature, all finite, and every spread is positive."""
    n = len(FEATURES)
    width = n + ROUNDS
    for w, b in layers:
        if w.ndim != 2 or w.shape[0] != width or b.shape != (w.shape[1],):
            raise ValueError(f"{where}: a layer's shape does not follow the one before")
        width = w.shape[1]
    if not layers or width != 1 or any(len(v) != n for v in vectors):
        raise ValueError(f"{where}: needs layers ending in one output and {n} of each input")
    numbers = [np.ravel(a) for layer in layers for a in layer] + [np.asarray(v) for v in vectors]
    if not np.all(np.isfinite(np.concatenate([*numbers, [scale]]))) or min(vectors[1]) <= 0:
        raise ValueError(f"{where}: every number must be finite and every spread > 0")


def _finite(x: Any) -> bool:
    """A JSON number (not a boolean) that a float holds, finite."""
    if not isinstance(x, (int, float)) or isinstance(x, bool):
        return False
    try:
        return math.isfinite(x)
    except OverflowError:  # an integer past float's range
        return False


def load_model(name: str = MODEL_FILE) -> ValueModel | MlpValueModel:
    """A frozen value model shipped in ``agents/models`` (linear, or a network: ``"kind"``)."""
    try:
        data = json.loads(resources.files("agents.models").joinpath(name).read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"{name}: not JSON ({exc})") from None
    if isinstance(data, dict) and data.get("kind") == "network":
        return MlpValueModel.from_dict(data, name)
    return ValueModel.from_dict(data, name)


def seat_of(
    game: Game, seat: int, fits: Sequence[int], pool: Sequence[int], extra: int | None = None
) -> Seat:
    """Seat ``seat`` as the value reads it, with card ``extra`` added to its hand if given;
    ``pool``: copies of each card type the stock holds (``stock_counts``)."""
    s = game.state
    hand = list(s.hands[seat])
    if extra is not None:
        hand[extra] += 1
    pts = game.points
    points = sum([n * p for n, p in zip(hand, pts, strict=True) if n])
    cards = s.hand_sizes[seat] + (extra is not None)
    if s.laid_down[seat]:
        return _down_seat(hand, pts, fits, points, cards)
    return _up_seat(game, hand, pts, pool, points, cards)


def _down_seat(
    hand: list[int], pts: Sequence[int], fits: Sequence[int], points: int, cards: int
) -> Seat:
    """A seat that has laid down: its cards that fit no table meld are what keep it open."""
    stuck = [c for c, n in enumerate(hand) if n and not fits[c]]
    dead = sum(hand[c] * pts[c] for c in stuck)
    return Seat(True, 0, points, cards, sum(hand[c] for c in stuck), dead)


def _up_seat(
    game: Game, hand: list[int], pts: Sequence[int], pool: Sequence[int], points: int, cards: int
) -> Seat:
    """A seat not yet down: its distance to the contract, the points outside its best plan, the
    share of the stock that brings it nearer (``hand_analysis``)."""
    trios, runs = game.contract
    distance, reducers, in_trio, in_run = hand_analysis(tuple(hand), trios, runs, game.rules)
    used = sum([(a + b) * p for a, b, p in zip(in_trio, in_run, pts, strict=True) if a or b])
    total = sum(pool)
    share = sum([pool[c] for c in reducers]) / total if total and distance else 0.0
    return Seat(False, distance, points, cards, cards, points - used, share)


def stock_counts(game: Game) -> list[int]:
    """Copies of each card type the next stock card may be, a re-formed stock included
    (``Game._pop_stock``: the discard pile but its top card); all zero when no card can come."""
    s = game.state
    pool = s.stock if s.stock else (s.discard[:-1] if len(s.discard) > 1 else [])
    counts = [0] * NUM_TYPES
    for c in pool:
        counts[c] += 1
    return counts


def stock_outcomes(game: Game) -> list[tuple[int, int]]:
    """(card type, copies) of the cards the next stock card may be (``stock_counts``)."""
    return [(c, n) for c, n in enumerate(stock_counts(game)) if n]


def draw_features(game: Game) -> tuple[int, dict[int, list[list[float]]]]:
    """At a draw (before the card leaves the stock): who receives it, and for each card type the
    stock holds, every seat's ``features`` once that card is in the receiver's hand."""
    s = game.state
    receiver = s.asked if s.phase == Phase.CLAIM and s.asked is not None else s.current
    fits = game.fitting_counts()
    pool = stock_counts(game)
    seats = [seat_of(game, k, fits, pool) for k in range(game.num_players)]
    out: dict[int, list[list[float]]] = {}
    cache: dict[Seat, list[list[float]]] = {}  # cards that leave the receiver alike: once each
    for card, copies in enumerate(pool):
        if not copies:
            continue
        mine = seat_of(game, receiver, fits, pool, card)
        if mine not in cache:
            after = list(seats)
            after[receiver] = mine
            cache[mine] = [features(after[k], after[:k] + after[k + 1 :], s.turn)
                           for k in range(game.num_players)]  # fmt: skip
        out[card] = cache[mine]
    return receiver, out


def expected_features(variants: Sequence[Any], copies: Sequence[int]) -> list[list[float]]:
    """Per seat, the features' expectation over a draw's outcomes: ``variants`` are the seats'
    feature rows after each distinct outcome, ``copies`` how many stock cards give each."""
    total = sum(copies)
    return [
        [math.fsum(v[k][i] * n for v, n in zip(variants, copies, strict=True)) / total
         for i in range(len(FEATURES))]
        for k in range(len(variants[0]))
    ]  # fmt: skip


class ChanceRecorder:
    """Sums, per seat, the correction of every stock draw of one game (see the module
    docstring): attach it to a new game, play the game, read ``corrections``. A subclass may
    also keep each draw's outcomes (``seen``; the fitting scripts do)."""

    def __init__(self, game: Game, model: ValueModel | MlpValueModel) -> None:
        self.game, self.model = game, model
        self.corrections = [0.0] * game.num_players
        self.events = 0
        draw = game._pop_stock  # the engine's own draw, called by the hook below
        game._pop_stock = lambda: self._draw(draw)  # an instance attribute: this game only

    def _draw(self, draw: Any) -> int | None:
        game = self.game
        outcomes = stock_outcomes(game)
        if not outcomes:  # nothing can come: no chance
            return draw()
        _receiver, feats = draw_features(game)
        # Outcomes sharing one features object (draw_features' cache) are counted once.
        index: dict[int, int] = {}
        variants: list[list[list[float]]] = []
        copies: list[int] = []
        for c, n in outcomes:
            if id(feats[c]) not in index:
                index[id(feats[c])] = len(variants)
                variants.append(feats[c])
                copies.append(0)
            copies[index[id(feats[c])]] += n
        card = draw()
        assert card is not None  # the stock or the re-formed stock held a card
        actual = index[id(feats[card])]
        deltas = self.model.draw_corrections(game.state.round, variants, copies, actual)
        for k, delta in enumerate(deltas):
            self.corrections[k] += delta
        self.events += 1
        self.seen(variants, copies, actual)
        return card

    def seen(self, variants: list[list[list[float]]], copies: list[int], actual: int) -> None:
        """Called at each draw with its outcomes (``MlpValueModel.draw_corrections``' arguments);
        nothing here: a subclass may keep them (``scripts/fit_aivat_value.py``,
        ``scripts/fit_aivat_mlp.py``)."""


def attach(game: Any, model_name: str = MODEL_FILE) -> ChanceRecorder:
    """A recorder on a new contract game (``GameSpec.chance_recorder``)."""
    return ChanceRecorder(game, _model(model_name))


_MODELS: dict[str, ValueModel | MlpValueModel] = {}


def _model(name: str) -> ValueModel | MlpValueModel:
    """``load_model`` once per process."""
    if name not in _MODELS:
        _MODELS[name] = load_model(name)
    return _MODELS[name]
