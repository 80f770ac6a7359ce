"""Minimal machines: hand-built machines of known minimal size, and random machines whose
minimal form plays the very same games (hypothesis)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import MAX_TESTS, BinaryDecisionAutomaton
from fsmarena.evo.genome import genome_spec
from fsmarena.evo.minimise import InputDomain, minimise
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.evo.usage import measure_usage, minimal_in_play, play_panel
from fsmarena.games.dtd.game import LARGE_MAX, MEDIAN, SMALL_SPOIL, DivideTheDollar
from fsmarena.games.goofspiel.game import Goofspiel
from fsmarena.games.players import FixedActionPlayer, RandomPlayer, TablePolicy

GAME = DivideTheDollar()
TTL, COOP = 0, 4
GREATER, LESS, NEAR = 0, 1, 2


def fsm(next_state, action, inputs="opp_last"):
    return TableFSM(np.array(next_state), np.array(action), inputs=inputs)


def test_duplicated_and_unreachable_states_leave_two():
    """S1 and S2 are copies (same actions, both back to S0); S3 is never entered."""
    machine = fsm(
        [[1, 2, 1, 2], [0, 0, 0, 0], [0, 0, 0, 0], [3, 3, 0, 1]],
        [[SMALL_SPOIL, MEDIAN, LARGE_MAX, MEDIAN], [MEDIAN] * 4, [MEDIAN] * 4, [LARGE_MAX] * 4],
    )
    minimal = minimise(machine)
    assert minimal.n_states == 2
    assert minimal.state_of.tolist() == [0, 1, 1, -1]
    assert minimal.player.next_state[0].tolist() == [[1, 1, 1, 1], [0, 0, 0, 0]]
    assert minimal.player.action[0].tolist() == [[SMALL_SPOIL, MEDIAN, LARGE_MAX, MEDIAN], [MEDIAN] * 4]


def test_states_differing_some_steps_later_stay_apart():
    """A ring S0 -> S1 -> S2 -> S3 -> S0 with one action everywhere but S3's: four distinct
    states (S0 plays like S3 only four moves later; three rounds of refinement)."""
    ring = [[1] * 4, [2] * 4, [3] * 4, [0] * 4]
    machine = fsm(ring, [[MEDIAN] * 4] * 3 + [[LARGE_MAX] * 4])
    assert minimise(machine).n_states == 4
    # make S3 play like the others: one state is enough
    assert minimise(fsm(ring, [[MEDIAN] * 4] * 4)).n_states == 1


def test_inputs_outside_the_domain_are_left_out():
    """S0 and S1 differ only on input 3, which the domain says never occurs."""
    machine = fsm(
        [[1, 1, 1, 1], [0, 0, 0, 1]], [[MEDIAN, MEDIAN, SMALL_SPOIL, LARGE_MAX], [MEDIAN, MEDIAN, SMALL_SPOIL, MEDIAN]]
    )
    assert minimise(machine).n_states == 2
    minimal = minimise(machine, InputDomain(inputs=np.array([True, True, True, False])))
    assert minimal.n_states == 1 and minimal.inputs.tolist() == [0, 1, 2]
    assert minimal.player.action[0].tolist() == [[MEDIAN, MEDIAN, SMALL_SPOIL, 0]]


def bda(rows, max_tests=MAX_TESTS):
    return BinaryDecisionAutomaton(np.array(rows), max_tests)


def test_bda_whose_test_never_holds_loses_its_true_branch():
    """S0 tests Ttl > 1.0, which no value in [0, 1] passes: S1 (only on its true branch) is
    unreachable.  S2 loops on itself."""
    machine = bda(
        [
            [TTL, GREATER, 1000, LARGE_MAX, 1, MEDIAN, 2],
            [COOP, LESS, 300, SMALL_SPOIL, 0, SMALL_SPOIL, 1],
            [COOP, GREATER, 500, SMALL_SPOIL, 2, MEDIAN, 0],
        ]
    )
    minimal = minimise(machine)
    assert minimal.n_states == 2 and minimal.state_of.tolist() == [0, -1, 1]
    # the same with Coop < 0.0
    machine.genes[0, 0, :3] = [COOP, LESS, 0]
    assert minimise(BinaryDecisionAutomaton(machine.genes[0])).n_states == 2


def test_bda_equivalent_states_merge_and_observed_values_decide_tests():
    """S1 and S2 are copies pointing at each other; S3's test Coop near 0.9 is only
    reachable on S0's true branch."""
    machine = bda(
        [
            [COOP, GREATER, 700, LARGE_MAX, 3, MEDIAN, 1],
            [TTL, LESS, 500, SMALL_SPOIL, 2, MEDIAN, 2],
            [TTL, LESS, 500, SMALL_SPOIL, 1, MEDIAN, 1],
            [COOP, NEAR, 900, SMALL_SPOIL, 0, LARGE_MAX, 0],
        ]
    )
    assert minimise(machine).n_states == 3
    # if Coop is only ever seen at 0.5, S0's test never holds and S3 is never reached
    values = tuple(np.array([500.0]) if f == COOP else np.array([0.0, 1000.0]) for f in range(6))
    minimal = minimise(machine, InputDomain(features=values))
    assert minimal.n_states == 2 and minimal.state_of.tolist() == [0, 1, 1, -1]


def test_refuses_what_is_not_a_machine():
    with pytest.raises(FsmarenaError, match="only table-fsm and bda"):
        minimise(TablePolicy(np.zeros(GAME.n_states, dtype=int)))
    stack = TableFSM(np.zeros((2, 1, 4), dtype=int), np.zeros((2, 1, 4), dtype=int), "opp_last")
    with pytest.raises(FsmarenaError, match="one by one"):
        minimise(stack)


# ---- random machines: the minimal machine plays the same games ---------------------------------

PANEL = [RandomPlayer(), FixedActionPlayer(MEDIAN, "median")]


def same_play(original, minimal, game, panel, seed, games=30):
    """Equal outcomes game by game, and the minimal machine's state visits are the original's
    gathered through ``state_of``."""
    for a, b in zip(
        play_panel(original, game, panel, games, seed), play_panel(minimal.player, game, panel, games, seed)
    ):
        assert np.array_equal(a.scores, b.scores) and np.array_equal(a.rewards, b.rewards)
    before = measure_usage(original, game, panel, games, seed)
    after = measure_usage(minimal.player, game, panel, games, seed)
    assert before.decisions == after.decisions > 0
    gathered = np.zeros(minimal.n_states, dtype=np.int64)
    np.add.at(gathered, minimal.state_of[before.visits > 0], before.visits[before.visits > 0])
    assert np.array_equal(gathered, after.visits)


def random_machine(game, genome, states, inputs, seed):
    spec = genome_spec(game, genome, states, inputs) if genome == "fsm" else genome_spec(game, "bda", states)
    genes = spec.random(np.random.default_rng(seed), 1)
    if genome == "bda":  # thresholds on a coarse grid so that tests are often decided alike
        genes[..., 2] = genes[..., 2] // 250 * 250
    return spec.player(genes)


machines = st.tuples(
    st.sampled_from(["fsm", "bda"]),
    st.integers(1, 6),
    st.sampled_from(["opp_last", "index"]),
    st.integers(0, 2**32 - 1),
)


@settings(max_examples=25, deadline=None)
@given(machines, st.integers(0, 1000))
def test_random_machines_play_identically_when_minimised(machine, seed):
    genome, states, inputs, machine_seed = machine
    original = random_machine(GAME, genome, states, inputs, machine_seed)
    minimal = minimise(original)
    assert minimal.n_states <= original.n_states
    same_play(original, minimal, GAME, PANEL, seed)
    again = minimise(minimal.player)
    assert np.array_equal(again.state_of, np.arange(minimal.n_states))
    assert _genes(again.player) == _genes(minimal.player)


@settings(max_examples=15, deadline=None)
@given(machines, st.integers(0, 1000))
def test_observed_domain_minimisation_replays_the_observed_games(machine, seed):
    """Minimised on the inputs it met against the panel, the machine replays those games."""
    genome, states, inputs, machine_seed = machine
    game = GAME if genome == "fsm" or machine_seed % 2 else Goofspiel()
    if inputs == "index" and game is not GAME:
        inputs = "opp_last"
    original = random_machine(game, genome, states, inputs, machine_seed)
    domain = measure_usage(original, game, PANEL[:1], 30, seed).domain()
    minimal = minimise(original, domain)
    assert minimal.n_states <= minimise(original).n_states
    same_play(original, minimal, game, PANEL[:1], seed)
    assert _genes(minimise(minimal.player, domain).player) == _genes(minimal.player)


def _genes(player):
    if isinstance(player, TableFSM):
        return (player.next_state.tolist(), player.action.tolist())
    return player.genes.tolist()


def test_minimal_in_play_is_the_observed_minimum_with_its_own_usage():
    """What ``draw --minimise`` and the studies' drawings show: the duplicated states merged,
    and usage counted on the minimal machine in the same games (as many decisions, since it
    plays alike)."""
    machine = fsm(
        [[1, 2, 1, 2], [0, 0, 0, 0], [0, 0, 0, 0], [3, 3, 0, 1]],
        [[SMALL_SPOIL, MEDIAN, LARGE_MAX, MEDIAN], [MEDIAN] * 4, [MEDIAN] * 4, [LARGE_MAX] * 4],
    )
    minimal, inputs, usage = minimal_in_play(machine, GAME, games=20, seed=3)
    original = measure_usage(machine, GAME, games=20, seed=3)
    assert minimal.n_states == 2 and inputs is not None
    assert usage.games == original.games
    assert usage.entries.sum() == original.entries.sum()
    assert usage.entries.shape[0] == 2


# ---- states never used in play (draw --minimise played) ----------------------------------------


def eight_state_fsm() -> TableFSM:
    """Over opp_last, 8 states: S0 answers the game's first decision (the opponent has not
    played) and every later one, and moves to S1; S1 to S6 are a ring of distinct actions; S1
    moves to S7 on "not played yet", an input it never meets (only a game's first decision
    shows it, and that decision is S0's).  So S7 is reachable on the inputs met in play, yet
    never used."""
    ring = [SMALL_SPOIL, SMALL_SPOIL, MEDIAN, MEDIAN, LARGE_MAX, LARGE_MAX]
    next_state = [[1] * 4] + [[1 + (k + 1) % 6] * 4 for k in range(6)] + [[7] * 4]
    action = [[LARGE_MAX, MEDIAN, MEDIAN, MEDIAN]] + [[a] * 4 for a in ring] + [[LARGE_MAX] * 4]
    next_state[1][0] = 7
    return fsm(next_state, action)


def test_played_minimisation_drops_every_state_the_usage_count_marks_never_used():
    machine = eight_state_fsm()
    usage = measure_usage(machine, GAME, games=20, seed=0)
    assert usage.summary()["states_used"] == 7 and usage.visits[7] == 0
    on_inputs = minimise(machine, usage.domain())
    assert on_inputs.n_states == 8  # the inputs met in play reach S7: it is kept
    played = minimise(machine, usage.domain(played=True))
    assert played.n_states == 7 and played.state_of[7] == -1
    assert (played.state_of >= 0).tolist() == (usage.visits > 0).tolist()
    same_play(machine, played, GAME, None, 0, games=20)
    minimal, _inputs, minimal_usage = minimal_in_play(machine, GAME, games=20, seed=0, played=True)
    assert minimal.n_states == 7 and minimal_usage.summary()["states_used"] == 7


@settings(max_examples=15, deadline=None)
@given(machines, st.integers(0, 1000))
def test_played_minimisation_keeps_only_used_states_and_replays_the_games(machine, seed):
    genome, states, inputs, machine_seed = machine
    original = random_machine(GAME, genome, states, inputs, machine_seed)
    usage = measure_usage(original, GAME, PANEL[:1], 30, seed)
    minimal = minimise(original, usage.domain(played=True))
    kept = minimal.state_of >= 0
    assert not (kept & ~usage.played_states()).any()  # every state kept was used
    assert minimal.n_states <= minimise(original, usage.domain()).n_states
    same_play(original, minimal, GAME, PANEL[:1], seed)
