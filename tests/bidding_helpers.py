"""The turns of the simultaneous bidding games (Goofspiel, Stupide Vautour) read from the
driver's trace hook (``trace(seat, rows, observation, actions)``), for the per-game rule tests.

What each turn's record holds comes from what the seats saw: the prize and the stake from the
observation's parts, every seat's bid from its hand (the card that left it by the next turn, the
last card at the last turn), and the winner and the points from the seats' leads (the ``lead``
feature: own points minus the best opponent's, exact after scaling back), which give every
pairwise difference of points turn by turn; the final scores close the last turn.  A stake
of zero (possible only under Stupide Vautour's cancel rule) moves no points: whether it was
taken shows in the next turn's ``carry`` encoding (:data:`TAKEN`), not who took it.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

#: the winner of a pot worth nothing that was taken (Stupide Vautour's cancel rule): no seat's
#: points show who took it, only that no pot was carried into the next turn
TAKEN = -2


def lead_feature(game: Any) -> tuple[int, int]:
    """The column of the ``lead`` feature and the scale it is divided by (module docstrings)."""
    if game.name == "goofspiel":
        cards = game.config.cards
        return 6, cards * (cards + 1) // 2
    return 8, game.tables.span


def play_traced(game: Any, n: int, decide: Callable, deals: np.ndarray | None = None, seed: int = 0):
    """Play ``n`` games on the driver (``deals``: the kernel's, e.g. prize orders); return the
    outcome and one record per turn (:func:`turns_from`)."""
    seen: list[tuple] = []
    column, _ = lead_feature(game)

    def trace(seat, rows, obs, actions):
        parts = {"step": obs.step, "hand": obs.hand, "prize": obs.prize_value, "lead": obs.features[:, column]}
        parts["stake"] = obs.stake if game.name == "vautour" else obs.prize_value
        parts["carry"] = obs.carry if game.name == "vautour" else np.zeros(len(rows), dtype=np.int64)
        seen.append(
            (seat, np.asarray(rows), {k: np.broadcast_to(np.asarray(v), (len(rows),)).copy() for k, v in parts.items()})
        )

    outcome = game.play(n, np.random.default_rng(seed), decide, deals=deals, trace=trace)
    return outcome, turns_from(game, n, seen, outcome)


def turns_from(game: Any, n: int, seen: list[tuple], outcome: Any) -> list[dict]:
    """Per turn: ``prize`` and ``stake`` (n,), ``bids`` (n, seats), ``winner`` (n,; -1 when
    nobody took the stake, :data:`TAKEN` for a pot worth nothing that was taken), ``points``
    (n, seats) and ``carried`` (prize cards in the pot carried on, cancel rule) after the turn."""
    P, C = game.n_seats, game.config.cards
    _, scale = lead_feature(game)
    parts: dict[str, np.ndarray] = {
        name: np.zeros((C, n, P), dtype=np.float64 if name == "lead" else np.int64)
        for name in ("step", "hand", "prize", "stake", "lead", "carry")
    }
    asked = np.zeros((C, n, P), dtype=bool)
    for seat, rows, values in seen:
        turn = values["step"]
        for name, value in values.items():
            parts[name][turn, rows, seat] = value
        asked[turn, rows, seat] = True
    assert asked.all(), "every seat is asked at every turn of every game"
    lead = np.rint((parts["lead"] - 0.5) * 2 * scale).astype(np.int64)
    # p_s - max(p): own lead when behind or level, 0 for the sole leader
    behind = np.minimum(lead, 0)
    final = outcome.scores.astype(np.int64)
    behind = np.concatenate([behind, (final - final.max(axis=1, keepdims=True))[None]], axis=0)
    hands = parts["hand"]
    turns = []
    points = np.zeros((n, P), dtype=np.int64)
    carried = np.zeros(n, dtype=np.int64)
    carry = parts["carry"][:, :, 0]
    for turn in range(C):
        later = hands[turn + 1] if turn + 1 < C else np.zeros_like(hands[turn])
        left = hands[turn] & ~later
        assert np.all(left > 0) and np.all(left & (left - 1) == 0), "one card leaves each hand per turn"
        bids = np.log2(left).astype(np.int64) + 1
        stake = parts["stake"][turn, :, 0]
        winner = _winner(behind[turn + 1] - behind[turn], stake)
        if turn + 1 < C:  # a pot worth nothing: taken if none is carried into the next turn
            winner[(stake == 0) & (carry[turn + 1] == 0)] = TAKEN
        if game.name == "vautour" and game.config.tie_rule == "cancel":
            carried = np.where(winner == -1, carried + 1, 0)
        if game.name == "vautour" and game.config.tie_rule == "cancel" and turn + 1 < C:
            assert np.array_equal(carried > 0, carry[turn + 1] > 0), "the carry encoding shows the pot"
        rows = np.flatnonzero(winner >= 0)
        points = points.copy()
        points[rows, winner[rows]] += stake[rows]
        turns.append(
            {
                "turn": turn,
                "prize": parts["prize"][turn, :, 0],
                "stake": stake,
                "bids": bids,
                "winner": winner,
                "points": points,
                "carried": carried,
            }
        )
    assert np.array_equal(points, final), "the turns' winners add up to the final scores"
    return turns


def _winner(change: np.ndarray, stake: np.ndarray) -> np.ndarray:
    """The seat whose points moved by ``stake`` against every other seat's, per game (``change``:
    each seat's change of points less the best's), or -1 when no pairwise difference moved."""
    diff = change[:, :, None] - change[:, None, :]  # change of p_s - p_o
    seats = change.shape[1]
    off = ~np.eye(seats, dtype=bool)
    took = ((diff == stake[:, None, None]) | ~off).all(axis=2) & (stake != 0)[:, None]
    assert (took.sum(axis=1) <= 1).all()
    return np.where(took.any(axis=1), took.argmax(axis=1), -1)
