"""The declared study objective: a game whose ``objective`` is ``"score"`` (the prisoner's dilemma's
score per turn) is maximised by that score in evolution's fitness and in the learners' return,
the one generic path (:func:`fsmarena.games.observation.objective_values`, the kernel's ``OBJECTIVE``)."""

from __future__ import annotations

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.evo.protocols import round_robin_pairing, score
from fsmarena.evo.table_fsm import FSMSpec
from fsmarena.games.dtd.game import DivideTheDollar
from fsmarena.games.ipd.game import IpdConfig, IteratedPrisonersDilemma
from fsmarena.games.kernel import kernel_of
from fsmarena.games.observation import Outcome, objective_values
from fsmarena.games.players import FixedActionPlayer
from fsmarena.rl.train import TrainConfig, train

TURNS = 10
GAME = IteratedPrisonersDilemma(IpdConfig(turns=TURNS))
#: one-state table FSMs over ``opp_last`` (start, opponent C, opponent D): actions 0 C, 1 D
TIT_FOR_TAT = np.array([[[0, 0, 0], [0, 0, 1]]])
DEFECTOR = np.array([[[0, 0, 0], [1, 1, 1]]])


def test_the_prisoners_dilemma_declares_score_and_its_kernel_agrees():
    assert GAME.objective == "score" and kernel_of(GAME).OBJECTIVE == "score"
    assert (
        DivideTheDollar().objective == "rank" and getattr(kernel_of(DivideTheDollar()), "OBJECTIVE", "rank") == "rank"
    )


def test_fitness_of_a_hand_worked_match_is_its_payoff_sum_per_turn():
    """Tit for tat against the defector over 10 turns: S then 9 P = 9 for tit for tat, T then
    9 P = 14 for the defector, per turn 0.9 and 1.4 (a win / loss fitness would be -1 and +1)."""
    spec = FSMSpec(GAME, 1, "opp_last")
    genomes = np.stack([TIT_FOR_TAT, DEFECTOR])
    scores, games = score(GAME, spec, genomes, [round_robin_pairing(2, 1)], np.random.SeedSequence(1))
    assert games == 2
    assert scores.reward / scores.games == pytest.approx([9 / TURNS, 14 / TURNS])
    assert scores.wins.tolist() == [0, 2]  # wins still count the ranking


def test_the_learners_return_is_the_per_turn_payoff():
    """Monte Carlo (sample averages, gamma 1) against the defector, one game: every decision's
    return is the learner's payoff per turn, P = 1 for each of its defections, S = 0 for each
    cooperation, so each visited Q entry is (defections) / turns, not a ranking reward."""
    config = TrainConfig("mc", episodes=1, eval_every=1, eval_games=1, explore_steps=TURNS, alpha="1/n")
    result = train(GAME, config, seed=3, opponent=FixedActionPlayer(1))
    visited = result.counts > 0
    assert result.counts.sum() == TURNS
    defections = result.counts[:, 1].sum()
    assert np.allclose(result.q[visited], defections / TURNS)


def test_objective_values_picks_scores_or_rewards_and_refuses_an_unknown_one():
    outcome = Outcome(scores=np.array([[2.5, 0.5]]), rewards=np.array([[1.0, -1.0]]))
    assert objective_values("score", outcome).tolist() == [[2.5, 0.5]]
    assert objective_values("rank", outcome).tolist() == [[1.0, -1.0]]
    with pytest.raises(FsmarenaError, match="unknown objective"):
        objective_values("wins", outcome)
