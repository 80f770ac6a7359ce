"""The iterated prisoner's dilemma, one match at a time, compiled (the contract of
:mod:`fsmarena.games.kernel`, written with its defaults: what this module does not define,
``complete(globals())`` gives it on the last line).

Parameters ``p`` (int64): ``[R, S, T, P, turns, memory, noise, prob_end, words, digits,
generosity]``; ``noise``, ``prob_end`` and ``generosity`` (the generous tit for tat's default,
from the payoffs) are float64 bit patterns; ``words`` is the number of 62-bit words of noise
flips in a deal (0 without noise); ``digits`` = max(memory, 2) joint moves kept.

Deal (int64): ``[length, flip words...]``: the match's number of turns (``turns``, or drawn as
Axelrod's library draws it from ``prob_end``, at most ``turns``), then bit ``2 * turn + seat``
set when that seat's action of that turn is flipped by the noise.

State ``s`` (int64): ``[turn, seat to choose, seat 0's pending choice, history, seat 0 ever
defected, seat 1 ever defected, total 0, total 1, cooperations 0, cooperations 1, length,
flip words...]``.  The history holds the last ``digits`` joint moves in base 5, the latest
lowest, each ``1 + 2 * a0 + a1`` (``a = 0`` C, 1 D; 0: before the first turn).  Moves are
simultaneous, serialised: seat 0 chooses, then seat 1, and the turn resolves (no observation
shows seat 0's pending choice).
"""

from __future__ import annotations

import math

import numpy as np

from fsmarena.games.kernel import complete, rank_rewards
from fsmarena.jit import njit

C, D = 0, 1
BUILTINS = (
    "random",
    "cooperator",
    "defector",
    "tit-for-tat",
    "grudger",
    "grim",
    "tit-for-two-tats",
    "win-stay-lose-shift",
    "alternator",
    "suspicious-tit-for-tat",
    "generous-tit-for-tat",
    "bully",
)
#: what the learners maximise: the score per turn, not the ranking (the game's ``objective``)
OBJECTIVE = "score"
#: ``random`` is Axelrod's ``Random(p)``: it cooperates with probability ``p``
OWN_RANDOM = True
BUILTIN_ARGS = {
    "random": (("p", 0.5, 0.0, 1.0),),
    # -1: Nowak and Sigmund's min(1 - (T - R) / (R - S), (R - P) / (T - P)) of the payoffs (1/3)
    "generous-tit-for-tat": (("generosity", -1.0, -1.0, 1.0),),
}
_R, _S, _T, _P, _TURNS, _MEMORY, _NOISE, _PROB_END, _WORDS, _DIGITS, _GENEROSITY = range(11)
_TURN, _MOVER, _PENDING, _HIST, _DEF, _TOTAL, _COOP, _LENGTH, _FLIPS = 0, 1, 2, 3, 4, 6, 8, 10, 11
BITS = 62


def make_params(config) -> np.ndarray:
    words = math.ceil(2 * config.turns / BITS) if config.noise > 0 else 0
    floats = np.array([config.noise, config.prob_end, config.generosity], dtype=np.float64).view(np.int64)
    payoffs = [config.reward, config.sucker, config.temptation, config.punishment]
    head = [*payoffs, config.turns, config.memory]
    return np.array([*head, floats[0], floats[1], words, max(config.memory, 2), floats[2]], dtype=np.int64)


@njit
def _float(p, which):
    return p[which : which + 1].view(np.float64)[0]


@njit
def state_size(p):
    return _FLIPS + p[_WORDS]


@njit
def deal_size(p):
    return 1 + p[_WORDS]


@njit
def n_seats(p):
    return 2


@njit
def n_actions(p):
    return 2


@njit
def n_states(p):
    return 5 ** p[_MEMORY]


@njit
def n_features(p):
    return 4


@njit
def n_encodings(p):
    return 1


@njit
def encoding_size(p, which):
    return 3


@njit
def draw_deal(p, deal):
    """The length (Axelrod's ``sample_length``: ceil(log(1 - u) / log(1 - prob_end))), then the flips."""
    length = p[_TURNS]
    prob_end = _float(p, np.int64(_PROB_END))
    if prob_end >= 1.0:
        length = 1
    elif prob_end > 0.0:
        drawn = math.ceil(math.log(1.0 - np.random.random()) / math.log(1.0 - prob_end))
        length = min(max(drawn, 1), p[_TURNS])
    deal[0] = length
    noise = _float(p, np.int64(_NOISE))
    for word in range(p[_WORDS]):
        deal[1 + word] = 0
    if noise > 0.0:
        for bit in range(2 * length):
            if np.random.random() < noise:
                deal[1 + bit // BITS] |= 1 << (bit % BITS)


@njit
def reset(p, s, deal):
    s[:] = 0
    s[_LENGTH] = deal[0]
    for word in range(p[_WORDS]):
        s[_FLIPS + word] = deal[1 + word]


@njit
def to_move(p, s):
    return -1 if s[_TURN] >= s[_LENGTH] else s[_MOVER]


@njit
def _digit(s, seat, back):
    """The joint move ``back`` turns ago (0: the latest) as ``seat`` sees it: 0 before the
    first turn, else ``1 + 2 * own + opponent``."""
    code = (s[_HIST] // 5**back) % 5
    if code == 0 or seat == 0:
        return code
    return 1 + 2 * ((code - 1) & 1) + ((code - 1) >> 1)


@njit
def observe_index(p, s, seat):
    """The last ``memory`` joint moves as ``seat`` sees them, in base 5 (the latest lowest)."""
    index = 0
    for back in range(p[_MEMORY]):
        index += _digit(s, seat, back) * 5**back
    return index


@njit
def features(p, s, seat, out):
    """Opponent's and own last move cooperative (0.5 before the first), the opponent's
    cooperation rate so far (0.5 before the first), the share of ``turns`` played."""
    last = _digit(s, seat, np.int64(0))
    turns = s[_TURN]
    out[0] = 0.5 if last == 0 else 1.0 - ((last - 1) & 1)
    out[1] = 0.5 if last == 0 else 1.0 - ((last - 1) >> 1)
    out[2] = 0.5 if turns == 0 else s[_COOP + 1 - seat] / turns
    out[3] = turns / p[_TURNS]


@njit
def encoding(p, s, seat, which):
    """``opp_last``: 0 before the first turn, 1 the opponent cooperated last, 2 it defected."""
    last = _digit(s, seat, np.int64(0))
    return 0 if last == 0 else 1 + ((last - 1) & 1)


@njit
def _payoff(p, own, other):
    if own == C:
        return p[_R] if other == C else p[_S]
    return p[_T] if other == C else p[_P]


@njit
def _flipped(s, seat, action):
    """``action`` as the noise leaves it (the flips of the deal)."""
    bit = 2 * s[_TURN] + seat
    if s.shape[0] > _FLIPS and (s[_FLIPS + bit // BITS] >> (bit % BITS)) & 1:
        return 1 - action
    return action


@njit
def step(p, s, action):
    """Seat 0's choice waits; seat 1's resolves the turn (any action but C is D)."""
    chosen = C if action == C else D
    if s[_MOVER] == 0:
        s[_PENDING] = chosen
        s[_MOVER] = 1
        return
    moves = (_flipped(s, np.int64(0), s[_PENDING]), _flipped(s, np.int64(1), chosen))
    for seat in range(2):
        own, other = moves[seat], moves[1 - seat]
        s[_TOTAL + seat] += _payoff(p, own, other)
        if own == C:
            s[_COOP + seat] += 1
        else:
            s[_DEF + seat] = 1
    s[_HIST] = (s[_HIST] * 5 + 1 + 2 * moves[0] + moves[1]) % 5 ** p[_DIGITS]
    s[_TURN] += 1
    s[_MOVER] = 0
    s[_PENDING] = 0


@njit
def scores(p, s, out):
    """The score per turn of each seat."""
    for seat in range(2):
        out[seat] = s[_TOTAL + seat] / max(s[_TURN], 1)


@njit
def rewards(p, s, out):
    scores(p, s, out)
    rank_rewards(out)


@njit
def _choice(probability):
    """C with ``probability`` (Axelrod's ``random_choice``: no draw at 0 or 1)."""
    if probability <= 0.0:
        return D
    if probability >= 1.0:
        return C
    return C if np.random.random() < probability else D


@njit
def builtin_action(p, s, seat, code, args):
    """The classics as Axelrod's library defines them (rules.md, "Builtins")."""
    last = _digit(s, seat, np.int64(0))
    own, other = (last - 1) >> 1, (last - 1) & 1  # meaningless before the first turn (last == 0)
    if code == 0:
        return _choice(args[0])
    if code == 1 or code == 2:
        return C if code == 1 else D
    if code == 4 or code == 5:  # Grudger, also called Grim (trigger): D once the opponent defected
        return D if s[_DEF + 1 - seat] else C
    if last == 0:  # every other classic opens with C but the suspicious tit for tat and the bully
        return D if code == 9 or code == 11 else C
    if code == 3 or code == 9:
        return other
    if code == 6:
        before = _digit(s, seat, np.int64(1))
        return D if other == D and before != 0 and ((before - 1) & 1) == D else C
    if code == 7:
        return C if own == other else D
    if code == 8:
        return 1 - own
    if code == 11:
        return 1 - other
    generosity = args[0] if args[0] >= 0.0 else _float(p, np.int64(_GENEROSITY))
    return C if other == C else _choice(generosity)


@njit
def observe_part(p, data, s, seat, which, out):
    """``step``: the decisions so far (two per turn)."""
    out[0] = 2 * s[_TURN] + s[_MOVER]


# ---- for the tests: the deal in the rules' terms, configurations ------------------------------


def reference_deal(config, deals) -> dict:
    """The length of each match and ``flips[game, turn, seat]`` (the noise)."""
    deals = np.asarray(deals, dtype=np.int64)
    flips = np.zeros((len(deals), config.turns, 2), dtype=bool)
    for bit in range(2 * config.turns if deals.shape[1] > 1 else 0):
        flips[:, bit // 2, bit % 2] = (deals[:, 1 + bit // BITS] >> (bit % BITS)) & 1
    return {"length": deals[:, 0].copy(), "flips": flips}


def test_configs() -> list:
    from fsmarena.games.ipd.game import IpdConfig

    return [
        IpdConfig(turns=12),
        IpdConfig(turns=40, memory=2, noise=0.1),
        IpdConfig(turns=70, memory=3, noise=0.05, prob_end=0.05, temptation=7, reward=4, punishment=2, sucker=-1),
    ]


def random_config(seed: int):
    from fsmarena.games.ipd.game import IpdConfig

    rng = np.random.default_rng(seed)
    sucker, punishment, reward, temptation = np.sort(rng.choice(20, 4, replace=False)) - 5
    return IpdConfig(
        turns=int(rng.integers(1, 80)),
        memory=int(rng.integers(1, 4)),
        noise=float(rng.choice([0.0, 0.02, 0.2])),
        prob_end=float(rng.choice([0.0, 0.1])),
        reward=int(reward),
        sucker=int(sucker),
        temptation=int(temptation),
        punishment=int(punishment),
    )


complete(globals())
