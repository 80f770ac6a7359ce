"""Whom a study's evolved families' learning curves were measured against
(:meth:`fsmarena.studies.runner.StudyData.evolution_curve_opponent`): the study's curve opponent
for runs that name it in their records, ``random`` for stores made before evolution measured its
curves against the curve opponent; the captions say so only where the two differ."""

from __future__ import annotations

from types import SimpleNamespace

from fsmarena.studies.panel_report import _evolved_against
from fsmarena.studies.runner import StudyData


def data(*infos: dict, curve_opponent: str = "greedy", seats: int = 2) -> SimpleNamespace:
    records = {("c", k): SimpleNamespace(info=info) for k, info in enumerate(infos)}
    plan = SimpleNamespace(study=SimpleNamespace(curve_opponent=curve_opponent))
    return SimpleNamespace(records=records, plan=plan, game=SimpleNamespace(n_seats=seats))


def against(study: SimpleNamespace) -> str:
    return StudyData.evolution_curve_opponent(study)  # type: ignore[arg-type]


def test_a_run_that_names_its_curve_opponent_is_read_as_measured():
    evolved = {"generations": 3, "best_fitness": 0.5, "curve_opponent": "greedy"}
    learner = {"trained_against": ["greedy"]}  # no generations: not an evolution record
    study = data(evolved, learner)
    assert against(study) == "greedy"
    study.evolution_curve_opponent = lambda: against(study)
    assert _evolved_against(study) == ""  # the same player: nothing to say


def test_an_older_store_whose_evolution_names_none_measured_against_random():
    study = data({"generations": 3, "best_fitness": 0.5}, {"trained_against": []})
    assert against(study) == "random"
    study.evolution_curve_opponent = lambda: against(study)
    assert _evolved_against(study) == " (evolved families: against random)"


def test_without_evolved_families_the_curves_are_all_the_study_curve_opponents():
    assert against(data({"trained_against": []}, curve_opponent="prize-rank")) == "prize-rank"


def test_a_one_player_games_evolution_is_measured_alone_never_against_random():
    """421's automata are scored alone: no store of a one-player game says 'against random'."""
    assert against(data({"generations": 3, "best_fitness": 0.5}, curve_opponent="optimum", seats=1)) == "optimum"
