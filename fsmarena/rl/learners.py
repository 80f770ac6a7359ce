"""Tabular learners as players: they act in the batched driver and learn from what they did.

A learner sits in one seat of :func:`fsmarena.games.arena.play_games` like any player.  Its per-game
memory (:class:`Episodes`) records its own decisions; the state is the observation ``index``,
the legal actions ``obs.mask`` and the only reward the final ``outcome.rewards[:, seat]``
(the score itself in one-player games), discounted by ``gamma`` per decision of the learner.
With ``reward = "segment"`` (games declaring :class:`fsmarena.games.capabilities.SegmentRewards`) every
segment of a game is an episode of its own, rewarded by the change of the observation's
``potential`` across it (:mod:`fsmarena.rl.segments`).

Behaviour policy (shared): greedy in Q (ties to the lowest action), except that the first
``explore_steps`` decisions of every game are uniformly random legal actions (exploring
starts: the thesis used the first two rounds) and any other decision is random with
probability ``epsilon``.  Random draws, per call: ``rng.random(rows)`` when epsilon > 0, then
one random action per exploring row.

* :class:`MonteCarlo` learns at the end of each batch from complete episodes; the actions
  credited are the ones actually taken (the seed credited the current greedy action).
  ``every-visit`` with the running mean is the thesis algorithm; ``first-visit`` and a
  constant step size are options.  Within a batch the acting policy is the one of the batch
  start, so with ``K`` games per batch it is stale by fewer than ``K`` games; sums and counts
  do not depend on the order of games, and updates are applied game by game in row order,
  decision by decision.
* :class:`TemporalDifference` (SARSA, Q-learning, expected SARSA) learns online, inside
  ``act``: when the engine asks for the next move of a game, the pending transition of that
  game is updated (SARSA: after choosing the next action, from ``Q(s', a')``; Q-learning and
  expected SARSA: before choosing, from ``max_a Q(s', a)`` / the epsilon-greedy expectation).
  With ``K`` games in a batch the updates are applied step-major: each engine call updates
  the games it covers, in row order, with targets read from Q as it was before that call;
  the terminal transitions are updated in ``finish`` in row order.  With ``K = 1`` this is
  the textbook sequential algorithm, step by step.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.capabilities import SegmentRewards
from fsmarena.games.players import Player, TablePolicy
from fsmarena.rl.checkpoint import check_table
from fsmarena.rl.registry import LearnerEntry
from fsmarena.rl.schedules import parse_alpha
from fsmarena.rl.segments import REWARDS, segment_returns
from fsmarena.rl.tables import (
    ActionValues,
    epsilon_greedy_probabilities,
    masked_max,
    random_actions,
    sequential_update,
)

if TYPE_CHECKING:
    from fsmarena.games.base import Game, Observation, Outcome


class Episodes:
    """Per-batch memory of a learner: decisions made so far per game, the pending transition
    per game (TD) and the log of every decision call (Monte Carlo)."""

    __slots__ = (
        "n",
        "decisions",
        "pending_state",
        "pending_action",
        "pending_segment",
        "pending_potential",
        "log",
        "marks",
    )

    def __init__(self, n: int):
        self.n = n
        self.decisions = np.zeros(n, dtype=np.int64)
        self.pending_state = np.full(n, -1, dtype=np.int64)
        self.pending_action = np.zeros(n, dtype=np.int64)
        self.log: list[tuple[np.ndarray | None, np.ndarray, np.ndarray]] = []
        # segment rewards: (segment, potential) per logged call (Monte Carlo), per pending
        # transition (TD)
        self.pending_segment = np.zeros(n, dtype=np.int64)
        self.pending_potential = np.zeros(n)
        self.marks: list[tuple[np.ndarray, np.ndarray]] = []

    def trajectories(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Every logged decision, game-major and in decision order within a game:
        ``(game, position in the game, state, action)`` arrays."""
        if not self.log:
            empty = np.zeros(0, dtype=np.int64)
            return empty, empty, empty, empty
        runs = self._runs()
        if runs is not None:
            games = np.concatenate([np.repeat(rows, last - first) for rows, first, last in runs])
            position = np.concatenate([np.tile(np.arange(last - first), len(rows)) for rows, first, last in runs])
            return games, position, self._by_game(runs, 1), self._by_game(runs, 2)
        games = self._logged_games()
        order = np.argsort(games, kind="stable")
        games = games[order]
        states = np.concatenate([s for _r, s, _a in self.log])[order]
        actions = np.concatenate([a for _r, _s, a in self.log])[order]
        starts = np.flatnonzero(np.r_[True, games[1:] != games[:-1]])
        lengths = np.diff(np.r_[starts, len(games)])
        position = np.arange(len(games)) - np.repeat(starts, lengths)
        return games, position, states, actions

    def segment_marks(self) -> tuple[np.ndarray, np.ndarray]:
        """``(segment, potential)`` of every logged decision, in the order of :meth:`trajectories`."""
        runs = self._runs()
        if runs is not None:
            return self._by_game(runs, 0, self.marks), self._by_game(runs, 1, self.marks)
        order = np.argsort(self._logged_games(), kind="stable")
        return np.concatenate([m[0] for m in self.marks])[order], np.concatenate([m[1] for m in self.marks])[order]

    def _games(self, rows: Any) -> np.ndarray:
        """The games a logged call decided for (``rows`` None: every game)."""
        return np.arange(self.n) if rows is None else np.asarray(rows)

    def _logged_games(self) -> np.ndarray:
        """The game of every logged decision, in log order."""
        return np.concatenate([self._games(rows) for rows, _s, _a in self.log])

    def _runs(self) -> list[tuple[np.ndarray, int, int]] | None:
        """The log as runs of calls in a row on the same games, ``(games, first, last)`` for
        ``log[first:last]``, when that puts it in game order: each run's games increasing and
        above the previous run's (the driver's lock-step calls: every game at once, or block by
        block, :meth:`fsmarena.games.driver.Driver.play_program`); None otherwise.  Game order is
        then each run's decisions laid out game by game, with no sort."""
        runs: list[tuple[np.ndarray, int, int]] = []
        top = -1  # the highest game of the runs so far
        for at, (rows, _s, _a) in enumerate(self.log):
            games = self._games(rows)
            if runs and np.array_equal(games, runs[-1][0]):
                runs[-1] = (games, runs[-1][1], at + 1)
                continue
            if len(games) and (games[0] <= top or np.any(np.diff(games) <= 0)):
                return None
            runs.append((games, at, at + 1))
            top = int(games[-1]) if len(games) else top
        return runs

    def _by_game(
        self, runs: list[tuple[np.ndarray, int, int]], part: int, entries: list[Any] | None = None
    ) -> np.ndarray:
        """Field ``part`` (an array per call) of every logged call (of ``entries``: the log, or
        the segment marks) laid out game by game within each run (:meth:`_runs`)."""
        calls: list[Any] = self.log if entries is None else entries
        return np.concatenate(
            [np.stack([calls[at][part] for at in range(first, last)], axis=1).reshape(-1) for _g, first, last in runs]
        )


class TabularLearner(Player):
    """Q table + behaviour policy; subclasses define how experience updates Q."""

    kind = "tabular-learner"  # not a file kind: a learner is saved as its greedy TablePolicy
    #: the step size (None: sample averages, 1/n); a step-size schedule moves it during a run
    alpha: float | None = None
    #: whether its batched algorithm (``--batch K``) can play in the compiled training loop
    #: (:func:`fsmarena.rl.sequential_run.compiled_batches`)
    compiled_batches = False

    def __init__(
        self,
        n_states: int,
        n_actions: int,
        gamma: float = 1.0,
        epsilon: float = 0.0,
        explore_steps: int = 0,
        q_init: float = 0.0,
        label: str | None = None,
        reward: str = "game",
    ):
        super().__init__(label or self.kind)
        self.values = ActionValues(n_states, n_actions, q_init)
        self.gamma = float(gamma)
        self.epsilon = float(epsilon)
        self.explore_steps = int(explore_steps)
        if reward not in REWARDS:
            raise FsmarenaError(f"unknown reward '{reward}' (known: {', '.join(REWARDS)})")
        self.segmented = reward == "segment"

    @classmethod
    def validate(cls, config: Any, entry: LearnerEntry) -> None:
        """FsmarenaError for a setting of ``config`` (a :class:`fsmarena.rl.config.TrainConfig` with the
        defaults filled in) that only this algorithm refuses; the registry entry says which
        step-size rule it follows (``entry.step``).  The shared settings are checked by
        :meth:`fsmarena.rl.config.TrainConfig.resolved`."""
        if entry.step == "size" and parse_alpha(config.alpha) is None:
            raise FsmarenaError(f"{entry.name} needs a numeric alpha")

    # ---- acting ---------------------------------------------------------------------------
    def begin(self, game: "Game", n: int, members: np.ndarray | None, rng: np.random.Generator) -> Episodes:
        if (game.n_states, game.n_actions) != self.values.q.shape:
            raise FsmarenaError(
                f"this learner's table is {self.values.q.shape}, {game.name} needs {(game.n_states, game.n_actions)}"
            )
        if self.segmented and not isinstance(game, SegmentRewards):
            raise FsmarenaError(f"{game.name} has no segments: train it with the game's reward")
        return Episodes(n)

    def _greedy(self, states: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        return self.values.greedy(states, mask)

    def behaviour(
        self, obs: "Observation", memory: Episodes, rows: np.ndarray | None, rng: np.random.Generator
    ) -> np.ndarray:
        """Greedy actions, with exploring starts and epsilon-random decisions (module doc)."""
        self.values.note_legal(obs.index, obs.mask)
        return self._choose(obs, memory, rows, rng)

    def _choose(
        self, obs: "Observation", memory: Episodes, rows: np.ndarray | None, rng: np.random.Generator
    ) -> np.ndarray:
        """:meth:`behaviour` once the observation's legal actions are noted."""
        states = obs.index
        mask = obs.mask
        actions = np.array(self._greedy(states, mask), dtype=np.int64)
        # lock-step calls cover every game: slices instead of fancy indexing (the hot path)
        decisions = memory.decisions if rows is None else memory.decisions[rows]
        explore = decisions < self.explore_steps
        if self.epsilon > 0:
            explore |= rng.random(obs.n) < self.epsilon
        if explore.any():
            actions[explore] = random_actions(
                int(explore.sum()), obs.n_actions, None if mask is None else mask[explore], rng
            )
        if rows is None:
            memory.decisions += 1
        else:
            memory.decisions[rows] += 1
        return actions

    def greedy_policy(self, label: str | None = None) -> TablePolicy:
        """The greedy policy of the current Q as a player (what ``train`` saves)."""
        return TablePolicy(self.values.greedy_table(), label=label or f"{self.label} greedy")

    def to_dict(self):
        raise FsmarenaError("a learner is saved through its greedy policy (greedy_policy())")

    def extra_tables(self) -> np.ndarray:
        """The learner's own tables as its compiled update reads them, ``(k, states, actions)``
        (:mod:`fsmarena.rl.algorithms.contract`); a placeholder when it has none."""
        return np.zeros((1, 1, 1))

    # ---- state for checkpoints ----------------------------------------------------------------
    def arrays(self) -> dict[str, np.ndarray]:
        """Every table the learner needs to continue exactly (for checkpoints)."""
        return {"q": self.values.q, "n": self.values.n, "legal": self.values.legal}

    def load_arrays(self, arrays: dict[str, np.ndarray], source: str = "checkpoint") -> None:
        """Continue from a checkpoint's tables (FsmarenaError naming ``source`` for any defect).

        Every table is checked before any is copied: its shape and dtype kind must be this
        learner's (:func:`fsmarena.rl.checkpoint.check_table`: float counts or integer Q-values are a
        swap or tampering, not something to cast), and an update count on an action never seen
        legal is refused (a count can only come from playing the action, which marks it legal).
        """
        tables = self.arrays()
        checked = {name: check_table(arrays.get(name), current, source, name) for name, current in tables.items()}
        played = checked["n"] > 0
        if np.any(played & ~checked["legal"]):
            state = int(np.flatnonzero((played & ~checked["legal"]).any(axis=1))[0])
            raise FsmarenaError(
                f"{source}: table 'n' counts updates of actions that table 'legal' never saw legal (state {state})"
            )
        for name, current in tables.items():
            current[...] = checked[name]


class MonteCarlo(TabularLearner):
    """Monte Carlo control: ``every-visit`` or ``first-visit``; ``alpha`` None = running mean
    of the returns (sums / counts, as the thesis), else a constant step size; ``credit``: the
    action ``taken`` (the textbook's) or, as the seed notebook did, the action of its ``policy``
    when the update is made (``mc-seed``: the compiled sequential loop only,
    :mod:`fsmarena.rl.algorithms.seed_monte_carlo`).

    Registered as ``mc`` (every visit, running mean), ``mc-first-visit``,
    ``mc-constant-alpha`` and ``mc-seed`` (:mod:`fsmarena.rl.registry`).  Pseudocode (one batch
    of ``K`` games)::

        pi <- greedy(Q)                                  # frozen for the batch
        for each game g of the batch:
            play g: the first explore_steps decisions uniformly random, the others
                    random with probability epsilon, else pi(s)
            G <- the learner's final reward (segment rewards: each segment's potential change)
        for each game g, for each decision t = (s, a) of g in order
                (first-visit: only the first (s, a) of each game):
            G_t <- gamma ** (decisions after t) * G
            N(s, a) <- N(s, a) + 1
            running mean:  S(s, a) <- S(s, a) + G_t;  Q(s, a) <- S(s, a) / N(s, a)
            step size:     Q(s, a) <- Q(s, a) + alpha * (G_t - Q(s, a))
    """

    kind = "monte-carlo"
    VISITS = ("every-visit", "first-visit")
    CREDITS = ("taken", "policy")
    compiled_batches = True

    def __init__(
        self,
        n_states: int,
        n_actions: int,
        visits: str = "every-visit",
        alpha: float | None = None,
        credit: str = "taken",
        **kwargs,
    ):
        super().__init__(n_states, n_actions, **kwargs)
        if visits not in self.VISITS:
            raise FsmarenaError(f"unknown Monte Carlo variant '{visits}'")
        if credit not in self.CREDITS:
            raise FsmarenaError(f"unknown Monte Carlo credit '{credit}' (known: {', '.join(self.CREDITS)})")
        self.visits = visits
        self.credit = credit
        self.alpha = alpha
        self.sums = np.zeros_like(self.values.q)
        self._table: np.ndarray | None = None

    @classmethod
    def validate(cls, config: Any, entry: LearnerEntry) -> None:
        """The running-mean variants take no step size, ``mc-constant-alpha`` needs one; the
        seed's credit rule plays one game at a time only."""
        if entry.step == "average" and parse_alpha(config.alpha) is not None:
            raise FsmarenaError(f"{entry.name} averages returns (alpha 1/n); use mc-constant-alpha for a step size")
        if entry.options.get("credit", "taken") != "taken":
            sequential_only(config, entry)
        super().validate(config, entry)

    def extra_tables(self) -> np.ndarray:
        """The sums of returns, as ``extra[0]`` of the compiled update."""
        return self.sums[None]

    def begin(self, game, n, members, rng):
        memory = super().begin(game, n, members, rng)
        self._table = self.values.greedy_table()  # Q is fixed during a batch: one lookup table
        return memory

    def _greedy(self, states, mask):
        if mask is None and self._table is not None:
            return self._table[states]
        return self.values.greedy(states, mask)

    def act(self, obs, memory, rows, rng):
        if self.credit != "taken":
            raise FsmarenaError("the seed's Monte Carlo (mc-seed) trains only in the compiled sequential loop")
        rows = None if rows is None else np.asarray(rows)
        actions = self.behaviour(obs, memory, rows, rng)
        memory.log.append((rows, np.asarray(obs.index, dtype=np.int64), actions))
        if self.segmented:
            memory.marks.append((np.asarray(obs.segment, dtype=np.int64), np.asarray(obs.potential, dtype=float)))
        return actions

    def finish(self, memory: Episodes, outcome: "Outcome", seat: int) -> None:
        self._table = None
        games, position, states, actions = memory.trajectories()
        if len(games) == 0:
            return
        returns = outcome.rewards[games, seat].astype(float)
        if self.segmented:
            segments, potentials = memory.segment_marks()
            returns = segment_returns(games, segments, potentials, returns, self.gamma)[0]
        elif self.gamma != 1.0:
            lengths = np.bincount(games, minlength=memory.n)
            returns = returns * np.power(self.gamma, lengths[games] - 1 - position)
        keys = states * self.values.n_actions + actions
        if self.visits == "first-visit":
            _unique, first = np.unique(games * self.values.q.size + keys, return_index=True)
            first.sort()
            keys, returns = keys[first], returns[first]
        self.update(keys, returns)

    def update(self, keys: np.ndarray, returns: np.ndarray) -> None:
        """Credit ``returns`` to the flat (state, action) ``keys``, in list order."""
        q, n = self.values.q.reshape(-1), self.values.n.reshape(-1)
        if self.alpha is not None:
            sequential_update(q, n, keys, returns, self.alpha)
            return
        sums = self.sums.reshape(-1)
        np.add.at(sums, keys, returns)
        np.add.at(n, keys, 1)
        if len(keys) < q.size:  # big tables (Stupide Vautour): only the entries just credited
            touched = np.unique(keys)
        else:  # small tables (divide-the-dollar): every visited entry; the others are unchanged
            touched = n > 0
        q[touched] = sums[touched] / n[touched]

    def arrays(self):
        return {**super().arrays(), "sums": self.sums}


class TemporalDifference(TabularLearner):
    """One-step TD control: ``sarsa``, ``q-learning`` or ``expected-sarsa``; ``alpha`` a
    constant step size or None for ``1 / N(s, a)``.

    Registered as ``sarsa``, ``q-learning`` and ``expected-sarsa`` (:mod:`fsmarena.rl.registry`).
    Pseudocode (per game; with ``K`` games a batch, step-major across them)::

        (s, a) <- none pending
        at each decision of the learner in state s' with legal actions A':
            sarsa:           a' <- behaviour(s');  target <- gamma * Q(s', a')
            q-learning:      target <- gamma * max_{b in A'} Q(s', b);  a' <- behaviour(s')
            expected-sarsa:  target <- gamma * sum_b pi_eps(b | s') Q(s', b);  a' <- behaviour(s')
            (segment rewards: a pending decision whose segment closed gets the potential
             change as its target, nothing bootstrapped)
            if (s, a) pending:  N(s, a) += 1;  Q(s, a) += alpha_N * (target - Q(s, a))
            (s, a) <- (s', a')
        at the end of the game:  update the pending (s, a) toward the final reward
    where behaviour(s) explores (exploring starts, epsilon) or plays argmax_a Q(s, a),
    and alpha_N is the step size or 1 / N(s, a).
    """

    kind = "temporal-difference"
    METHODS = ("sarsa", "q-learning", "expected-sarsa")

    def __init__(self, n_states: int, n_actions: int, method: str = "q-learning", alpha: float | None = 0.1, **kwargs):
        super().__init__(n_states, n_actions, **kwargs)
        if method not in self.METHODS:
            raise FsmarenaError(f"unknown TD method '{method}'")
        self.method = method
        self.alpha = alpha

    def _bootstrap(self, states: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
        """Q-learning / expected SARSA value of the next states under the current Q."""
        q_rows = self.values.rows(states)
        legal = self.values.legal_rows(states, mask)
        if self.method == "q-learning":
            return masked_max(q_rows, legal)
        probs = epsilon_greedy_probabilities(q_rows, legal, self.epsilon)
        total = np.zeros(len(states))
        for a in range(q_rows.shape[1]):  # a fixed summation order: action 0, 1, ...
            total += np.where(legal[:, a], probs[:, a] * q_rows[:, a], 0.0)
        return total

    def act(self, obs, memory, rows, rng):
        ids = np.arange(memory.n) if rows is None else np.asarray(rows)
        states = np.asarray(obs.index, dtype=np.int64)
        if self.method == "sarsa":
            actions = self.behaviour(obs, memory, rows, rng)
            self._update_pending(
                memory, ids, self._segment_targets(obs, memory, ids, self.gamma * self.values.q[states, actions])
            )
        else:
            self.values.note_legal(states, obs.mask)
            self._update_pending(
                memory, ids, self._segment_targets(obs, memory, ids, self.gamma * self._bootstrap(states, obs.mask))
            )
            actions = self._choose(obs, memory, rows, rng)  # the legal actions are noted
        memory.pending_state[ids] = states
        memory.pending_action[ids] = actions
        return actions

    def _segment_targets(
        self, obs: "Observation", memory: Episodes, ids: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        """With segment rewards, a pending transition that closed its segment ends there: its
        target is the change of the potential, with nothing bootstrapped; the pending
        segment and potential become this decision's."""
        if not self.segmented:
            return targets
        segment = np.asarray(obs.segment, dtype=np.int64)
        potential = np.asarray(obs.potential, dtype=float)
        closed = memory.pending_segment[ids] != segment
        targets = np.where(closed, potential - memory.pending_potential[ids], targets)
        memory.pending_segment[ids] = segment
        memory.pending_potential[ids] = potential
        return targets

    def finish(self, memory: Episodes, outcome: "Outcome", seat: int) -> None:
        ids = np.arange(memory.n)
        final = outcome.rewards[:, seat].astype(float)
        self._update_pending(memory, ids, final - memory.pending_potential if self.segmented else final)
        memory.pending_state[:] = -1

    def _update_pending(self, memory: Episodes, ids: np.ndarray, targets: np.ndarray) -> None:
        """Update the pending transition of games ``ids`` (those that have one) toward ``targets``."""
        pending = memory.pending_state[ids] >= 0
        if not pending.any():
            return
        keys = memory.pending_state[ids][pending] * self.values.n_actions + memory.pending_action[ids][pending]
        sequential_update(self.values.q.reshape(-1), self.values.n.reshape(-1), keys, targets[pending], self.alpha)


def sequential_only(config: Any, entry: LearnerEntry) -> None:
    """FsmarenaError unless ``config`` trains one game at a time (``batch`` 1), the only way a
    learner written as a compiled update alone runs (on a game with a kernel)."""
    if config.batch not in (None, 1):
        raise FsmarenaError(
            f"{entry.name} is written as a compiled update only: it trains one game at a time "
            f"(--batch 1, on a game with a kernel), not with --batch {config.batch}"
        )


class SequentialLearner(TabularLearner):
    """A learner written only as its compiled update (:mod:`fsmarena.rl.algorithms`): this class
    holds its tables (Q, counts, the seen-legal actions and ``tables`` tables of its own, the
    update's ``extra``) for the training run and its checkpoints; the compiled training loop
    plays and learns (:mod:`fsmarena.rl.sequential`), one game at a time, so it has no batched
    algorithm (``--batch K`` is refused).

    Pseudocode: its update's docstring (the registry line names it, :mod:`fsmarena.rl.registry`)::

        see fsmarena.rl.algorithms.<module>:<update>
    """

    kind = "sequential-learner"

    def __init__(self, n_states: int, n_actions: int, tables: int = 0, alpha: float | None = None, **kwargs):
        super().__init__(n_states, n_actions, **kwargs)
        self.alpha = alpha
        self.extra = np.zeros((max(1, int(tables)), *self.values.q.shape)) if tables else np.zeros((1, 1, 1))

    @classmethod
    def validate(cls, config: Any, entry: LearnerEntry) -> None:
        """One game at a time only (its update is compiled, it has no batched algorithm)."""
        sequential_only(config, entry)
        super().validate(config, entry)

    def extra_tables(self) -> np.ndarray:
        return self.extra

    def act(self, obs, memory, rows, rng):
        raise FsmarenaError(
            f"{self.label} trains only in the compiled sequential loop (--batch 1, a game with a kernel)"
        )

    def arrays(self) -> dict[str, np.ndarray]:
        tables = super().arrays()
        return {**tables, "extra": self.extra} if self.extra.shape[1:] == self.values.q.shape else tables
