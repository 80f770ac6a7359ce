"""Direct policy search (fsmarena/rl/policy_search.py, fsmarena search): optimum on a brute-forced tiny
divide-the-dollar, honest confirmation, monotone on the common games, seeded, bad input."""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.players import TablePolicy, load_player, resolve_player
from fsmarena.rl.policy_search import _per_game_wins, _Recorder, check_searchable, common_win_rate, search_policy
from tests.cli_helpers import run_cli

TINY = {"cards": "0.25,0.75", "counts": "2,1", "hand_size": "1"}


def _tiny():
    game = get_game("dtd", TINY)
    return game, resolve_player("random", game)


def _reachable(game, opponent) -> list[int]:
    """States any of a few random tables reaches (the tiny game's states that matter)."""
    seen: set[int] = set()
    for t in range(8):
        recorder = _Recorder(np.random.default_rng(t).integers(0, game.n_actions, game.n_states), game.n_actions)
        _per_game_wins(game, recorder, opponent, 2_000, t)
        seen |= set(np.flatnonzero(recorder.visits).tolist())
    return sorted(seen)


def test_search_finds_the_brute_force_optimum_of_a_tiny_game():
    game, opponent = _tiny()
    states = _reachable(game, opponent)
    assert 0 < len(states) <= 6
    games, seed = 4_000, 12345
    best = -1.0
    for actions in itertools.product(range(game.n_actions), repeat=len(states)):
        table = np.zeros(game.n_states, dtype=np.int64)
        table[states] = actions
        best = max(best, common_win_rate(game, table, opponent, games, seed))
    found = search_policy(game, opponent, budget=200_000, seed=1, games_per_eval=4_000)
    value = common_win_rate(game, found.table, opponent, games, seed)
    # paired games: the gap to the optimum must be within sampling noise of 4,000 games
    assert value >= best - 2.5 * np.sqrt(best * (1 - best) / games)
    assert found.win_ci95[0] - 0.03 <= best <= found.win_ci95[1] + 0.03


def test_reported_rate_matches_an_independent_play_on_other_seeds(tmp_path, capsys):
    out = tmp_path / "s"
    code, _, err = run_cli(capsys, "search", "dtd", "--opponent", "random", "--budget", 100_000, "--out", out)
    assert code == 0, err
    summary = json.loads((out / "search.json").read_text())
    code, text, err = run_cli(
        capsys, "play", "dtd", out / "policy.json", "random", "--games", 20_000, "--seed", 77, "--json"
    )
    assert code == 0, err
    played = json.loads(text)
    low, high = summary["win_ci95"]
    # two independent estimates of one rate: their 95% intervals overlap
    assert played["win_ci95"][0] <= high and low <= played["win_ci95"][1]
    assert load_player(out / "policy.json", get_game("dtd", {})).kind == "table-policy"


def test_never_worse_than_its_start_on_the_common_games():
    game = get_game("dtd", {})
    opponent = resolve_player("always-large", game)
    for seed in range(3):
        start = np.random.default_rng(seed).integers(0, game.n_actions, game.n_states)
        found = search_policy(game, opponent, budget=60_000, seed=seed, start=start, games_per_eval=3_000)
        assert found.final_rate >= found.start_rate
        assert found.games_used <= 60_000


def test_same_seed_same_result():
    game, opponent = _tiny()
    one = search_policy(game, opponent, budget=50_000, seed=4)
    two = search_policy(game, opponent, budget=50_000, seed=4)
    assert np.array_equal(one.table, two.table)
    assert one.summary() == two.summary()


def test_start_table_is_used_and_checked():
    game = get_game("dtd", {})
    opponent = resolve_player("random", game)
    start = np.full(game.n_states, 2)
    found = search_policy(game, opponent, budget=1_000, seed=0, start=start, games_per_eval=1_000)
    assert np.array_equal(found.table, start)  # no budget left for a candidate
    with pytest.raises(FsmarenaError):
        search_policy(game, opponent, budget=1_000, seed=0, start=np.full(game.n_states, 9))


def test_bad_input_is_one_line_and_writes_nothing(tmp_path, capsys):
    out = tmp_path / "never"
    for argv in (
        ("search", "nogame", "--opponent", "random", "--out", out),
        ("search", "dtd", "--opponent", "nobody", "--out", out),
        ("search", "dtd", "--opponent", "random", "--budget", 0, "--out", out),
        ("search", "421", "--opponent", "random", "--out", out),
    ):
        code, _, err = run_cli(capsys, *argv)
        assert code == 2
        assert len(err.strip().splitlines()) == 1
    assert not out.exists()
    with pytest.raises(FsmarenaError):
        search_policy(get_game("dtd", {}), resolve_player("random", get_game("dtd", {})), budget=0, seed=0)


def test_a_game_without_a_tabular_index_is_refused():
    class NoIndex:
        name = "none"
        n_states = None
        n_seats = 2

    with pytest.raises(FsmarenaError, match="no tabular observation index"):
        check_searchable(NoIndex())  # type: ignore[arg-type]


def test_search_improves_on_a_random_start_against_random():
    game = get_game("dtd", {})
    opponent = resolve_player("random", game)
    found = search_policy(game, opponent, budget=100_000, seed=2)
    assert found.final_rate > found.start_rate
    assert isinstance(TablePolicy(found.table).to_dict()["actions"], list)


def test_study_reference_line_is_computed_once_and_not_worse_than_table_champions(tmp_path, monkeypatch):
    import fsmarena.studies.reference_line as reference_line
    from fsmarena.studies.catalogue import get_study
    from fsmarena.studies.runner import run_study

    plan = get_study("dtd-thesis").plan("test")
    data = run_study(plan, tmp_path / "study", 1, lambda message: None)
    text = reference_line.reference_section(data)
    lines = reference_line.ensure_lines(data)
    assert [line["opponent"] for line in lines] == list(plan.study.best_known["opponents"])
    assert "Best known table policy" in text and "Q-learning" in text
    for line in lines:  # started from the best table champion: never below it on the common games
        assert line["final_win_common"] >= line["start_win_common"]

    def fail(*args, **kwargs):
        raise AssertionError("a stored reference line was searched again")

    monkeypatch.setattr(reference_line, "_search", fail)
    assert reference_line.reference_section(data) == text  # a resumed study only re-renders
