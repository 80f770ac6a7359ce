"""Action-value tables and the primitive operations every tabular learner shares.

``Q[s, a]`` (float) and ``N[s, a]`` (updates applied so far) live in :class:`ActionValues`
together with ``legal[s, a]``: the actions ever seen legal in state ``s`` (all of them for
games without masks), so that a greedy table never names an action the state never offered.

Batched learners apply many updates at once.  :func:`sequential_update` applies a list of
``(key, target)`` updates *as if one after the other in list order* — bit-for-bit the plain
loop whenever no entry is hit more than :data:`EXACT_REPEATS` times in one call (always the
case for one game at a time), and a closed form that is equal in exact arithmetic beyond
that (large batches), so batching never changes which order the updates mean.
"""

from __future__ import annotations

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.games.players import uniform_legal

#: an entry updated at most this many times in one call is updated by a literal loop
EXACT_REPEATS = 64


class ActionValues:
    """``Q``, update counts ``N`` and the seen-legal table of one tabular learner."""

    def __init__(self, n_states: int, n_actions: int, q_init: float = 0.0):
        entries = n_states * n_actions
        if entries > limits.MAX_TABLE_ENTRIES:
            raise FsmarenaError(
                f"a tabular learner of this game needs {entries:,} table entries ({n_states:,} states x "
                f"{n_actions} actions); the limit is {limits.MAX_TABLE_ENTRIES:,} (MAX_TABLE_ENTRIES): "
                "choose smaller game parameters"
            )
        self.q = np.full((n_states, n_actions), float(q_init))
        self.n = np.zeros((n_states, n_actions), dtype=np.int64)
        self.legal = np.zeros((n_states, n_actions), dtype=bool)  # nothing seen yet

    @property
    def n_states(self) -> int:
        return self.q.shape[0]

    @property
    def n_actions(self) -> int:
        return self.q.shape[1]

    def note_legal(self, states: np.ndarray, mask: np.ndarray | None) -> None:
        """Record the legal actions observed in ``states`` (all of them when ``mask`` is None)."""
        if mask is None:  # mark whole rows through a 1-d "seen" vector: ~10x faster than legal[states]
            seen = np.zeros(self.n_states, dtype=bool)
            seen[states] = True
            self.legal[seen] = True
        else:
            np.logical_or.at(self.legal, states, mask)

    def greedy_table(self) -> np.ndarray:
        """The greedy action of every state: argmax of Q over the seen-legal actions, ties to
        the lowest action number; a state never seen plays action 0."""
        return masked_argmax(self.q, self.legal)

    def greedy(self, states: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        """Greedy actions for a batch of observations (masked argmax, lowest index on ties)."""
        return masked_argmax(self.rows(states), self.legal_rows(states, mask))

    def rows(self, states: np.ndarray) -> np.ndarray:
        """``Q[states]``, one row per state (``np.take``: a third to a quarter of the time of
        fancy indexing on a batch of rows, the same values)."""
        return np.take(self.q, states, axis=0)

    def legal_rows(self, states: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        """The legal actions of each row: the observation's ``mask``, or the seen-legal ones."""
        return np.take(self.legal, states, axis=0) if mask is None else mask


def masked_argmax(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise argmax over the True entries of ``mask`` (ties: lowest index); rows with no
    True entry give 0."""
    masked = np.where(mask, values, -np.inf)
    return np.argmax(masked, axis=-1)


def masked_max(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Row-wise max over the True entries of ``mask`` (``-inf`` for rows with none), column by
    column: numpy's ``max`` along a short last axis takes several times as long."""
    masked = np.where(mask, values, -np.inf)
    best = masked[:, 0].copy()
    for column in range(1, masked.shape[1]):
        np.maximum(best, masked[:, column], out=best)
    return best


def epsilon_greedy_probabilities(q_rows: np.ndarray, mask: np.ndarray, epsilon: float) -> np.ndarray:
    """pi(a | s) of the epsilon-greedy policy for each row: epsilon spread uniformly over the
    legal actions, the rest on the greedy one (expected SARSA's target)."""
    legal = mask.astype(float)
    counts = legal.sum(axis=1, keepdims=True)
    probs = epsilon * legal / np.maximum(counts, 1.0)
    best = masked_argmax(q_rows, mask)
    probs[np.arange(len(q_rows)), best] += 1.0 - epsilon
    return probs


def random_actions(n: int, n_actions: int, mask: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """``n`` uniformly random legal actions (one per row of ``mask`` when there is one)."""
    if mask is None:
        return rng.integers(0, n_actions, size=n)
    return uniform_legal(mask, rng)


def sequential_update(q: np.ndarray, n: np.ndarray, keys: np.ndarray, targets: np.ndarray, alpha: float | None) -> None:
    """Apply ``N[k] += 1; Q[k] += step * (target - Q[k])`` for each pair in list order.

    ``q`` and ``n`` are flat views (``Q.reshape(-1)``); ``step`` is ``alpha``, or ``1 / N[k]``
    when ``alpha`` is None (the sample average).  Entries hit at most :data:`EXACT_REPEATS`
    times are updated level by level (the i-th update of every entry together), which is the
    plain loop's arithmetic exactly; beyond that, the closed forms
    ``Q0 + sum_i alpha (1-alpha)^(m-i) (T_i - Q0)`` and ``Q0 + sum_i (T_i - Q0) / (N0 + m)``
    (equal to the loop in exact arithmetic) keep large batches fast.
    """
    if len(keys) == 0:
        return
    order = np.argsort(_narrowest(keys), kind="stable")
    sorted_keys = keys[order]
    sorted_targets = targets[order].astype(float)
    starts = np.flatnonzero(np.concatenate(([True], sorted_keys[1:] != sorted_keys[:-1])))
    repeats = np.diff(starts, append=len(sorted_keys))
    rank = np.arange(len(sorted_keys)) - np.repeat(starts, repeats)
    if repeats.max() <= EXACT_REPEATS:
        for level in range(int(repeats.max())):
            at = rank == level
            k = sorted_keys[at]
            n[k] += 1
            step = alpha if alpha is not None else 1.0 / n[k]
            q[k] += step * (sorted_targets[at] - q[k])
        return
    unique = sorted_keys[starts]
    q0 = q[unique]
    deltas = sorted_targets - np.repeat(q0, repeats)
    if alpha is None:
        q[unique] = q0 + np.add.reduceat(deltas, starts) / (n[unique] + repeats)
    else:
        later = np.repeat(repeats, repeats) - 1 - rank  # updates after this one on the same entry
        # (1 - alpha)^later looked up in a table of the powers that occur: the same numbers, a
        # pow per repeat count rather than per update
        weights = alpha * np.power(1.0 - alpha, np.arange(int(repeats.max())))[later]
        q[unique] = q0 + np.add.reduceat(weights * deltas, starts)
    n[unique] += repeats


def _narrowest(keys: np.ndarray) -> np.ndarray:
    """Non-negative ``keys`` as the narrowest unsigned integers that hold them: numpy's stable
    sort is a radix sort for 8- and 16-bit integers (a fifth of the time on a batch's keys of a
    small table), and the same order (a stable sort's order depends only on how keys compare)."""
    top = int(keys.max())
    for dtype in (np.uint8, np.uint16):
        if top <= np.iinfo(dtype).max:
            return keys.astype(dtype)
    return keys
