"""The iterated prisoner's dilemma held to Axelrod's library (Axelrod-Python 4.13, the optional
extra ``axelrod``): an external oracle no one here wrote.

* deterministic pairs (the classics and the published machines) play exactly the moves and
  scores of ``axelrod.Match`` over 200 turns (every pair in the slow suite, a panel by default);
* stochastic players and noisy or randomly ending matches agree with Axelrod's in their mean
  score per turn, within 4.5 standard errors of the difference (replicate: one match);
* a table FSM exported to Axelrod plays the same moves in both libraries (random machines, the
  file ``fsmarena export --to axelrod`` writes), and Axelrod's machines come back as the same
  tables;
* fsmarena's fingerprint with Ashlock's probes equals ``axelrod.AshlockFingerprint`` on a grid,
  point by point within sampling error (slow).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run_cli

from fsmarena.evo.fingerprint import fingerprint
from fsmarena.evo.table_fsm import FSMSpec
from fsmarena.games import get_game
from fsmarena.games.arena import Seat, play_games
from fsmarena.games.builtin_player import BuiltinPlayer
from fsmarena.games.ipd import bridge
from fsmarena.games.ipd.machines import MACHINES
from fsmarena.games.ipd.probes import AshlockProbes
from fsmarena.games.players import GroupedStack, save_player

axl = pytest.importorskip("axelrod", minversion="4.13")

GAME = get_game("ipd")
STOCHASTIC = ("random", "generous-tit-for-tat")
DETERMINISTIC = sorted(name for name in GAME.builtin_players() if name not in STOCHASTIC)
PANEL = ("tit-for-tat", "evolved-fsm-16", "alternator", "suspicious-tit-for-tat")


def fsmarena_moves(game, pairs, players=None):
    """Each pair ``(a, b)`` of builtin names (or of ``players``) as one game of one batch, with
    every decision traced: the moves ``[game, seat, turn]`` (no noise: the moves chosen are the
    moves played) and the outcome."""
    players = players or {name: factory() for name, factory in game.builtin_players().items()}
    names = sorted({name for pair in pairs for name in pair})
    stack = GroupedStack([players[name] for name in names])
    members = [np.array([names.index(pair[seat]) for pair in pairs]) for seat in (0, 1)]
    moves = np.zeros((len(pairs), 2, game.config.turns), dtype=np.int64)
    turn = [0, 0]

    def trace(seat, rows, obs, actions):
        moves[rows, seat, turn[seat]] = actions
        turn[seat] += 1

    seats = [Seat(stack, members[0]), Seat(stack, members[1])]
    outcome = play_games(game, seats, len(pairs), np.random.default_rng(0), trace=trace)
    return moves, outcome


def axelrod_moves(first, second, turns=200, **options):
    """An ``axelrod.Match``: its moves ``[seat, turn]`` (0 C, 1 D) and score per turn."""
    match = axl.Match((first, second), turns=turns, **options)
    played = match.play()
    moves = np.array([[int(str(a) == "D"), int(str(b) == "D")] for a, b in played]).T
    return moves, np.array(match.final_score_per_turn())


def _agree_exactly(pairs):
    moves, outcome = fsmarena_moves(GAME, pairs)
    for g, (a, b) in enumerate(pairs):
        expected, scores = axelrod_moves(bridge.axelrod_player(a), bridge.axelrod_player(b))
        assert np.array_equal(moves[g], expected), (a, b)
        assert np.allclose(outcome.scores[g], scores, rtol=0, atol=1e-12), (a, b)


def test_deterministic_players_against_a_panel_play_as_in_axelrod():
    _agree_exactly([(a, b) for a in DETERMINISTIC for b in PANEL])


@pytest.mark.slow
def test_every_deterministic_pair_plays_as_in_axelrod():
    _agree_exactly([(a, b) for a in DETERMINISTIC for b in DETERMINISTIC])


def _means_agree(game, players, axelrod_pair, turns=None, **options):
    """Our mean score per turn (seat 0) over 2,000 matches of ``players`` against Axelrod's over
    150 seeded matches of ``axelrod_pair()`` (``turns`` None: unbounded, for ``prob_end``): within
    4.5 standard errors of the difference."""
    mine = play_games(game, players, 2000, np.random.default_rng(11)).scores[:, 0]
    other = []
    for seed in range(150):
        match = axl.Match(axelrod_pair(), turns=turns, seed=seed, game=bridge.axelrod_game(game.config), **options)
        match.play()
        other.append(match.final_score_per_turn()[0])
    error = np.sqrt(mine.var(ddof=1) / len(mine) + np.var(other, ddof=1) / len(other))
    assert abs(mine.mean() - np.mean(other)) <= 4.5 * error, (mine.mean(), np.mean(other), error)


@pytest.mark.parametrize(
    ("ours", "theirs"),
    [
        (("random", {"p": 0.3}), "tit-for-tat"),
        (("generous-tit-for-tat", {}), "defector"),
        (("generous-tit-for-tat", {"generosity": 0.6}), "alternator"),
    ],
)
def test_stochastic_players_agree_in_distribution(ours, theirs):
    game = get_game("ipd", {"turns": "50"})
    name, args = ours
    players = [BuiltinPlayer(name, args), game.builtin_players()[theirs]()]
    _means_agree(game, players, lambda: (bridge.axelrod_player(name, args), bridge.axelrod_player(theirs)), turns=50)


@pytest.mark.parametrize(
    ("a", "b", "params"),
    [
        ("tit-for-tat", "win-stay-lose-shift", {"noise": "0.05"}),
        ("evolved-fsm-16-noise-05", "tit-for-tat", {"noise": "0.05"}),
        ("grudger", "tf2", {"prob_end": "0.05", "turns": "400"}),
    ],
)
def test_noisy_and_randomly_ending_matches_agree_in_distribution(a, b, params):
    """Noise flips both players' moves, and ``prob_end`` draws the length, as Axelrod's do
    (Axelrod's length is unbounded; 400 turns are passed with probability 1e-9)."""
    game = get_game("ipd", {"turns": "60", **params})
    players = [game.builtin_players()[a](), game.builtin_players()[b]()]
    pair = lambda: (bridge.axelrod_player(a), bridge.axelrod_player(b))  # noqa: E731
    if game.config.noise:
        _means_agree(game, players, pair, turns=60, noise=game.config.noise)
    else:
        _means_agree(game, players, pair, prob_end=game.config.prob_end)


# ---- machines both ways ------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(MACHINES))
def test_axelrods_machines_come_back_as_the_published_tables(name):
    ours = GAME.builtin_players()[name]()
    back = bridge.from_axelrod(getattr(axl, MACHINES[name][0])(), GAME)
    assert np.array_equal(back.next_state, ours.next_state) and np.array_equal(back.action, ours.action)
    again = bridge.to_axelrod(ours)
    assert (
        again.fsm.state_transitions.keys() and again.initial_action == getattr(axl, MACHINES[name][0])().initial_action
    )


def test_random_machines_exported_to_axelrod_play_identically(capsys, tmp_path):
    """Random 1-8 state machines over ``opp_last`` (what ``fsmarena evolve ipd`` evolves) against a
    panel: the exported FSMPlayer plays every move fsmarena's machine plays, and so does the
    machine read back from the file ``fsmarena export --to axelrod`` writes, and from Axelrod."""
    rng = np.random.default_rng(4)
    machines = {}
    for k in range(12):
        spec = FSMSpec(GAME, int(rng.integers(1, 9)), "opp_last")
        machines[f"m{k}"] = spec.player(spec.random(rng, 1), label=f"m{k}")
    players = {**machines, **{name: GAME.builtin_players()[name]() for name in PANEL}}
    pairs = [(m, b) for m in machines for b in PANEL]
    moves, _ = fsmarena_moves(GAME, pairs, players)
    path = tmp_path / "m0.json"
    save_player(machines["m0"], GAME, path)
    code, _, err = run_cli(capsys, "export", path, "--to", "axelrod", "--out", tmp_path / "m0.axelrod.json")
    assert code == 0, err
    from_file = bridge.from_description(json.loads((tmp_path / "m0.axelrod.json").read_text()))
    for g, (m, b) in enumerate(pairs):
        exported = from_file if m == "m0" else bridge.to_axelrod(machines[m])
        expected, _ = axelrod_moves(exported, bridge.axelrod_player(b))
        assert np.array_equal(moves[g], expected), (m, b)
        back = bridge.from_axelrod(exported, GAME)
        again, _ = fsmarena_moves(GAME, [("back", b)], {"back": back, b: players[b]})
        assert np.array_equal(again[0], moves[g]), (m, b)


def test_the_generous_default_follows_the_payoffs_where_axelrods_keeps_the_default_games():
    """Axelrod's GTFT computes its default generosity when it is created, from the default payoffs
    (1/3 in every match); fsmarena's follows the match's payoffs: with T = 6 it is
    min(1 - 3/3, 2/5) = 0, Axelrod's GTFT(p=0) (a tit for tat), while Axelrod's GTFT() still forgives."""
    game = get_game("ipd", {"turns": "50", "temptation": "6"})
    assert game.config.generosity == 0.0
    assert axl.GTFT().p == pytest.approx(1 / 3)
    moves, _ = fsmarena_moves(game, [("generous-tit-for-tat", "alternator")])
    expected, _ = axelrod_moves(axl.GTFT(p=0.0), axl.Alternator(), turns=50, game=bridge.axelrod_game(game.config))
    assert np.array_equal(moves[0], expected)


def test_a_machine_over_other_inputs_is_refused():
    from fsmarena.errors import FsmarenaError

    spec = FSMSpec(GAME, 2, "index")
    with pytest.raises(FsmarenaError, match="exports to Axelrod when it reads 'opp_last'"):
        bridge.to_axelrod(spec.player(spec.random(np.random.default_rng(0), 1)))
    with pytest.raises(FsmarenaError, match="not an Axelrod machine"):
        bridge.from_description({"transitions": [[0, "X", 0, "C"]], "initial_state": 0, "initial_action": "C"})


# ---- Ashlock's fingerprint ----------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize("name", ["evolved-fsm-4", "win-stay-lose-shift"])
def test_ashlock_fingerprint_equals_axelrods_within_sampling_error(name):
    """A 5 x 5 grid, 50 turns: fsmarena's 400 games per point against Axelrod's 20 repetitions,
    each point within 5 standard errors of the difference (exactly equal where Axelrod's
    repetitions do not vary: the deterministic probes, TFT at (0, 0), Cooperator at (1, 0),
    Defector at (0, 1), the Bully at (1, 1))."""
    from axelrod.interaction_utils import compute_final_score_per_turn

    game = get_game("ipd", {"turns": "50"})
    ours = fingerprint(game.builtin_players()[name](), game, grid=5, games=400, seed=3, family=AshlockProbes(game))
    theirs = axl.AshlockFingerprint(bridge.axelrod_player(name), axl.TitForTat)
    theirs.fingerprint(turns=50, repetitions=20, step=0.25, progress_bar=False, seed=7)
    for k, point in enumerate(theirs.points):
        per_match = [compute_final_score_per_turn(match)[0] for match in theirs.interactions[(0, k + 1)]]
        i, j = int(round(point.x * 4)), int(round(point.y * 4))
        spread = np.std(per_match, ddof=1)
        tolerance = max(5 * spread * np.sqrt(1 / 20 + 1 / 400), 1e-9)  # rounding only, where none vary
        assert abs(ours.values[j, i] - np.mean(per_match)) <= tolerance, (point, ours.values[j, i], np.mean(per_match))
    assert ours.measure == "score" and abs(ours.values[0, 0] - theirs.data[axl.fingerprint.Point(0.0, 0.0)]) < 1e-9


@pytest.mark.slow
def test_the_axelrod_tournament_tutorial_runs_as_shown(capsys, tmp_path, monkeypatch):
    """Every command of docs/tutorials/axelrod-tournament.md, then its Python: the champion is
    ranked among the ten players."""
    import re
    import shlex
    from pathlib import Path

    page = (Path(__file__).resolve().parents[1] / "docs" / "tutorials" / "axelrod-tournament.md").read_text()
    commands = [line for line in re.findall(r"```bash\n(.*?)```", page, re.S) for line in line.splitlines()]
    monkeypatch.chdir(tmp_path)
    shown = [line for line in commands if line.startswith("fsmarena ")]
    assert [line.split()[1] for line in shown] == ["evolve", "play", "export"]
    outputs = []
    for line in shown:
        code, out, err = run_cli(capsys, *shlex.split(line)[1:], "--quiet")
        assert code == 0, (line, err)
        outputs.append(out)
    # what the page says of them: a draw at 3.00 a turn against Tit For Tat, then second place
    assert "draw 100.00%" in outputs[1] and "mean score 3.0000 vs 3.0000" in outputs[1]
    assert "every match a\ndraw at 3.00 points a turn each" in page
    (python,) = re.findall(r"```python\n(.*?)```", page, re.S)
    exec(compile(python, "tournament.py", "exec"), {})
    printed = capsys.readouterr().out.splitlines()
    assert len(printed) == 10 and printed[1].startswith("2 FSM Player") and "ranks second" in page
