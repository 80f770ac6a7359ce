"""421, the dice game (seed 002), as a one-player game.

Rules (defaults from the seed).  Three dice are thrown; the player may then re-throw any of
them up to ``rethrows`` times (default 2).  The dice are always seen sorted in descending
order (high, middle, low) and an action says which of those three positions to re-throw
(8 masks); keeping all three ends the game, and with no re-throw left keeping all is the only
legal action.  The final dice are scored by a named score table (:data:`SCORE_TABLES`); the
seed's: 421 → 11, 111 → 7, 221 → 0, (d,1,1) → d, (d,d,d) → d, straights (d,d−1,d−2) → 2,
anything else 1.  The player maximises the mean final score.

Actions, in the seed's order: action ``a = 4·r_high + 2·r_middle + r_low`` where ``r_x = 1``
re-throws that die, so action 0 (``keep_all``) stops and action 7 re-throws everything.

States.  The 56 descending triples are numbered lexicographically ((1,1,1), (2,1,1), (2,2,1),
(2,2,2), (3,1,1), ...); observation ``index = throws_left * 56 + triple`` and the last index,
``56 * (rethrows + 1)``, is the "game over" state of the model (never observed).  The same
numbering is used by :meth:`Dice421.model`, so a policy computed on the model is a
:class:`fsmarena.games.players.TablePolicy` that plays in the game unchanged.

Tables.  A game's dice are one small integer (its triple id), and a throw is the table
look-up ``next_triple[triple, action, roll]``, where ``roll`` is an ordered throw of three
dice (0..215) of which only the re-thrown positions are used: each outcome of the re-thrown
dice then appears equally often.  The kernel (:mod:`fsmarena.games.dice421.kernel`), the exact model
and the solver read these tables.
"""

from __future__ import annotations

import functools
import itertools
from dataclasses import dataclass
from fractions import Fraction
from typing import Callable

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game, Observation
from fsmarena.games.capabilities import ExactModel
from fsmarena.games.mdp import TabularMDP

ACTION_NAMES = (
    "keep_all",
    "reroll_low",
    "reroll_middle",
    "reroll_middle_low",
    "reroll_high",
    "reroll_high_low",
    "reroll_high_middle",
    "reroll_all",
)
STOP = 0
FEATURE_NAMES = ("high", "middle", "low", "throws_left", "score")
N_TRIPLES = 56
N_ROLLS = 216
MAX_RETHROWS = 20


def _seed_score(dice: tuple[int, int, int]) -> int:
    """The seed's score of a descending triple (a direct reading of its ``get_scores``)."""
    high, middle, low = dice
    if dice == (4, 2, 1):
        return 11
    if dice == (1, 1, 1):
        return 7
    if dice == (2, 2, 1):
        return 0
    if middle == low == 1:  # (d, 1, 1), d > 1
        return high
    if high == middle == low:  # (d, d, d), d > 1
        return high
    if middle == high - 1 and low == high - 2:  # straights
        return 2
    return 1


def _sum_score(dice: tuple[int, int, int]) -> int:
    """Sum of the dice: a variant whose optimum is known in closed form (each die alone)."""
    return sum(dice)


#: score table variant name -> score of a descending triple
SCORE_TABLES: dict[str, Callable[[tuple[int, int, int]], int]] = {
    "seed": _seed_score,
    "sum": _sum_score,
}


@dataclass(frozen=True)
class Dice421Config:
    """421 rules: ``rethrows`` re-throws after the first throw, ``scores`` the name of a
    score table in :data:`SCORE_TABLES` (``seed``: the seed's scoring)."""

    rethrows: int = 2
    scores: str = "seed"

    def __post_init__(self) -> None:
        if (
            isinstance(self.rethrows, bool)
            or not isinstance(self.rethrows, int)
            or not 0 <= self.rethrows <= MAX_RETHROWS
        ):
            raise FsmarenaError(f"421: rethrows must be a whole number from 0 to {MAX_RETHROWS}, got {self.rethrows!r}")
        if self.scores not in SCORE_TABLES:
            raise FsmarenaError(f"421: unknown score table '{self.scores}' (known: {', '.join(sorted(SCORE_TABLES))})")


def mask_positions(action: int) -> tuple[bool, bool, bool]:
    """Which of the (high, middle, low) dice ``action`` re-throws."""
    return (bool(action & 4), bool(action & 2), bool(action & 1))


class _Tables:
    """Every rule as a look-up table over triple ids (built once per score table)."""

    def __init__(self, scores: str):
        self.triples = [(h, m, lo) for h in range(1, 7) for m in range(1, h + 1) for lo in range(1, m + 1)]
        ids: dict[tuple[int, ...], int] = {t: i for i, t in enumerate(self.triples)}
        self.ids = ids
        self.dice = np.array(self.triples, dtype=np.int64)
        rolls = list(itertools.product(range(1, 7), repeat=3))  # roll r = 36(d0-1) + 6(d1-1) + (d2-1)
        self.roll_triple = np.array([ids[tuple(sorted(r, reverse=True))] for r in rolls], dtype=np.int64)
        self.next_triple = np.empty((N_TRIPLES, 8, N_ROLLS), dtype=np.int64)
        for k, kept in enumerate(self.triples):
            for a in range(8):
                positions = mask_positions(a)
                for r, rolled in enumerate(rolls):
                    new = [rolled[p] if positions[p] else kept[p] for p in range(3)]
                    self.next_triple[k, a, r] = ids[tuple(sorted(new, reverse=True))]
        # counts[k, a, k2]: how many of the 216 rolls lead from k to k2 under action a
        self.counts = np.zeros((N_TRIPLES, 8, N_TRIPLES), dtype=np.int64)
        for k in range(N_TRIPLES):
            for a in range(8):
                self.counts[k, a] = np.bincount(self.next_triple[k, a], minlength=N_TRIPLES)
        self.start_counts = np.bincount(self.roll_triple, minlength=N_TRIPLES)
        score_of = SCORE_TABLES[scores]
        self.score = np.array([score_of(t) for t in self.triples], dtype=np.int64)
        self.score_float = self.score.astype(float)
        for table in (self.dice, self.roll_triple, self.next_triple, self.counts, self.score):
            table.setflags(write=False)


@functools.lru_cache(maxsize=8)
def _tables(scores: str) -> _Tables:
    return _Tables(scores)


class Dice421(Game, ExactModel):
    """421 as a one-player game; see the module docstring for rules, states and tables."""

    name = "421"
    title = "421 dice game (1 player, known model: exact optimum)"
    Config = Dice421Config
    phrases = "fsmarena.games.dice421.phrases:PHRASES"
    n_seats = 1
    action_names = ACTION_NAMES
    feature_names = FEATURE_NAMES
    policy_intro = "Which dice to keep, by dice (best scores first) and throws left; *stop* keeps all three."
    policy_caption = "The optimal policy of 421: colour = number of dice thrown again, text = the dice kept."
    #: 421's own training defaults (rl.train.TrainConfig.resolved), chosen over 20 seeds at
    #: 200,000 games with batches of 1,000 games (see the README): the policy must change often
    #: (the default is now the textbook K = 1: after every game) and exploration must fade to
    #: nothing (epsilon linear to 0) so that the
    #: sample averages (alpha = 1/n) end on the greedy policy; Monte Carlo's exploring start is
    #: the first decision only (a random second decision would be averaged into the values of
    #: the first).  TD starts at epsilon 0.4 (SARSA, on-policy, pays for exploration in its
    #: values: 19 of 20 seeds reach 99% at 0.4, 17 of 20 at 0.5), Monte Carlo at 0.5.
    train_defaults = {
        "mc": {"explore_steps": 1, "epsilon": 0.5, "epsilon_final": 0.0, "epsilon_schedule": "linear"},
        "td": {
            "alpha": "1/n",
            "explore_steps": 0,
            "epsilon": 0.4,
            "epsilon_final": 0.0,
            "epsilon_schedule": "linear",
        },
    }

    def __init__(self, config: Dice421Config | None = None):
        super().__init__(config)
        self.tables = _tables(self.config.scores)
        t = self.tables
        R = self.config.rethrows
        self.terminal_index = N_TRIPLES * (R + 1)
        # per-index feature rows (the terminal row is all zeros)
        span = max(1, int(t.score.max() - t.score.min()))
        features = np.zeros((self.terminal_index + 1, len(FEATURE_NAMES)))
        for left in range(R + 1):
            block = features[left * N_TRIPLES : (left + 1) * N_TRIPLES]
            block[:, :3] = (t.dice - 1) / 5.0
            block[:, 3] = left / R if R else 0.0
            block[:, 4] = (t.score - t.score.min()) / span
        features.setflags(write=False)
        self._features = features
        stop_only = np.zeros((1, 8), dtype=bool)
        stop_only[0, STOP] = True
        self._stop_only = stop_only

    @property
    def n_states(self) -> int:
        return self.terminal_index + 1

    @property
    def encodings(self):
        return {"throws_left": self.config.rethrows + 1, "triple": N_TRIPLES}

    # ---- labels ----------------------------------------------------------------------
    def decode(self, index: int) -> tuple[tuple[int, int, int], int] | None:
        """``(dice, throws_left)`` of an observation index, ``None`` for the game-over state."""
        index = int(index)
        if not 0 <= index < self.n_states:
            raise FsmarenaError(f"421: state index {index} out of range (0..{self.n_states - 1})")
        if index == self.terminal_index:
            return None
        left, triple = divmod(index, N_TRIPLES)
        return self.tables.triples[triple], left

    def index_of(self, dice: tuple[int, int, int], throws_left: int) -> int:
        """Observation index of dice (any order) with ``throws_left`` re-throws left."""
        key = tuple(sorted((int(d) for d in dice), reverse=True))
        if key not in self.tables.ids or not 0 <= throws_left <= self.config.rethrows:
            raise FsmarenaError(f"421: no state for dice {dice} with {throws_left} throws left")
        return throws_left * N_TRIPLES + self.tables.ids[key]

    def state_label(self, index: int) -> str:
        decoded = self.decode(index)
        if decoded is None:
            return "game over"
        dice, left = decoded
        return f"{dice[0]}{dice[1]}{dice[2]}, {left} throw{'s' if left != 1 else ''} left"

    def kept_dice(self, dice: tuple[int, int, int], action: int) -> tuple[int, ...]:
        """The dice ``action`` keeps from a descending triple."""
        return tuple(d for d, again in zip(dice, mask_positions(action)) if not again)

    def optimal_player(self):
        """The exact optimal policy as a table player (ties broken towards the lower action)."""
        from fsmarena.games.players import TablePolicy

        return TablePolicy(self.exact_optimum()[1], label="optimal")

    # ---- the known model ----------------------------------------------------------------
    def model(self) -> TabularMDP:
        """The game as a :class:`fsmarena.games.mdp.TabularMDP` in the observation numbering.

        Re-throws move from ``(dice, t)`` to ``(dice', t - 1)`` with probability
        ``counts / 216`` and reward 0; keeping all moves to the game-over state with reward
        = the score.  The game-over state is absorbing (action 0 only, reward 0).
        """
        t, R = self.tables, self.config.rethrows
        S, end = self.n_states, self.terminal_index
        transitions = np.zeros((S, 8, S))
        rewards = np.zeros((S, 8))
        legal = np.zeros((S, 8), dtype=bool)
        for left in range(R + 1):
            block = slice(left * N_TRIPLES, (left + 1) * N_TRIPLES)
            transitions[block, STOP, end] = 1.0
            rewards[block, STOP] = t.score_float
            legal[block, STOP] = True
            if left:
                below = slice((left - 1) * N_TRIPLES, left * N_TRIPLES)
                transitions[block, 1:, below] = t.counts[:, 1:, :] / N_ROLLS
                legal[block, 1:] = True
        transitions[end, STOP, end] = 1.0
        legal[end, STOP] = True
        terminal = np.zeros(S, dtype=bool)
        terminal[end] = True
        start = np.zeros(S)
        start[R * N_TRIPLES : (R + 1) * N_TRIPLES] = t.start_counts / N_ROLLS
        return TabularMDP(transitions, rewards, terminal, legal, start, gamma=1.0).validate()

    def exact_optimum(self) -> tuple[Fraction, np.ndarray]:
        """The optimal expected score (exact) and an optimal policy table; see dice421_exact."""
        from fsmarena.games.dice421.exact import exact_optimum

        return exact_optimum(self)

    def exact_value(self, policy) -> Fraction:
        """The exact expected score of a TablePolicy or action table (see dice421_exact)."""
        from fsmarena.games.dice421.exact import exact_value

        return exact_value(self, policy)

    def expected_scores(self, tables: np.ndarray) -> np.ndarray:
        """Expected scores of many action tables ``(P, n_states)`` at once, as floats."""
        from fsmarena.games.dice421.exact import expected_scores

        return expected_scores(self, tables)

    def exact_player_values(self, player) -> np.ndarray:
        """Exact expected score of every member of a table policy or table FSM (float64).

        The generic hook for games with a known model: evolution (``--protocol score``) and
        studies use it, when a game has it, to score players without sampling.
        """
        from fsmarena.games.dice421.exact import player_values

        return player_values(self, player)

    def policy_rows(self, table: np.ndarray) -> list[dict]:
        """A policy table as readable rows: per dice and throws left, which dice to keep."""
        from fsmarena.games.dice421.exact import policy_rows

        return policy_rows(self, table)

    def policy_text(self, table: np.ndarray) -> str:
        """A policy table as a text table: which dice to keep, by dice and throws left."""
        from fsmarena.games.dice421.exact import policy_text

        return policy_text(self, table)

    # ---- observations of whole blocks of states (the exact solver's FSM inputs) --------------
    def _observe(self, triple: np.ndarray, left: int) -> Observation:
        """What a player sees with the dice ``triple`` (triple ids) and ``left`` re-throws
        left, one row per triple (:func:`fsmarena.games.dice421.exact.input_codes` encodes them)."""
        t = self.tables
        m = len(triple)
        index = triple + left * N_TRIPLES
        return Observation(
            m,
            8,
            index=index,
            features=lambda: self._features[index],
            mask=None if left else (lambda: np.broadcast_to(self._stop_only, (m, 8))),
            step=self.config.rethrows - left,
            throws_left=lambda: np.full(m, left, dtype=np.int64),
            triple=triple,
            dice=lambda: t.dice[triple],
            score=lambda: t.score[triple],
        )
