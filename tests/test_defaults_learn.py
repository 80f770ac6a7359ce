"""Default settings learn every game, or the command says they do not (slow, one test per game).

For every game, ``fsmarena train`` with one learner's default settings at the budget its rules
page measures it at, and ``fsmarena evolve`` with one genome and protocol at their default
generations, both run through the command line with seed 1.  Each final player must be either
clearly better than ``random`` with the command silent, or the command must warn in one line.
*Clearly better*: the low end of the player's 95% interval lies above what ``random`` scores in
its place on the same deals (its win rate; its mean score in one-player 421), the measure of
:mod:`fsmarena.rl.learning_check` and :mod:`fsmarena.games.baseline_check`, recomputed here from
the run's curve and from the ``best.json`` it wrote.

The commands are rows of the section "What the defaults reach" of each game's rules page, and
where a row says that no seed warned ("no"), the defaults must learn: the test fails if the
command warns.  The page holds the numbers; the test holds none.
"""

from __future__ import annotations

import json
import math
import shlex

import numpy as np
import pytest
from cli_helpers import run_cli

from fsmarena.games import get_game
from fsmarena.games.baseline_check import CHECK_GAMES, CHECK_KEY
from fsmarena.games.match import MatchStats, play_match
from fsmarena.games.players import RandomPlayer, load_player
from fsmarena.games.registry import game_folder
from fsmarena.games.stats import Z95, wilson_interval
from fsmarena.rl.evaluation import streams

SEED = 1
SECTION = "## What the defaults reach"

#: per game, the default ``train`` (the learner its docs show, at the budget its rules page
#: documents: ``--episodes`` has no default) and the default ``evolve`` (all at their defaults)
COMMANDS = {
    "dtd": (
        "fsmarena train dtd --algo q-learning --episodes 2000000",
        "fsmarena evolve dtd --genome bda --protocol thesis",
    ),
    "421": (
        "fsmarena train 421 --algo q-learning --episodes 200000",
        "fsmarena evolve 421 --genome fsm --protocol score",
    ),
    "thirtyone": (
        "fsmarena train thirtyone --algo mc --episodes 1000000",
        "fsmarena evolve thirtyone --genome fsm --protocol round-robin",
    ),
    "vautour": (
        "fsmarena train vautour --algo q-learning --episodes 100000",
        "fsmarena evolve vautour --genome fsm --protocol round-robin",
    ),
    "goofspiel": (
        "fsmarena train goofspiel --algo q-learning --episodes 100000",
        "fsmarena evolve goofspiel --genome fsm --protocol round-robin",
    ),
    "ipd": (
        "fsmarena train ipd --algo q-learning --episodes 50000",
        "fsmarena evolve ipd --genome fsm --protocol round-robin",
    ),
}


def page_says_it_learns(game_name: str, command: str) -> bool:
    """Whether the rules page's row for ``command`` says that no seed warned (its "warned" cell
    is "no"); a row that is missing, or there twice, fails the test."""
    page = (game_folder(game_name) / "rules.md").read_text(encoding="utf-8")
    assert SECTION in page, f"{game_name}: the rules page has no section '{SECTION}'"
    section = page.split(SECTION, 1)[1].split("\n## ", 1)[0]
    lines = section.splitlines()
    header = next(line for line in lines if line.startswith("| command |"))
    warned = [cell.strip() for cell in header.strip().strip("|").split("|")].index("warned")
    rows = [line for line in lines if line.startswith(f"| `{command}` |")]
    assert len(rows) == 1, f"{game_name}: the rules page needs one row for `{command}`"
    return [cell.strip() for cell in rows[0].strip().strip("|").split("|")][warned] == "no"


def mean_interval_low(stats: MatchStats) -> float:
    """The low end of a match's mean score's normal 95% interval."""
    n = stats.games
    mean = stats.score / n
    variance = max(0.0, stats.score_sq / n - mean * mean) * n / (n - 1)
    return mean - Z95 * math.sqrt(variance / n)


def policy_is_clearly_better(game, summary: dict) -> bool:
    """The run's last curve point against ``random`` (alone: the mean score) against ``random``
    in the learner's place on the curve's own deals (the evaluation stream, one match per row)."""
    one_seat = game.n_seats == 1
    wanted = "" if one_seat else "random"
    ((number, row),) = [(i, r) for i, r in enumerate(summary["final"]) if r["opponent"] == wanted]
    rival = None if one_seat else RandomPlayer()
    base = play_match(game, RandomPlayer(), rival, int(row["eval_games"]), streams(SEED)[1] + number)
    if one_seat:
        return float(row["score_ci_low"]) > base.score / base.games
    return float(row["win_ci_low"]) > base.wins / base.games


def player_is_clearly_better(game, player) -> bool:
    """The player and ``random`` in its place on the same 2,000 deals (the check's stream)."""
    deals = np.random.SeedSequence(SEED, spawn_key=(CHECK_KEY,))
    rival = None if game.n_seats == 1 else RandomPlayer()
    mine = play_match(game, player, rival, CHECK_GAMES, deals)
    base = play_match(game, RandomPlayer(), rival, CHECK_GAMES, deals)
    if game.n_seats == 1:
        return mean_interval_low(mine) > base.score / base.games
    return wilson_interval(mine.wins, mine.games)[0] > base.win_rate


def run(capsys, command: str, out) -> tuple[dict, list[str]]:
    """``command`` with seed 1 (one process, no progress bars): its JSON summary and its warning lines."""
    argv = shlex.split(command)[1:]
    code, text, err = run_cli(capsys, *argv, "--seed", SEED, "--jobs", 1, "--quiet", "--json", "--out", out)
    assert code == 0, err
    warnings = [line for line in err.splitlines() if line.startswith(f"fsmarena {argv[0]}: warning: ")]
    return json.loads(text), warnings


@pytest.mark.slow
@pytest.mark.parametrize("game_name", list(COMMANDS))
def test_the_defaults_beat_random_clearly_or_the_command_warns(capsys, tmp_path, game_name):
    game = get_game(game_name)
    train, evolve = COMMANDS[game_name]

    summary, warnings = run(capsys, train, tmp_path / "train")
    clear = policy_is_clearly_better(game, summary)
    assert len(warnings) == (0 if clear else 1), (train, clear, warnings)
    if page_says_it_learns(game_name, train):
        assert clear, f"`{train}` no longer learns {game_name}: {warnings}"

    summary, warnings = run(capsys, evolve, tmp_path / "evolve")
    clear = player_is_clearly_better(game, load_player(tmp_path / "evolve" / "best.json", game))
    assert len(warnings) == (0 if clear else 1), (evolve, clear, warnings)
    assert (summary["warning"] is None) == clear
    if page_says_it_learns(game_name, evolve):
        assert clear, f"`{evolve}` no longer learns {game_name}: {warnings}"
