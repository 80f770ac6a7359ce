"""Direct policy search over the tabular policy class: the best known table policy of a game.

Why: the studies rank methods against each other; for games too large to solve exactly a
reader needs to know how far every family is from the best policy one can find in the same
class (an action per observation index).  This module finds one by coordinate ascent:

* every candidate is evaluated on the *same* games (common random numbers: one seed for all
  evaluations of a sweep), so the difference between two tables is not noise of the deals;
* a sweep visits the states by how often the current table reaches them, tries every legal
  action there and keeps a change when its win-rate gain over the current table is
  significant on the paired games (one-sided z test on the per-game differences);
* the search stops when a sweep changes nothing or the game budget is spent, and ends with
  a fresh confirmation evaluation on new seeds: the win rate with a 95% Wilson interval.

It serves every game whose observations carry a tabular index (``game.n_states``); the
games are played by the batched driver through :func:`fsmarena.games.runner.play_blocks`, which for
many small evaluations of one table is faster than compiling a kernel player per candidate.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fsmarena import progress
from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.players import Player, TablePolicy
from fsmarena.games.runner import Block, Chunk, concatenated, play_blocks
from fsmarena.games.stats import wilson_interval

#: one-sided z threshold a change must pass on the common games (about 2.5% false positives)
Z_KEEP = 1.96


@dataclass
class SearchResult:
    """The best table found, its confirmation win rate and the search trace."""

    table: np.ndarray
    win_rate: float
    win_ci95: tuple[float, float]
    confirm_games: int
    start_rate: float
    final_rate: float
    games_used: int
    sweeps: int
    trace: list[dict[str, Any]] = field(default_factory=list)

    def summary(self) -> dict[str, Any]:
        """The JSON summary (without the table, which is the policy file)."""
        return {
            "win": self.win_rate,
            "win_ci95": list(self.win_ci95),
            "confirm_games": self.confirm_games,
            "start_win_common": self.start_rate,
            "final_win_common": self.final_rate,
            "games_used": self.games_used,
            "sweeps": self.sweeps,
            "changes": len(self.trace),
            "trace": self.trace,
        }


class _Recorder(Player):
    """A table policy that counts how often each state is reached and which actions are legal."""

    kind = "table-policy"

    def __init__(self, table: np.ndarray, n_actions: int):
        super().__init__("search")
        self.inner = TablePolicy(table)
        self.visits = np.zeros(len(table), dtype=np.int64)
        self.legal = np.zeros((len(table), n_actions), dtype=bool)

    def act(self, obs, memory, rows, rng):
        index = np.asarray(obs.index)
        np.add.at(self.visits, index, 1)
        if obs.mask is None:
            self.legal[index] = True
        else:
            self.legal[index] |= np.asarray(obs.mask, dtype=bool)
        return self.inner.act(obs, memory, rows, rng)


def _wins(outcome, chunk: Chunk, seconds: float) -> np.ndarray:
    """A reducer: 1 where the searched table (seat ``chunk.tag``) won, else 0, per game."""
    return (outcome.rewards[:, chunk.tag] > 0).astype(np.int8)[:, None]


def _per_game_wins(game: Game, player: Player, opponent: Player, games: int, seed: int) -> np.ndarray:
    """Win indicators of ``player`` against ``opponent`` on the games of ``seed`` (seats rotated)."""
    seats = game.n_seats
    per_seat = [games // seats + (1 if s < games % seats else 0) for s in range(seats)]
    blocks = [
        Block(tuple(player if s == a else opponent for s in range(seats)), per_seat[a], tag=a)
        for a in range(seats)
        if per_seat[a]
    ]
    results = play_blocks(game, [(np.random.SeedSequence(seed), blocks)], _wins)
    return concatenated(results, 1)[:, 0]


def check_searchable(game: Game) -> None:
    """A FsmarenaError unless ``game`` has a tabular observation index and an opponent seat."""
    n_states = getattr(game, "n_states", None)
    if not isinstance(n_states, (int, np.integer)) or n_states <= 0:
        raise FsmarenaError(f"the game '{game.name}' has no tabular observation index to search over")
    if game.n_seats < 2:
        raise FsmarenaError(f"the game '{game.name}' has one player: there is no opponent to search against")


def _significant(candidate: np.ndarray, current: np.ndarray, z: float) -> bool:
    """True when the paired win-rate gain of ``candidate`` over ``current`` passes ``z``."""
    diff = candidate.astype(np.float64) - current
    gain = diff.mean()
    if gain <= 0:
        return False
    sd = diff.std(ddof=1) if len(diff) > 1 else 0.0
    return bool(gain * np.sqrt(len(diff)) > z * sd) if sd > 0 else True


def search_policy(
    game: Game,
    opponent: Player,
    budget: int,
    seed: int,
    start: np.ndarray | None = None,
    games_per_eval: int | None = None,
    confirm_games: int | None = None,
    z: float = Z_KEEP,
) -> SearchResult:
    """Coordinate ascent over table policies of ``game`` against ``opponent`` (module docstring).

    ``budget`` counts the games of the search (the confirmation is extra); ``start`` is the
    first table (random actions when None); ``games_per_eval`` is the number of common games
    per candidate (by default about a fiftieth of the budget, at least 1,000).

    Registered as ``policy-search`` (:mod:`fsmarena.rl.registry`; run by ``fsmarena search``).
    Pseudocode::

        pi <- start (random actions when none);  W <- wins of pi on the n common games
        while the budget allows a sweep:
            for each state s, most visited by pi first:
                for each legal action a != pi(s):
                    W' <- wins of pi with pi(s) = a on the same n common games
                    if the paired gain mean(W' - W) passes the one-sided z test:
                        pi(s) <- a;  W <- W'
            stop when a sweep changed nothing
        confirm pi on fresh games: its win rate and 95% Wilson interval
    """
    check_searchable(game)
    if isinstance(budget, bool) or not isinstance(budget, (int, np.integer)) or budget <= 0:
        raise FsmarenaError(f"the search budget must be a positive number of games, got {budget}")
    rng = np.random.default_rng(seed)
    table = _start_table(game, start, rng)
    n = int(games_per_eval or max(1_000, min(budget // 50, 200_000)))
    n = min(n, int(budget))
    search = _Search(game, opponent, int(budget), n, int(rng.integers(2**63)), z, table)
    recorder = _Recorder(table, int(game.n_actions))
    search.current = search.wins(recorder)
    start_rate = float(search.current.mean())
    with progress.bar(budget, f"search {game.name}", unit="game") as search.bar:
        search.bar.update(n)
        while search.used + n <= budget:
            search.sweeps += 1
            changed = _sweep(search, recorder)
            if not changed or search.used + n > budget:
                break
            recorder = _Recorder(search.table, int(game.n_actions))
            search.current = search.wins(recorder)
    confirm = int(confirm_games or max(n, 10_000))
    fresh = _per_game_wins(game, TablePolicy(search.table), opponent, confirm, int(rng.integers(2**63)))
    wins_count = int(fresh.sum())
    low, high = wilson_interval(wins_count, confirm)
    return SearchResult(
        table=search.table,
        win_rate=wins_count / confirm,
        win_ci95=(float(low), float(high)),
        confirm_games=confirm,
        start_rate=start_rate,
        final_rate=float(search.current.mean()),
        games_used=search.used,
        sweeps=search.sweeps,
        trace=search.trace,
    )


def _start_table(game: Game, start: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
    """The search's first table: ``start`` checked, or random actions drawn from ``rng``."""
    n_states, n_actions = int(game.n_states), int(game.n_actions)
    if start is None:
        return rng.integers(0, n_actions, n_states)
    table = np.asarray(start, dtype=np.int64).copy()
    if table.shape != (n_states,) or table.min() < 0 or table.max() >= n_actions:
        raise FsmarenaError(f"the start table must hold {n_states} actions in 0..{n_actions - 1}")
    return table


@dataclass
class _Search:
    """A search under way: its settings, the current table and its wins on the common games, the
    games used so far, the sweeps and the accepted changes."""

    game: Game
    opponent: Player
    budget: int
    n: int
    eval_seed: int
    z: float
    table: np.ndarray
    current: np.ndarray = field(default_factory=lambda: np.zeros(0))
    used: int = 0
    sweeps: int = 0
    trace: list[dict[str, Any]] = field(default_factory=list)
    bar: Any = None

    def wins(self, player: Player) -> np.ndarray:
        """``player``'s wins on the ``n`` common games, counted in the budget and the bar."""
        wins = _per_game_wins(self.game, player, self.opponent, self.n, self.eval_seed)
        self.used += self.n
        if self.bar is not None:
            self.bar.update(self.n)
        return wins


def _sweep(search: _Search, recorder: _Recorder) -> bool:
    """One sweep over the states the current table visits, most visited first: every other legal
    action is tried on the common games and kept when its paired gain is significant.  Whether
    anything changed."""
    order = np.argsort(-recorder.visits, kind="stable")
    legal = recorder.legal.copy()
    changed = False
    for state in order[recorder.visits[order] > 0]:
        for action in np.flatnonzero(legal[state]):
            if action == search.table[state] or search.used + search.n > search.budget:
                continue
            candidate = search.table.copy()
            candidate[state] = action
            wins = search.wins(TablePolicy(candidate))
            if _significant(wins, search.current, search.z):
                gain = float(wins.mean() - search.current.mean())
                search.trace.append({"sweep": search.sweeps, "state": int(state), "action": int(action), "gain": gain})
                search.table, search.current, changed = candidate, wins, True
    return changed


def common_win_rate(game: Game, table: np.ndarray, opponent: Player, games: int, seed: int) -> float:
    """The win rate of ``table`` on the common games of ``seed`` (the search's own yardstick)."""
    return float(_per_game_wins(game, TablePolicy(np.asarray(table)), opponent, games, seed).mean())
