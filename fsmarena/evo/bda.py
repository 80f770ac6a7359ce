"""Binary decision automata (BDA): the thesis's evolved players (E. Wild, 2017).

A BDA has ``S`` states (8 in the thesis).  A state holds seven fields: the feature it tests
(one of the game's ``feature_names``; DTD: Ttl, Sml, Med, Lrg, Coop, Idx), the test (``>``,
``<`` or *near*: ``|x - theta| < 0.05``), the threshold ``theta`` in [0, 1] in steps of 0.001,
and an (action, next state) pair for *true* and another for *false*.

Decision, starting from the current state (state 0 at the start of every game): if the test
holds, play the true action and move to the true next state; otherwise move to the false next
state and test again, up to ``max_tests`` (6) tests in all.  If every test fails, play the
false action of the last state tested and move to its false next state.

Thresholds are stored as integers in thousandths and the tests compare ``1000 * x`` with
them (near: ``|1000 x - theta| < 50``), so a threshold on a card value such as 0.25 is exact
and not at the mercy of binary rounding.  Illegal actions (where a game has a mask) fall back
to the first legal one.

A stack of ``P`` automata plays in one batch: the fields are flat arrays over ``P * S``
member-states and each of the (at most six) test rounds is a handful of fancy-indexing
operations over the rows still undecided.

Genome layout (:class:`BDASpec`): an int array ``(S, 7)`` with the columns of :data:`FIELDS`.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.evo.genome_base import GenomeSpec
from fsmarena.fileio import Fields
from fsmarena.games.compiled_players import BDA, NO_TABLE, CompilesItself, Member
from fsmarena.games.players import Player, action_number, legal_or_first

FIELDS = ("feature", "test", "theta", "true_action", "true_next", "false_action", "false_next")
FEATURE, TEST, THETA, TRUE_ACTION, TRUE_NEXT, FALSE_ACTION, FALSE_NEXT = range(7)
TESTS = (">", "<", "near")
GREATER, LESS, NEAR = range(3)
#: thresholds are integers in [0, THETA_STEPS]: theta = value / THETA_STEPS
THETA_STEPS = 1000
#: the near test's half-width, in threshold steps (0.05)
NEAR_WIDTH = 50
MAX_TESTS = 6
MAX_STATES = 256


class _Memory:
    """Per-game member offsets and current states; ``trace``, when a list, receives one
    ``(member-states tested, test held, last test)`` triple per test round (usage counts)."""

    __slots__ = ("base", "state", "trace")

    def __init__(self, base: np.ndarray, state: np.ndarray):
        self.base = base
        self.state = state
        self.trace: list | None = None


class BinaryDecisionAutomaton(Player, CompilesItself):
    """A BDA (or a stack of them); see the module docstring.

    ``genes``: int array ``(S, 7)`` or ``(P, S, 7)`` with the columns of :data:`FIELDS`.
    ``names``: the game's (feature names, action names), used to write readable files.
    """

    kind = "bda"

    def __init__(
        self,
        genes: np.ndarray,
        max_tests: int = MAX_TESTS,
        label: str | None = None,
        names: tuple[tuple[str, ...], tuple[str, ...]] | None = None,
    ):
        super().__init__(label or "bda")
        self.names = names
        genes = np.asarray(genes, dtype=np.int64)
        if genes.ndim == 2:
            genes = genes[None]
        if genes.ndim != 3 or genes.shape[2] != len(FIELDS) or 0 in genes.shape:
            raise FsmarenaError(f"BDA genes must have shape [states, {len(FIELDS)}], got {list(genes.shape)}")
        if isinstance(max_tests, bool) or not isinstance(max_tests, (int, np.integer)) or max_tests < 1:
            raise FsmarenaError(f"a BDA needs at least one test per decision, got {max_tests}")
        self.n_members, self.n_states, _ = genes.shape
        S = self.n_states
        high = np.array(
            [np.iinfo(np.int64).max, len(TESTS), THETA_STEPS + 1, np.iinfo(np.int64).max, S, np.iinfo(np.int64).max, S]
        )
        if genes.min() < 0 or np.any(genes >= high):
            raise FsmarenaError("BDA genes out of range (tests 0-2, theta 0-1000, next states < states)")
        self.genes = genes
        self.max_tests = int(max_tests)
        flat = genes.reshape(-1, len(FIELDS))
        self._feature = flat[:, FEATURE]
        theta = flat[:, THETA].astype(float)
        test = flat[:, TEST]
        # every test as an open interval lo < 1000 x < hi
        self._lo = np.where(test == GREATER, theta, np.where(test == LESS, -np.inf, theta - NEAR_WIDTH))
        self._hi = np.where(test == GREATER, np.inf, np.where(test == LESS, theta, theta + NEAR_WIDTH))
        self._true_action = flat[:, TRUE_ACTION]
        self._true_next = flat[:, TRUE_NEXT]
        self._false_action = flat[:, FALSE_ACTION]
        self._false_next = flat[:, FALSE_NEXT]

    def begin(self, game, n, members, rng):
        n_features = len(game.feature_names)
        if self.genes[..., FEATURE].max() >= n_features:
            raise FsmarenaError(
                f"BDA tests feature {self.genes[..., FEATURE].max()} but {game.name} has {n_features} features"
            )
        actions = self.genes[..., [TRUE_ACTION, FALSE_ACTION]]
        if actions.max() >= game.n_actions:
            raise FsmarenaError(f"BDA plays action {actions.max()} but {game.name} has {game.n_actions} actions")
        base = np.zeros(n, dtype=np.int64) if members is None else np.asarray(members, dtype=np.int64) * self.n_states
        return _Memory(base, np.zeros(n, dtype=np.int64))

    def act(self, obs, memory, rows, rng):
        scaled = obs.features * float(THETA_STEPS)
        n_features = scaled.shape[1]
        values = scaled.reshape(-1)
        base = memory.base if rows is None else memory.base[rows]
        state = memory.state if rows is None else memory.state[rows]
        actions = np.empty(len(base), dtype=np.int64)
        new_state = np.empty(len(base), dtype=np.int64)
        pending = np.arange(len(base))  # rows (positions in this call) still undecided
        current = base + state  # their flat member-state
        for test in range(self.max_tests):
            x = values[pending * n_features + self._feature[current]]
            holds = (self._lo[current] < x) & (x < self._hi[current])
            if memory.trace is not None:
                memory.trace.append((current, holds, test == self.max_tests - 1))
            hit, at = pending[holds], current[holds]
            actions[hit] = self._true_action[at]
            new_state[hit] = self._true_next[at]
            failed = ~holds
            pending, at = pending[failed], current[failed]
            if test == self.max_tests - 1 or not len(pending):
                actions[pending] = self._false_action[at]
                new_state[pending] = self._false_next[at]
                break
            current = base[pending] + self._false_next[at]
        if rows is None:
            memory.state = new_state
        else:
            memory.state[rows] = new_state
        return legal_or_first(actions, obs.mask)

    # ---- files --------------------------------------------------------------------------
    def stack_key(self):
        return None if self.n_members != 1 else (self.kind, self.n_states, self.max_tests, self.names)

    @classmethod
    def stack(cls, players: Sequence["BinaryDecisionAutomaton"]) -> "BinaryDecisionAutomaton":
        first = players[0]
        return cls(np.concatenate([p.genes for p in players]), first.max_tests, label="stack", names=first.names)

    def compiled(self, game: Any) -> Member:
        """``[BDA, S, max_tests, feature S, true action S, true next S, false action S, false next S]``
        and the floats ``[lo S, hi S]``, the open interval each test checks
        (:mod:`fsmarena.games.compiled_players`)."""
        return self.compiled_members(game)[0]

    def compiled_members(self, game: Any) -> list[Member]:
        """:meth:`compiled` of every member at once, from the stack's genes and intervals."""
        genes = self.genes
        if (
            genes[..., FEATURE].max() >= len(game.feature_names)
            or genes[..., [TRUE_ACTION, FALSE_ACTION]].max() >= game.n_actions
        ):
            raise FsmarenaError(f"BDA '{self.label}' does not fit {game.name}")
        columns = genes[..., [FEATURE, TRUE_ACTION, TRUE_NEXT, FALSE_ACTION, FALSE_NEXT]].transpose(0, 2, 1)
        head = np.array([BDA, self.n_states, self.max_tests], dtype=np.int64)
        ints = np.concatenate([np.tile(head, (self.n_members, 1)), columns.reshape(self.n_members, -1)], axis=1)
        lo, hi = self._lo.reshape(self.n_members, -1), self._hi.reshape(self.n_members, -1)
        floats = np.concatenate([lo, hi], axis=1)
        return [(row, interval, NO_TABLE) for row, interval in zip(ints, floats)]

    def split(self) -> list[Player]:
        return [BinaryDecisionAutomaton(g, self.max_tests, self.label, self.names) for g in self.genes]

    def to_dict(self) -> dict[str, Any]:
        if self.n_members != 1:
            raise FsmarenaError("save the members of a stacked BDA one by one")
        return {
            "max_tests": self.max_tests,
            "start_state": 0,
            "states": [state_to_json(row, *(self.names or (None, None))) for row in self.genes[0]],
        }

    @classmethod
    def from_fields(cls, fields, game):
        max_tests = fields.int_in("max_tests", 1, 64, MAX_TESTS)
        fields.int_in("start_state", 0, 0, 0)
        states = fields.get("states", list)
        if not 1 <= len(states) <= MAX_STATES:
            raise fields.fail(f"a BDA needs 1 to {MAX_STATES} states, got {len(states)}")
        genes = np.zeros((len(states), len(FIELDS)), dtype=np.int64)
        for number, raw in enumerate(states):
            state = Fields(raw, f"{fields.source}: state {number}")
            genes[number] = state_from_json(state, game, len(states))
        return cls(genes, max_tests, label=fields.get("label", str, None), names=game_names(game))


def game_names(game) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The game's feature and action names, as BDAs use them in files and figures."""
    return tuple(game.feature_names), tuple(game.action_names)


def state_to_json(row: np.ndarray, feature_names=None, action_names=None) -> dict[str, Any]:
    """A BDA state as a readable JSON object (names where the game's names are given)."""

    def action(number: int):
        return action_names[number] if action_names else int(number)

    return {
        "feature": feature_names[row[FEATURE]] if feature_names else int(row[FEATURE]),
        "test": TESTS[row[TEST]],
        "theta": int(row[THETA]) / THETA_STEPS,
        "true": {"action": action(row[TRUE_ACTION]), "next": int(row[TRUE_NEXT])},
        "false": {"action": action(row[FALSE_ACTION]), "next": int(row[FALSE_NEXT])},
    }


def state_from_json(state, game, n_states: int) -> np.ndarray:
    """The seven genes of one state from its validated JSON object."""
    feature = state.get("feature", (str, int))
    names = tuple(game.feature_names)
    if isinstance(feature, str):
        if feature not in names:
            raise state.fail(f"unknown feature '{feature}' (features: {', '.join(names) or 'none'})")
        feature = names.index(feature)
    elif not 0 <= feature < len(names):
        raise state.fail(f"feature {feature} out of range (0..{len(names) - 1})")
    test = state.get("test", str)
    if test not in TESTS:
        raise state.fail(f"unknown test '{test}' (tests: {', '.join(TESTS)})")
    theta = state.number_in("theta", 0.0, 1.0)
    steps = round(theta * THETA_STEPS)
    if abs(theta * THETA_STEPS - steps) > 1e-6:
        raise state.fail(f"theta {theta} is not a multiple of {1 / THETA_STEPS}")
    genes = [feature, TESTS.index(test), steps]
    for branch in ("true", "false"):
        part = Fields(state.get(branch, dict), f"{state.source}, {branch} branch")
        genes.append(action_number(game, part.get("action", (str, int)), part))
        genes.append(part.int_in("next", 0, n_states - 1))
    return np.array(genes, dtype=np.int64)


class BDASpec(GenomeSpec):
    """BDA genomes ``(S, 7)`` with the columns of :data:`FIELDS`."""

    name = "bda"

    def __init__(self, game, n_states: int = 8, max_tests: int = MAX_TESTS):
        if isinstance(n_states, bool) or not isinstance(n_states, int) or not 1 <= n_states <= MAX_STATES:
            raise FsmarenaError(f"a BDA needs 1 to {MAX_STATES} states, got {n_states}")
        if isinstance(max_tests, bool) or not isinstance(max_tests, int) or not 1 <= max_tests <= 64:
            raise FsmarenaError(f"a BDA makes 1 to 64 tests per decision, got {max_tests}")
        if not game.feature_names:
            raise FsmarenaError(f"{game.name} has no feature observation: binary decision automata cannot play it")
        self.max_tests = max_tests
        self.names = game_names(game)
        self.shape = (n_states, len(FIELDS))
        self.high = np.tile(
            np.array(
                [
                    len(game.feature_names),
                    len(TESTS),
                    THETA_STEPS + 1,
                    game.n_actions,
                    n_states,
                    game.n_actions,
                    n_states,
                ],
                dtype=np.int64,
            ),
            (n_states, 1),
        )

    def player(self, genomes, label=None):
        return BinaryDecisionAutomaton(genomes, self.max_tests, label=label, names=self.names)

    def genomes_of(self, player):
        if not isinstance(player, BinaryDecisionAutomaton) or player.genes.shape[1:] != self.shape:
            raise FsmarenaError(f"expected a BDA with {self.shape[0]} states")
        return player.genes.copy()

    def settings(self):
        return {"genome": self.name, "states": self.n_states, "max_tests": self.max_tests}
