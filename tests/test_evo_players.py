"""Table FSMs and binary decision automata: hand-worked behaviour, the batched players against
plain one-row implementations, and their player files."""

from __future__ import annotations

import json

import numpy as np
import pytest
from dtd_helpers import HALF, QUARTER, THREE_QUARTERS, play_scripted, small_game
from hypothesis import given
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.evo.bda import BDASpec, BinaryDecisionAutomaton
from fsmarena.evo.genome import genome_spec
from fsmarena.evo.inputs import input_encoder
from fsmarena.evo.table_fsm import TableFSM
from fsmarena.games.arena import play_games
from fsmarena.games.base import Observation
from fsmarena.games.dtd.game import LARGE_MAX, MEDIAN, SMALL_SPOIL, DivideTheDollar
from fsmarena.games.dtd.machines_reference import PlainBDA, machine_of, play_one
from fsmarena.games.dtd.reference import state_numbers
from fsmarena.games.players import (
    FixedActionPlayer,
    RandomPlayer,
    TablePolicy,
    load_player,
    player_from_json,
    player_to_json,
    save_player,
)

GAME = DivideTheDollar()
GREATER, LESS, NEAR = 0, 1, 2


def bda_state(feature=0, test=GREATER, theta=1000, true=(SMALL_SPOIL, 0), false=(SMALL_SPOIL, 0)):
    return [feature, test, theta, true[0], true[1], false[0], false[1]]


def observe(features, mask=None):
    features = np.atleast_2d(np.asarray(features, dtype=float))
    return Observation(len(features), 3, features=features, mask=mask)


# ---- BDA -------------------------------------------------------------------------------------


def all_failing_bda():
    """Every test is 'Ttl > 1.000' (never true); false branches chain 0 -> 1 -> ... -> 7 -> 0 and
    play small_spoil, except state 3 (median) and state 5 (large_max)."""
    false_actions = [SMALL_SPOIL] * 8
    false_actions[3], false_actions[5] = MEDIAN, LARGE_MAX
    genes = [bda_state(theta=1000, true=(LARGE_MAX, 7), false=(false_actions[s], (s + 1) % 8)) for s in range(8)]
    return BinaryDecisionAutomaton(np.array(genes))


def test_bda_whose_tests_all_fail_plays_the_false_action_of_the_sixth_state_tested():
    # From state 0 the tests visit 0..5: play state 5's false action, move to its false next (6).
    # From 6 they visit 6, 7, 0, 1, 2, 3: play state 3's (median), move to 4.  From 4: 4..7, 0, 1:
    # state 1's (small_spoil), move to 2.  From 2: 2..7: state 7's (small_spoil), back to 0.
    bda = all_failing_bda()
    n = 5
    rng = np.random.default_rng(0)
    memory = bda.begin(GAME, n, None, rng)
    expected = [(LARGE_MAX, 6), (MEDIAN, 4), (SMALL_SPOIL, 2), (SMALL_SPOIL, 0)] * 2
    features = np.random.default_rng(1).choice([0.0, 0.25, 0.5, 0.75, 1.0], size=(n, 6))
    for action, state in expected:
        actions = bda.act(observe(features), memory, None, rng)
        assert actions.tolist() == [action] * n
        assert memory.state.tolist() == [state] * n


def test_bda_true_branch_plays_at_the_first_test_that_holds_and_rows_keep_their_own_state():
    # state 0: Coop > 0.5 -> large_max, go 2; else go 1.  state 1: Sml < 0.3 -> median, go 0; else go 2.
    # state 2: Lrg near 0.72 -> small_spoil, go 2; else go 0 (false action large_max, never reached
    # before the sixth test).
    genes = np.array(
        [
            bda_state(4, GREATER, 500, (LARGE_MAX, 2), (SMALL_SPOIL, 1)),
            bda_state(1, LESS, 300, (MEDIAN, 0), (SMALL_SPOIL, 2)),
            bda_state(3, NEAR, 720, (SMALL_SPOIL, 2), (LARGE_MAX, 0)),
        ]
    )
    bda = BinaryDecisionAutomaton(genes)
    rng = np.random.default_rng(0)
    memory = bda.begin(GAME, 3, None, rng)
    rows = np.array([0, 2])  # only games 0 and 2 decide now
    features = [
        [0, 0.25, 0.5, 0.75, 0.9, 0],  # Coop 0.9 > 0.5: large_max, to state 2
        [0, 0.50, 0.5, 0.75, 0.2, 0],
    ]  # Coop fails -> state 1: Sml 0.5 not < 0.3 -> state 2:
    #                                             Lrg 0.75 near 0.72: small_spoil, stay in 2
    assert bda.act(observe(features), memory, rows, rng).tolist() == [LARGE_MAX, SMALL_SPOIL]
    assert memory.state.tolist() == [2, 0, 2]
    # game 1 still starts from state 0: Coop 0.1 fails -> state 1: Sml 0.25 < 0.3: median, to 0
    assert bda.act(observe([[0, 0.25, 0.5, 0.5, 0.1, 0]]), memory, np.array([1]), rng).tolist() == [MEDIAN]
    assert memory.state.tolist() == [2, 0, 2]


@pytest.mark.parametrize(
    "test, theta, x, holds",
    [
        (NEAR, 200, 0.25, False),  # |0.25 - 0.2| = 0.05 exactly: not < 0.05
        (NEAR, 201, 0.25, True),
        (NEAR, 300, 0.25, False),
        (NEAR, 299, 0.25, True),
        (GREATER, 250, 0.25, False),
        (GREATER, 249, 0.25, True),
        (LESS, 250, 0.25, False),
        (LESS, 251, 0.25, True),
        (GREATER, 333, 1 / 3, True),  # Coop = 1/3 is above 0.333
        (LESS, 334, 1 / 3, True),
    ],
)
def test_bda_thresholds_are_exact_at_card_values(test, theta, x, holds):
    genes = np.array([bda_state(0, test, theta, (LARGE_MAX, 0), (SMALL_SPOIL, 0))])
    bda = BinaryDecisionAutomaton(genes, max_tests=1)
    memory = bda.begin(GAME, 1, None, np.random.default_rng(0))
    action = bda.act(observe([[x, 0, 0, 0, 0, 0]]), memory, None, np.random.default_rng(0))[0]
    assert action == (LARGE_MAX if holds else SMALL_SPOIL)
    assert PlainBDA(genes.tolist(), 1).decide(0, [x, 0, 0, 0, 0, 0], 0) == action


@given(st.integers(0, 2**32 - 1), st.integers(1, 10), st.integers(1, 6))
def test_stacked_bda_decisions_equal_the_plain_one_row_reading(seed, n_states, max_tests):
    rng = np.random.default_rng(seed)
    spec = BDASpec(GAME, n_states, max_tests)
    genomes = spec.random(rng, 4)
    # thresholds sometimes exactly at feature values, to exercise the boundaries
    genomes[..., 2] = np.where(
        rng.random(genomes.shape[:2]) < 0.5,
        rng.choice([0, 250, 500, 750, 1000, 200, 300], size=genomes.shape[:2]),
        genomes[..., 2],
    )
    stack = spec.player(genomes)
    n = 12
    members = rng.integers(0, 4, n)
    memory = stack.begin(GAME, n, members, rng)
    plain = [PlainBDA(genomes[m].tolist(), max_tests) for m in members]
    for _ in range(5):
        features = rng.choice([0.0, 0.25, 0.5, 0.75, 1.0, 1 / 3, 0.2, 0.3], size=(n, 6))
        rows = np.flatnonzero(rng.random(n) < 0.7)
        actions = stack.act(observe(features[rows]), memory, rows, rng)
        assert actions.tolist() == [plain[r].decide(0, features[r].tolist(), 0) for r in rows]
        assert memory.state.tolist() == [p.state for p in plain]


def test_illegal_actions_fall_back_to_a_legal_one():
    bda = BinaryDecisionAutomaton(np.array([bda_state(0, GREATER, 1000, false=(LARGE_MAX, 0))]))
    memory = bda.begin(GAME, 2, None, np.random.default_rng(0))
    mask = np.array([[True, True, False], [False, True, True]])
    assert bda.act(observe(np.zeros((2, 6)), mask), memory, None, None).tolist() == [SMALL_SPOIL, LARGE_MAX]
    fsm = TableFSM(np.zeros((1, 4), dtype=int), np.full((1, 4), LARGE_MAX), inputs="opp_last")
    memory = fsm.begin(GAME, 2, None, None)
    obs = Observation(2, 3, opp_last=np.array([0, 3]), mask=mask)
    assert fsm.act(obs, memory, None, None).tolist() == [SMALL_SPOIL, LARGE_MAX]


# ---- table FSM -------------------------------------------------------------------------------


def test_table_fsm_follows_its_transitions_over_a_scripted_game():
    # Two states over opp_last (0 none, 1 = 1/4, 2 = 1/2, 3 = 3/4).  S0: small_spoil, go to S1 on
    # every input.  S1: none -> median, S0; 1/4 -> large_max, S1; 1/2 -> median, S0; 3/4 ->
    # small_spoil, S0.  Opponent: always large_max.  Deck (4 of each card, hands of 2, 5 rounds):
    #   hands: FSM {1/4, 3/4}, opponent {1/2, 1/2}; draws FSM/opponent: 1/4 3/4, 3/4 1/4, 1/2 1/4, 3/4 1/2.
    # r0 FSM leads, S0 (input none): small_spoil = 1/4; opp large_max on 1/4 = 1/2; scores 1/4 : 1/2.  -> S1
    # r1 opp leads 3/4; FSM S1, input 3/4: small_spoil = 3/4 (1/4 would not spoil); no score.        -> S0
    # r2 FSM leads, S0 (opp last 3/4): small_spoil = 1/4; opp 1/2; scores: FSM 1/2, opp 1.             -> S1
    # r3 opp leads 1/4; FSM S1, input 1/4: large_max = 3/4 (sum 1); FSM 5/4, opp 5/4.                  -> S1
    # r4 FSM leads, S1 (opp last 1/4): large_max = 3/4; opp large_max on 3/4 = 1/4; FSM 2, opp 3/2.    -> S1
    game = small_game(counts=(4, 4, 4), hand_size=2)
    next_state = [[1, 1, 1, 1], [0, 1, 0, 0]]
    action = [[SMALL_SPOIL] * 4, [MEDIAN, LARGE_MAX, MEDIAN, SMALL_SPOIL]]
    fsm = TableFSM(next_state, action, inputs="opp_last")
    deck = [
        QUARTER,
        THREE_QUARTERS,
        HALF,
        HALF,
        QUARTER,
        THREE_QUARTERS,
        THREE_QUARTERS,
        QUARTER,
        HALF,
        QUARTER,
        THREE_QUARTERS,
        HALF,
    ]
    opponent = FixedActionPlayer(LARGE_MAX, "large_max")
    states = []

    class Watch(TableFSM):  # records the FSM's state after each of its decisions
        def act(self, obs, memory, rows, rng):
            actions = super().act(obs, memory, rows, rng)
            states.append(int(memory.state[0]))
            return actions

    watched = Watch(fsm.next_state, fsm.action, fsm.inputs)
    outcome, trace = play_scripted(game, [watched, opponent], [deck])
    fsm_cards = [int(r["lead_card"][0] if r["leader"] == 0 else r["follow_card"][0]) for r in trace]
    assert fsm_cards == [QUARTER, THREE_QUARTERS, QUARTER, THREE_QUARTERS, THREE_QUARTERS]
    assert states == [1, 0, 1, 1, 1]
    assert outcome.scores[0].tolist() == [2.0, 1.5]
    assert outcome.rewards[0].tolist() == [1.0, -1.0]


def test_one_state_fsm_over_the_index_is_the_table_policy():
    table = np.random.default_rng(5).integers(0, 3, GAME.n_states)
    fsm = TableFSM(np.zeros((1, GAME.n_states), dtype=int), table[None], inputs="index")
    policy = TablePolicy(table)
    outcomes = [play_games(GAME, [player, RandomPlayer()], 3000, np.random.default_rng(11)) for player in (fsm, policy)]
    assert np.array_equal(outcomes[0].scores, outcomes[1].scores)
    assert np.array_equal(outcomes[0].rewards, outcomes[1].rewards)
    assert len(np.unique(outcomes[0].rewards[:, 0])) == 3  # wins, draws and losses: real games


@pytest.mark.parametrize(
    "genome, inputs", [("bda", "index"), ("fsm", "index"), ("fsm", "index+opp_last"), ("fsm", "opp_last")]
)
def test_stacked_players_play_the_same_games_as_the_plain_loop(genome, inputs):
    """Heterogeneous stacks in one batch give, game by game, the plain loop's exact totals."""
    rng = np.random.default_rng(17)
    spec = genome_spec(GAME, genome, states=3, inputs=inputs)
    genomes = spec.random(rng, 5)
    stack = spec.player(genomes)
    n = 150
    deck = np.repeat(np.arange(3), GAME.config.counts)
    orders = np.stack([rng.permutation(deck) for _ in range(n)])
    members = [rng.integers(0, 5, n), rng.integers(0, 5, n)]
    memories = [stack.begin(GAME, n, m, rng) for m in members]
    outcome = GAME.play(n, rng, lambda seat, obs, rows: stack.act(obs, memories[seat], rows, rng), deals=orders)
    numbers = state_numbers(3)
    for i in range(n):
        machines = [machine_of(stack, GAME, members[0][i]), machine_of(stack, GAME, members[1][i])]
        totals = np.array(play_one(GAME.config, list(orders[i]), machines, numbers)) / GAME.tables.scale
        assert totals.tolist() == outcome.scores[i].tolist()


def test_input_encoders_combine_parts_in_mixed_radix_and_label_them():
    encoder = input_encoder(GAME, "index+opp_last")
    assert encoder.size == GAME.n_states * 4
    obs = Observation(2, 3, index=np.array([0, 39]), opp_last=np.array([3, 1]))
    assert encoder.encode(obs).tolist() == [3, 39 * 4 + 1]
    assert encoder.decode(39 * 4 + 1) == (39, 1)
    assert encoder.label(GAME, 39 * 4 + 1) == f"{GAME.state_label(39)} | opp: 1/4"
    with pytest.raises(FsmarenaError, match="unknown FSM input 'opp_first'"):
        input_encoder(GAME, "index+opp_first")
    with pytest.raises(FsmarenaError, match="twice"):
        input_encoder(GAME, "index+index")


# ---- files -----------------------------------------------------------------------------------


@pytest.mark.parametrize("genome", ["fsm", "bda"])
def test_player_files_round_trip(tmp_path, genome):
    spec = genome_spec(GAME, genome, states=5, inputs="index+opp_last")
    genomes = spec.random(np.random.default_rng(2), 1)
    path = tmp_path / "p.json"
    save_player(spec.player(genomes, label="mine"), GAME, path)
    loaded = load_player(path, GAME)
    assert loaded.label == "mine"
    assert np.array_equal(spec.genomes_of(loaded), genomes)


def good_fsm_json():
    fsm = TableFSM(np.zeros((2, 4), dtype=int), np.ones((2, 4), dtype=int), inputs="opp_last")
    return player_to_json(fsm, GAME)


def good_bda_json():
    return player_to_json(all_failing_bda(), GAME)


@pytest.mark.parametrize(
    "make, edit, message",
    [
        (good_fsm_json, lambda d: d.update(next_state=[[0, 0, 0], [0, 0, 0]]), "shape"),
        (good_fsm_json, lambda d: d.update(next_state=[[0, 0, 0, 2], [0, 0, 0, 0]]), r"entries must be in \[0, 1\]"),
        (good_fsm_json, lambda d: d.update(action=[[0, 0, 0, 3], [0, 0, 0, 0]]), r"entries must be in \[0, 2\]"),
        (good_fsm_json, lambda d: d.update(action=[[0, 0, 0, 0.5], [0, 0, 0, 0]]), "integers"),
        (good_fsm_json, lambda d: d.update(inputs="hand"), "unknown FSM input"),
        (good_fsm_json, lambda d: d.update(states=-1), "between"),
        (good_fsm_json, lambda d: d.pop("action"), "missing field 'action'"),
        (good_bda_json, lambda d: d["states"][2]["true"].pop("action"), "missing field 'action'"),
        (good_bda_json, lambda d: d["states"][2]["true"].update(next=8), "between 0 and 7"),
        (good_bda_json, lambda d: d["states"][2]["false"].update(action="fold"), "unknown action 'fold'"),
        (good_bda_json, lambda d: d["states"][0].update(feature="Luck"), "unknown feature 'Luck'"),
        (good_bda_json, lambda d: d["states"][0].update(test=">="), "unknown test"),
        (good_bda_json, lambda d: d["states"][0].update(theta=1.5), "between 0.0 and 1.0"),
        (good_bda_json, lambda d: d["states"][0].update(theta=0.2501), "not a multiple"),
        (good_bda_json, lambda d: d.update(states=[]), "1 to"),
        (good_bda_json, lambda d: d.update(states={"0": 1}), "must be a list"),
    ],
)
def test_malformed_machine_files_give_one_clear_error(make, edit, message):
    data = make()
    player_from_json(data, GAME)  # the unedited file is fine
    edit(data)
    with pytest.raises(FsmarenaError, match=message):
        player_from_json(json.loads(json.dumps(data)), GAME)


def test_machines_check_their_game_before_playing():
    fsm = TableFSM(np.zeros((1, 7), dtype=int), np.zeros((1, 7), dtype=int), inputs="opp_last")
    with pytest.raises(FsmarenaError, match="7 inputs"):
        fsm.begin(GAME, 1, None, None)
    with pytest.raises(FsmarenaError, match="must be equal"):
        TableFSM(np.zeros((2, 4), dtype=int), np.zeros((2, 3), dtype=int))
    with pytest.raises(FsmarenaError, match="next states"):
        TableFSM(np.full((2, 4), 2), np.zeros((2, 4), dtype=int))
    with pytest.raises(FsmarenaError, match="out of range"):
        BinaryDecisionAutomaton(np.array([bda_state(0, 3, 10)]))
