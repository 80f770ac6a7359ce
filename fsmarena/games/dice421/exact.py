"""Exact values of 421 policies: backward induction over the throws left, in exact arithmetic.

The model is known (every throw is uniform over the 216 ordered rolls of three dice), so the
optimal expected score and the expected score of *any* policy are computed exactly instead of
estimated by sampling.  With ``t`` throws left a value is a multiple of ``1 / 216**t``; values
are kept as integers scaled by ``216**t``, so the recursion is pure integer arithmetic (exact
comparisons, so ties between actions are exact too) and becomes a :class:`Fraction` at the end.

* :func:`exact_optimum` — the optimal expected score and an optimal policy table;
* :func:`exact_value` — the exact expected score of a policy (table or TablePolicy);
* :func:`expected_scores` — the same in floating point for many tables at once (learners,
  genetic-algorithm fitness, studies);
* :func:`fsm_expected_scores` — the same for table finite-state machines (any number of
  states, any input encoder): backward induction over (machine state, dice, throws left);
* :func:`player_values` — the exact expected score of every member of a table policy or
  table FSM (what ``Dice421.exact_player_values`` offers to evolution and studies);
* :func:`policy_rows` / :func:`policy_text` — a policy as readable rows or a text table.

A policy's entries for states with no throw left are ignored (only keeping all is legal there,
and the engine stops those games whatever the player answers), as is the game-over entry.
"""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING, Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.compiled_players import FSM, CompilesItself, Member
from fsmarena.games.players import TablePolicy

if TYPE_CHECKING:
    from fsmarena.games.dice421.game import Dice421

N_TRIPLES = 56
N_ROLLS = 216


def policy_table(game: "Dice421", policy: Any) -> np.ndarray:
    """A validated action table of shape ``(game.n_states,)`` from an array or a TablePolicy."""

    if isinstance(policy, TablePolicy):
        if policy.n_members != 1:
            raise FsmarenaError("421: score the members of a stacked table policy with expected_scores")
        policy = policy.table[0]
    table = np.asarray(policy)
    if table.shape != (game.n_states,):
        raise FsmarenaError(
            f"421: a policy table needs {game.n_states} entries (one per state), got shape {table.shape}"
        )
    if table.dtype.kind not in "iu" or (table.size and (table.min() < 0 or table.max() >= game.n_actions)):
        raise FsmarenaError(f"421: policy actions must be whole numbers 0..{game.n_actions - 1}")
    return table.astype(np.int64)


def _backward(game: "Dice421", table: np.ndarray | None) -> tuple[list[list[int]], np.ndarray]:
    """Scaled values ``W[t][k] = V(triple k, t throws left) * 216**t`` and the actions used.

    With ``table`` None the best action is chosen (the lowest-numbered one among equals, so
    keeping all wins ties); otherwise the table's action is followed.
    """
    tables, R = game.tables, game.config.rethrows
    score = [int(s) for s in tables.score]
    # sparse transition counts per (triple, action): [(next triple, count), ...]
    moves = [
        [[(int(j), int(c)) for j, c in enumerate(tables.counts[k, a]) if c] for a in range(8)] for k in range(N_TRIPLES)
    ]
    actions = np.zeros(game.n_states, dtype=np.int64)
    W = [score]
    for left in range(1, R + 1):
        prev = W[-1]
        scale = N_ROLLS**left
        row = []
        for k in range(N_TRIPLES):
            index = left * N_TRIPLES + k
            stop = score[k] * scale
            if table is None:
                best, best_action = stop, 0
                for a in range(1, 8):
                    q = sum(c * prev[j] for j, c in moves[k][a])
                    if q > best:
                        best, best_action = q, a
            else:
                best_action = int(table[index])
                best = stop if best_action == 0 else sum(c * prev[j] for j, c in moves[k][best_action])
            row.append(best)
            actions[index] = best_action
        W.append(row)
    return W, actions


def _start_value(game: "Dice421", W: list[list[int]]) -> Fraction:
    R = game.config.rethrows
    total = sum(int(c) * w for c, w in zip(game.tables.start_counts, W[R]))
    return Fraction(total, N_ROLLS ** (R + 1))


#: the optimum of each rule set (a game's config) met in this process: value, read-only table
_OPTIMA: dict[Any, tuple[Fraction, np.ndarray]] = {}


def exact_optimum(game: "Dice421") -> tuple[Fraction, np.ndarray]:
    """The optimal expected final score (exact) and an optimal policy table (the caller's copy).

    Among optimal actions the lowest-numbered is chosen, so the policy keeps all whenever
    stopping is optimal and is deterministic.  Solved once per rule set and process: the
    kernel's parameters carry the optimal table (the ``optimal`` builtin), so every game built
    would otherwise solve the game again in exact integer arithmetic (a few milliseconds each,
    many times that under a line tracer).
    """
    found = _OPTIMA.get(game.config)
    if found is None:
        W, actions = _backward(game, None)
        actions.setflags(write=False)
        found = _OPTIMA[game.config] = (_start_value(game, W), actions)
    value, actions = found
    return value, actions.copy()


def exact_value(game: "Dice421", policy: Any) -> Fraction:
    """The exact expected final score of ``policy`` (a TablePolicy or an action table)."""
    W, _ = _backward(game, policy_table(game, policy))
    return _start_value(game, W)


def exact_state_values(game: "Dice421", policy: Any = None) -> list[Fraction]:
    """Exact value of every observation index under ``policy`` (None: the optimum).

    The value of ``(dice, t)`` is the expected final score from there; game over is 0.
    """
    table = None if policy is None else policy_table(game, policy)
    W, _ = _backward(game, table)
    values = [Fraction(0)] * game.n_states
    for left, row in enumerate(W):
        for k, w in enumerate(row):
            values[left * N_TRIPLES + k] = Fraction(w, N_ROLLS**left)
    return values


def expected_scores(game: "Dice421", tables: np.ndarray) -> np.ndarray:
    """Expected final scores of many policy tables ``(P, n_states)`` at once (float64).

    The same backward induction in floating point, vectorised over policies: this is the
    exact value up to rounding (about 1e-15), cheap enough to score a whole population.
    A single table ``(n_states,)`` gives a one-element array.
    """
    tables = np.asarray(tables)
    if tables.ndim == 1:
        tables = tables[None, :]
    if tables.ndim != 2 or tables.shape[1] != game.n_states:
        raise FsmarenaError(f"421: policy tables must have shape (P, {game.n_states}), got {tables.shape}")
    if tables.dtype.kind not in "iu" or (tables.size and (tables.min() < 0 or tables.max() >= game.n_actions)):
        raise FsmarenaError(f"421: policy actions must be whole numbers 0..{game.n_actions - 1}")
    t, R = game.tables, game.config.rethrows
    probabilities = t.counts / N_ROLLS  # (k, a, k2)
    values = np.broadcast_to(t.score_float, (len(tables), N_TRIPLES))
    for left in range(1, R + 1):
        q = np.einsum("kaj,pj->pka", probabilities, values)
        q[:, :, 0] = t.score_float
        chosen = tables[:, left * N_TRIPLES : (left + 1) * N_TRIPLES].astype(np.int64)
        values = np.take_along_axis(q, chosen[:, :, None], axis=2)[:, :, 0]
    return values @ (t.start_counts / N_ROLLS)


def input_codes(game: "Dice421", parts: list[tuple[int, int]]) -> np.ndarray:
    """``codes[t, k]``: the input of a table FSM reading ``parts`` at dice triple ``k`` with
    ``t`` throws left, read from the engine's own observations.

    ``parts`` are the ``(part, size)`` pairs of the machine's compiled form
    (:mod:`fsmarena.games.compiled_players`): part ``-1`` is the observation index, ``w >= 0``
    the game's ``w``-th encoding; the input is their mixed-radix code, first part most significant.
    """
    names = list(game.encodings)
    triples = np.arange(N_TRIPLES, dtype=np.int64)
    rows = []
    for left in range(game.config.rethrows + 1):
        obs = game._observe(triples, left)
        code = np.zeros(N_TRIPLES, dtype=np.int64)
        for part, size in parts:
            value = obs.index if part < 0 else getattr(obs, names[part])
            code = code * size + np.asarray(value, dtype=np.int64)
        rows.append(code)
    return np.stack(rows)


def fsm_expected_scores(game: "Dice421", next_state: np.ndarray, action: np.ndarray, codes: np.ndarray) -> np.ndarray:
    """Expected final scores of table FSMs ``(P, S, I)`` reading the inputs ``codes``
    (:func:`input_codes`), float64.

    A machine starts in state 0, reads the input of the dice it sees, plays ``action[state,
    input]`` and moves to ``next_state[state, input]`` at every decision, so its value is a
    backward induction over (machine state, dice triple) per throws left:
    ``V_0[q, k] = score(k)`` and, with ``t`` throws left, ``V_t[q, k] = score(k)`` if the
    machine stops, else the mean of ``V_{t-1}[q', k']`` over the re-throw's outcomes ``k'``.
    With one state over ``index`` this is :func:`expected_scores` of the action table.
    """
    next_state = np.asarray(next_state, dtype=np.int64)
    action = np.asarray(action, dtype=np.int64)
    P, S, _I = action.shape
    t, R = game.tables, game.config.rethrows
    probabilities = t.counts / N_ROLLS  # (k, a, k2)
    members = np.arange(P)[:, None, None]
    triples = np.arange(N_TRIPLES)[None, None, :]
    values = np.broadcast_to(t.score_float, (P, S, N_TRIPLES))
    for left in range(1, R + 1):
        chosen = action[:, :, codes[left]]  # (P, S, k)
        after = next_state[:, :, codes[left]]
        follow = values[members, after]  # (P, S, k, k2): values of the machine's next state
        go_on = np.einsum("pskj,pskj->psk", probabilities[triples, chosen], follow)
        values = np.where(chosen == 0, t.score_float, go_on)
    return values[:, 0, :] @ (t.start_counts / N_ROLLS)


def _machine_values(game: "Dice421", members: list[Member]) -> np.ndarray:
    """:func:`fsm_expected_scores` of table FSM members in their compiled form
    (``[FSM, S, I, parts, (part, size) per part]``, tables ``next_state S*I, action S*I``)."""
    header = [int(x) for x in members[0][0]]
    if any([int(x) for x in ints] != header for ints, _, _ in members):
        raise FsmarenaError("421: the machines of a stack must read the same inputs")
    S, I, n_parts = header[1:4]
    parts = [(header[4 + 2 * i], header[5 + 2 * i]) for i in range(n_parts)]
    tables = np.stack([np.asarray(table, dtype=np.int64) for _, _, table in members])
    next_state = tables[:, : S * I].reshape(-1, S, I)
    action = tables[:, S * I :].reshape(-1, S, I)
    return fsm_expected_scores(game, next_state, action, input_codes(game, parts))


def player_values(game: "Dice421", player: Any) -> np.ndarray:
    """Exact expected score (float64) of every member of a table policy or table FSM.

    A table FSM is read in its compiled form (:mod:`fsmarena.games.compiled_players`), the games
    layer's description of a machine, so the rules need not know the kind that defines it."""

    if isinstance(player, TablePolicy):
        return expected_scores(game, player.table)
    if isinstance(player, CompilesItself):
        members = player.compiled_members(game)  # FsmarenaError when a machine does not fit
        if members and all(int(ints[0]) == FSM for ints, _, _ in members):
            return _machine_values(game, members)
    raise FsmarenaError(f"421: no exact evaluation for a '{player.kind}' player (table policies and table FSMs only)")


def policy_rows(game: "Dice421", policy: Any) -> list[dict[str, Any]]:
    """Readable rows of a policy: for every dice triple and every throws-left count > 0,
    the action, the dice kept, the score if stopping now and the state's exact value."""
    table = policy_table(game, policy)
    values = exact_state_values(game, table)
    rows = []
    for left in range(game.config.rethrows, 0, -1):
        for k, dice in enumerate(game.tables.triples):
            index = left * N_TRIPLES + k
            action = int(table[index])
            rows.append(
                {
                    "dice": list(dice),
                    "throws_left": left,
                    "action": game.action_names[action],
                    "keep": list(game.kept_dice(dice, action)),
                    "stop_score": int(game.tables.score[k]),
                    "value": float(values[index]),
                }
            )
    return rows


def keep_label(game: "Dice421", dice: tuple[int, int, int], action: int) -> str:
    """``stop``, ``keep 42`` or ``roll all``: what an action does to a triple, briefly."""
    if action == 0:
        return "stop"
    kept = game.kept_dice(dice, action)
    return "keep " + "".join(str(d) for d in kept) if kept else "roll all"


def policy_text(game: "Dice421", policy: Any) -> str:
    """A policy as a text table: one line per dice triple (best scores first), one column
    per number of throws left, each cell saying which dice to keep."""
    table = policy_table(game, policy)
    R = game.config.rethrows
    tables = game.tables
    order = sorted(range(N_TRIPLES), key=lambda k: (-int(tables.score[k]), tables.triples[k]))
    header = ["dice", "score"] + [f"{left} left" for left in range(R, 0, -1)]
    lines = []
    for k in order:
        dice = tables.triples[k]
        cells = [keep_label(game, dice, int(table[left * N_TRIPLES + k])) for left in range(R, 0, -1)]
        lines.append(["".join(map(str, dice)), str(int(tables.score[k]))] + cells)
    widths = [max(len(r[i]) for r in lines + [header]) for i in range(len(header))]
    fmt = "  ".join(f"{{:<{w}}}" for w in widths)
    return "\n".join([fmt.format(*header)] + [fmt.format(*r) for r in lines])
