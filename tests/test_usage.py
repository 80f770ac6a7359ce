"""Usage counts: the batched counts equal those of a plain one-row-at-a-time machine playing
the same games, and they add up."""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import MAX_TESTS
from fsmarena.evo.genome import genome_spec
from fsmarena.evo.inputs import input_encoder
from fsmarena.evo.usage import default_panel, measure_usage, play_panel
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.games.goofspiel.game import Goofspiel
from fsmarena.games.players import Player, TablePolicy, legal_or_first

GAME = DivideTheDollar()


class PlainCounter(Player):
    """The machine's rules read literally, one row at a time, counting as it goes."""

    kind = "plain-counter"

    def __init__(self, machine, game):
        super().__init__("plain")
        self.machine, self.game = machine, game
        self.bda = machine.kind == "bda"
        shape = (machine.n_states, 3) if self.bda else (machine.n_states, machine.n_inputs)
        self.entries = np.zeros(shape, dtype=np.int64)
        self.visits = np.zeros(machine.n_states, dtype=np.int64)

    def begin(self, game, n, members, rng):
        return np.zeros(n, dtype=np.int64)

    def act(self, obs, memory, rows, rng):
        rows = np.arange(obs.n) if rows is None else rows
        actions = np.empty(obs.n, dtype=np.int64)
        step = self._bda_step if self.bda else self._fsm_step
        for i, row in enumerate(rows):
            self.visits[memory[row]] += 1
            actions[i], memory[row] = step(obs, i, int(memory[row]))
        return legal_or_first(actions, obs.mask)

    def _fsm_step(self, obs, i, state):
        x = int(input_encoder(self.game, self.machine.inputs).encode(obs)[i])
        self.entries[state, x] += 1
        return self.machine.action[0, state, x], self.machine.next_state[0, state, x]

    def _bda_step(self, obs, i, state):
        for test in range(self.machine.max_tests):
            feature, kind, theta, t_action, t_next, f_action, f_next = self.machine.genes[0, state]
            x = obs.features[i, feature] * 1000
            holds = x > theta if kind == 0 else x < theta if kind == 1 else abs(x - theta) < 50
            if holds:
                self.entries[state, 0] += 1
                return t_action, t_next
            if test == self.machine.max_tests - 1:
                self.entries[state, 2] += 1
                return f_action, f_next
            self.entries[state, 1] += 1
            state = f_next
        raise AssertionError("unreachable")


def random_machine(game, genome, seed, inputs="opp_last", max_tests=MAX_TESTS):
    if genome == "fsm":
        spec = genome_spec(game, "fsm", 4, inputs)
    else:
        spec = genome_spec(game, "bda", 5, max_tests=max_tests)
    return spec.player(spec.random(np.random.default_rng(seed), 1))


@pytest.mark.parametrize(
    "game, genome, inputs, max_tests",
    [
        (GAME, "fsm", "index+opp_last", MAX_TESTS),
        (GAME, "bda", "", MAX_TESTS),
        (GAME, "bda", "", 2),
        (Goofspiel(), "fsm", "opp_last", MAX_TESTS),
        (Goofspiel(), "bda", "", 3),
    ],
)
def test_counts_equal_a_plain_machine_on_the_same_games(game, genome, inputs, max_tests):
    for seed in range(3):
        machine = random_machine(game, genome, seed, inputs, max_tests)
        usage = measure_usage(machine, game, games=40, seed=seed)
        plain = PlainCounter(machine, game)
        played = play_panel(plain, game, games=40, seed=seed)
        for a, b in zip(play_panel(machine, game, games=40, seed=seed), played):
            assert np.array_equal(a.scores, b.scores)
        assert np.array_equal(usage.entries, plain.entries)
        assert np.array_equal(usage.visits, plain.visits)
        assert usage.games == 40 * game.n_seats * len(default_panel(game))


def test_counts_add_up():
    fsm = measure_usage(random_machine(GAME, "fsm", 1, "index"), GAME, games=30)
    assert fsm.entries.sum() == fsm.visits.sum() == fsm.decisions == fsm.inputs.sum() > 0
    assert np.array_equal(fsm.entries.sum(axis=1), fsm.visits)
    assert fsm.transitions.sum() == fsm.decisions
    bda = measure_usage(random_machine(GAME, "bda", 1), GAME, games=30)
    assert bda.entries[:, 0].sum() + bda.entries[:, 2].sum() == bda.decisions == bda.visits.sum()
    assert bda.transitions.sum() == bda.entries.sum()
    summary = bda.summary()
    assert summary["entries"] == 5 * 3 and 0 < summary["entries_used"] <= 15
    assert all(len(values) > 0 for values in bda.features)


def test_usage_refuses_other_players_and_bad_counts():
    with pytest.raises(FsmarenaError, match="single table-fsm or bda"):
        measure_usage(TablePolicy(np.zeros(GAME.n_states, dtype=int)), GAME)
    with pytest.raises(FsmarenaError, match="positive integer"):
        measure_usage(random_machine(GAME, "fsm", 0), GAME, games=0)
