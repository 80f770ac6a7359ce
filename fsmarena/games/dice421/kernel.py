"""421 as a compiled single-game kernel: one game at a time over small int64 vectors.

The rules of 421 (:mod:`fsmarena.games.dice421.game` documents them; three dice seen sorted
descending, ``rethrows`` re-throws, 8 re-throw masks, keeping all stops, with no re-throw left
only keeping all is legal), written as plain Python functions over numpy arrays and compiled
with numba (:func:`fsmarena.jit.njit`; ``NUMBA_DISABLE_JIT=1`` runs them uncompiled).

Parameters ``p`` (:func:`make_params`), int64::

    p[0]                rethrows R
    p[1 : 57]           score of each of the 56 descending triples (the game's score table)
    p[57], p[58]        lowest score, and max(1, highest - lowest) (the ``score`` feature)
    p[59]               K, the throws a deal holds (0 unless a test scripts throws)
    p[60 : 60 + S]      the exact optimal action per observation index, S = 56 (R + 1) + 1
                        (the ``optimal`` builtin; ties towards the lower action, as the game's)

Throws: throw 0 is the first throw (sorted descending), and throw ``j >= 1`` sets every
re-thrown position ``q`` of the descending triple to its ``q``-th die - exactly the ``rolls``
that script :meth:`Dice421.play`, so a test gives both the same dice.

Deal (:func:`draw_deal`, ``3 K + 4`` numbers): the dice (1..6) of the first ``K`` throws
(none unless a test scripts them), throw ``j`` at ``deal[3j : 3j + 3]``, then the seed of the
game's own stream (:func:`fsmarena.games.draws.seed_stream`).  Throw ``j >= K`` is thrown when it
happens (the first at :func:`reset`, a re-throw in :func:`step`) from the game's stream, three
dice whatever the mask: a game that stops at once draws three dice, not ``3 (R + 1)``, and a
game's throws are a function of its deal alone (:func:`round_rolls` lists them; the tests give
them to the plain reference, :mod:`fsmarena.games.dice421.reference`).

State ``s`` (int64, :func:`state_size` = 12 + 3 max(K - 1, 0))::

    s[0]  throws left        s[1:4]  the dice, descending        s[4]  1 once the game is over
    s[5:9]  the game's stream          s[9:12]  the last throw drawn from it
    s[12:]  the deal's throws 1 to K - 1 (none when K is 0 or 1)

Triple ids are the game's: the descending triples in lexicographic order, id of ``(h, m, l)`` =
``C(h+1, 3) + C(m, 2) + (l - 1)``; observation index ``throws_left * 56 + triple``.

The functions a game calls are compiled inline into their callers (``inline="always"``, as in
:mod:`fsmarena.games.bidding`): a game is a few of them, and a call costs more than their rules.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from fsmarena.games.draws import (
    SEED_WORDS,
    STREAM_WORDS,
    fill_uniform,
    fill_uniform_stream,
    load_stream,
    scripted_deals,
    seed_stream,
)
from fsmarena.jit import njit

N_TRIPLES = 56
N_ACTIONS = 8
N_FEATURES = 5
LEFT, D0, D1, D2, DONE = range(5)
STREAM = 5
THROWN = STREAM + STREAM_WORDS
THROWS = THROWN + 3
P_SCORES, P_LOW, P_SPAN, P_DEAL_THROWS, P_OPTIMAL = 1, 57, 58, 59, 60
#: throws a deal holds unless a test scripts some (:func:`make_params`): none, every throw is
#: drawn from the game's stream when it happens (measured in a bare loop: three dice drawn with
#: the deal, about 6 ns; a word of the game's stream, about 1.3 ns; and the deal is 4 numbers)
DEAL_THROWS = 0
#: builtin players by code (``builtin_action``), the names of ``Dice421.builtin_players``
BUILTINS = ("random", "always-stop", "optimal")
RANDOM, ALWAYS_STOP, OPTIMAL = range(3)
#: observation parts beyond index, features, mask and encodings (:mod:`fsmarena.games.kernel`): the
#: re-throws used, the dice (descending) and their score
PARTS = (("step", "int"), ("dice", "int"), ("score", "int"))


def make_params(config: Any, deal_throws: int = DEAL_THROWS) -> np.ndarray:
    """The rules of a :class:`Dice421Config` (or a :class:`Dice421`) packed into one int64
    array; ``deal_throws``: the throws a deal holds (a test scripts the dice of that many
    throws, the first included)."""
    from fsmarena.games.dice421.game import Dice421

    if isinstance(deal_throws, bool) or not isinstance(deal_throws, (int, np.integer)) or deal_throws < 0:
        raise ValueError(f"deal_throws must be a whole number from 0, got {deal_throws!r}")
    game = config if isinstance(config, Dice421) else Dice421(config)
    score = game.tables.score
    low, high = int(score.min()), int(score.max())
    optimal = game.exact_optimum()[1]
    head = [game.config.rethrows]
    return np.concatenate([head, score, [low, max(1, high - low), deal_throws], optimal]).astype(np.int64)


@njit(inline="always")
def _deal_throws(p: np.ndarray) -> int:
    """``K``: the throws a deal holds."""
    return p[P_DEAL_THROWS]


@njit
def state_size(p: np.ndarray) -> int:
    return THROWS + 3 * max(_deal_throws(p) - 1, 0)


@njit
def deal_size(p: np.ndarray) -> int:
    return 3 * _deal_throws(p) + SEED_WORDS


@njit
def n_seats(p: np.ndarray) -> int:
    return 1


@njit
def n_actions(p: np.ndarray) -> int:
    return N_ACTIONS


@njit
def n_states(p: np.ndarray) -> int:
    return N_TRIPLES * (p[0] + 1) + 1


@njit
def n_features(p: np.ndarray) -> int:
    return N_FEATURES


@njit
def n_encodings(p: np.ndarray) -> int:
    return 2


@njit
def encoding_size(p: np.ndarray, which: int) -> int:
    """``throws_left`` (R + 1 values), then ``triple`` (56), as ``Dice421.encodings``."""
    return p[0] + 1 if which == 0 else N_TRIPLES


@njit(inline="always")
def draw_deal(p: np.ndarray, deal: np.ndarray) -> None:
    """The deal's ``K`` throws (:func:`fsmarena.games.draws.fill_uniform`), then the seed of the game's
    stream (:func:`fsmarena.games.draws.seed_stream`)."""
    K = _deal_throws(p)
    if K > 0:
        fill_uniform(deal, 0, 3 * K, 1, 7)
    seed_stream(deal, 3 * K)


@njit(inline="always")
def _sort3(s: np.ndarray, a: int, b: int, c: int) -> None:
    """Store three dice in ``s[D0:D2+1]`` in descending order."""
    if a < b:
        a, b = b, a
    if b < c:
        b, c = c, b
    if a < b:
        a, b = b, a
    s[D0], s[D1], s[D2] = a, b, c


@njit(inline="always")
def reset(p: np.ndarray, s: np.ndarray, deal: np.ndarray) -> None:
    """Start a game: the first throw, all re-throws left; the state keeps the game's stream
    and the deal's later throws."""
    K = _deal_throws(p)
    load_stream(s, STREAM, deal, 3 * K)
    for i in range(3 * (K - 1)):
        s[THROWS + i] = deal[3 + i]
    s[LEFT] = p[0]
    s[DONE] = 0
    if K > 0:
        _sort3(s, deal[0], deal[1], deal[2])
    else:
        fill_uniform_stream(s, THROWN, 3, 1, 7, s, STREAM)
        _sort3(s, s[THROWN], s[THROWN + 1], s[THROWN + 2])


@njit(inline="always")
def triple_id(s: np.ndarray) -> int:
    """The game's number of the descending triple in ``s``."""
    h, m, lo = s[D0], s[D1], s[D2]
    return (h - 1) * h * (h + 1) // 6 + (m - 1) * m // 2 + lo - 1


@njit(inline="always")
def to_move(p: np.ndarray, s: np.ndarray) -> int:
    return -1 if s[DONE] else 0


@njit(inline="always")
def observe_index(p: np.ndarray, s: np.ndarray, seat: int) -> int:
    if s[DONE]:
        return N_TRIPLES * (p[0] + 1)
    return s[LEFT] * N_TRIPLES + triple_id(s)


@njit(inline="always")
def features(p: np.ndarray, s: np.ndarray, seat: int, out: np.ndarray) -> None:
    """high, middle, low as (d - 1) / 5, throws left / R, score rescaled to [0, 1]."""
    out[0] = (s[D0] - 1) / 5.0
    out[1] = (s[D1] - 1) / 5.0
    out[2] = (s[D2] - 1) / 5.0
    out[3] = s[LEFT] / p[0] if p[0] else 0.0
    out[4] = (p[P_SCORES + triple_id(s)] - p[P_LOW]) / p[P_SPAN]


@njit(inline="always")
def legal(p: np.ndarray, s: np.ndarray, seat: int, mask: np.ndarray) -> None:
    """Every mask while a re-throw is left, only keeping all (action 0) after the last one."""
    for a in range(N_ACTIONS):
        mask[a] = s[LEFT] > 0 or a == 0


@njit(inline="always")
def is_legal(p: np.ndarray, s: np.ndarray, seat: int, action: int, mask: np.ndarray) -> bool:
    """:func:`legal`'s rule for one action, without the mask."""
    return s[LEFT] > 0 or action == 0


@njit
def always_masked(p: np.ndarray) -> bool:
    """A mask only after the last re-throw (only keeping all is legal there)."""
    return False


@njit(inline="always")
def encoding(p: np.ndarray, s: np.ndarray, seat: int, which: int) -> int:
    return s[LEFT] if which == 0 else triple_id(s)


@njit
def part_size(p: np.ndarray, which: int) -> int:
    return 3 if which == 1 else 0


@njit
def observe_part(p: np.ndarray, data: np.ndarray, s: np.ndarray, seat: int, which: int, out: np.ndarray) -> None:
    """``step`` (re-throws used), ``dice`` (descending), ``score`` (of the dice as they stand)."""
    if which == 0:
        out[0] = p[0] - s[LEFT]
    elif which == 1:
        out[0], out[1], out[2] = s[D0], s[D1], s[D2]
    else:
        out[0] = p[P_SCORES + triple_id(s)]


def part_data(config: Any) -> np.ndarray:
    """No part reads a table."""
    return np.zeros((1, 1))


@njit(inline="always")
def step(p: np.ndarray, s: np.ndarray, action: int) -> None:
    """Keep all (or no re-throw left): the game ends; otherwise re-throw the masked dice."""
    if action == 0 or s[LEFT] == 0:
        s[DONE] = 1
        return
    at = _throw(p, s, p[0] - s[LEFT] + 1)
    a = s[at] if action & 4 else s[D0]
    b = s[at + 1] if action & 2 else s[D1]
    c = s[at + 2] if action & 1 else s[D2]
    s[LEFT] -= 1
    _sort3(s, a, b, c)


@njit(inline="always")
def _throw(p: np.ndarray, s: np.ndarray, j: int) -> int:
    """Where in ``s`` the dice of throw ``j >= 1`` are: the deal's, or three drawn now from the
    game's stream."""
    if j < _deal_throws(p):
        return THROWS + 3 * (j - 1)
    fill_uniform_stream(s, THROWN, 3, 1, 7, s, STREAM)
    return THROWN


@njit(inline="always")
def scores(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> None:
    out[0] = p[P_SCORES + triple_id(s)]


@njit(inline="always")
def rewards(p: np.ndarray, s: np.ndarray, out: np.ndarray) -> None:
    """One player: the reward is the score."""
    scores(p, s, out)


@njit(inline="always")
def builtin_action(p: np.ndarray, s: np.ndarray, seat: int, code: int, args: np.ndarray) -> int:
    """``random`` (uniform among legal masks), ``always-stop``, ``optimal`` (exact policy)."""
    if code == OPTIMAL:
        return p[P_OPTIMAL + observe_index(p, s, seat)]
    if code == RANDOM and s[LEFT] > 0:
        return np.random.randint(0, N_ACTIONS)
    return 0


# ---- for tests -----------------------------------------------------------------------------


@njit
def round_rolls(p: np.ndarray, deal: np.ndarray, out: np.ndarray) -> None:
    """The dice of throws ``0 .. len(out) - 1`` (``out`` of shape ``(throws, 3)``) the kernel
    throws from ``deal``: the deal's ``K``, then the game's stream's (what :func:`step` draws
    when the player re-throws; for tests, which give them to the reference)."""
    s = np.zeros(state_size(p), dtype=np.int64)
    K = _deal_throws(p)
    load_stream(s, STREAM, deal, 3 * K)
    for j in range(out.shape[0]):
        if j < K:
            out[j, :] = deal[3 * j : 3 * j + 3]
        else:
            fill_uniform_stream(s, THROWN, 3, 1, 7, s, STREAM)
            out[j, :] = s[THROWN : THROWN + 3]


def scripted(config: Any, deals: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The packed rules and kernel deals that play scripted deals (``Dice421.play(deals=...)``,
    :mod:`fsmarena.games.kernel`): each row the dice of its first throws, three per throw (a re-thrown
    position ``q`` of the descending triple takes the throw's ``q``-th die), optionally followed
    by the seed of the game's stream, which throws the dice past the script
    (:func:`fsmarena.games.draws.scripted_deals`).  Dice outside 1..6 are a ValueError."""
    throws, deals = scripted_deals(deals, 3)
    dice = deals[:, : 3 * throws]
    if dice.size and (dice.min() < 1 or dice.max() > 6):
        raise ValueError(f"scripted dice must be 1 to 6, got {int(dice.min())} to {int(dice.max())}")
    return make_params(config, throws), deals


def reference_deal(config: Any, deals: np.ndarray) -> dict:
    """``deals`` (one kernel deal per row, made with ``make_params(config, K)``) in the
    reference's terms: the dice of every throw the kernel throws from them, ``rolls`` of shape
    ``(rows, rethrows + 1, 3)`` (:func:`round_rolls`); any script :func:`scripted` plays."""
    p, deals = scripted(config, np.ascontiguousarray(deals, dtype=np.int64))
    rolls = np.zeros((len(deals), config.rethrows + 1, 3), dtype=np.int64)
    for row, deal in enumerate(deals):
        round_rolls(p, deal, rolls[row])
    return {"rolls": rolls}


def test_configs() -> list:
    """Rule sets the kernel-vs-reference tests cover."""
    from fsmarena.games.dice421.game import Dice421Config

    return [Dice421Config(), Dice421Config(rethrows=0), Dice421Config(rethrows=4, scores="sum")]
