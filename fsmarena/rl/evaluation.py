"""Measuring a policy during training: the run's two random streams, the game's exact model
and value when it has one, and the learning-curve matches against a panel.

Evaluations use a fixed seed of their own (common random numbers: two points of a curve
differ only because the policy did), so ``jobs`` never changes a number.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games.base import Game
from fsmarena.games.capabilities import ExactModel
from fsmarena.games.match import play_match
from fsmarena.games.mdp import TabularMDP, expected_return
from fsmarena.games.players import Player, TablePolicy, player_to_json
from fsmarena.games.stats import mean_interval, wilson_interval
from fsmarena.parallel import seed_sequence


def streams(seed: int) -> tuple[np.random.Generator, int]:
    """The generator of every training game of a run, and the integer seed of its evaluations."""
    train_seed, eval_seed = seed_sequence(seed).spawn(2)
    return np.random.default_rng(train_seed), int(eval_seed.generate_state(1)[0])


def game_model(game: Game) -> TabularMDP | None:
    """``game.model()`` when the game has a known model, else None."""
    model = game.model if isinstance(game, ExactModel) else None
    return model() if callable(model) else None


def table_on_model(mdp: TabularMDP, table: np.ndarray) -> np.ndarray:
    """A policy table over the game's states as a policy over the model's states: entries the
    model calls illegal play the first legal action (what TablePolicy does), extra model
    states (terminal ones) their first legal action."""
    full = np.argmax(mdp.legal, axis=1)
    n = min(len(table), mdp.n_states)
    ok = mdp.legal[np.arange(n), table[:n]]
    full[:n] = np.where(ok, table[:n], full[:n])
    return full


def exact_value(mdp: TabularMDP | None, table: np.ndarray, game: Game | None = None) -> float | None:
    """The exact expected return of a policy table: the game's own evaluator when it has one
    (``game.exact_player_values``, e.g. 421's backward induction: no linear algebra, so learning
    curves stay cheap), else a linear solve on the model, else None (no model)."""
    evaluator = game.exact_player_values if isinstance(game, ExactModel) else None
    if callable(evaluator):
        return float(evaluator(TablePolicy(table))[0])
    if mdp is None:
        return None
    return expected_return(mdp, table_on_model(mdp, table))


def evaluate(
    game: Game,
    policy: Player,
    panel: Sequence[Player],
    games: int,
    seed: int,
    jobs: int = 1,
    mdp: TabularMDP | None = None,
    table: np.ndarray | None = None,
) -> list[dict[str, Any]]:
    """Curve rows for ``policy``: one match per panel member (seats swapped), or one solo
    measurement in a one-player game; the same ``seed`` gives the same deals every time."""
    exact = exact_value(mdp, table, game) if table is not None else None
    rows = []
    opponents: Sequence[Player | None] = panel if game.n_seats > 1 else [None]
    for number, opponent in enumerate(opponents):
        stats = play_match(game, policy, opponent, games, seed + number, jobs=jobs)
        n = stats.games
        score_low, score_high = mean_interval(stats.score, stats.score_sq, n)
        row = {
            "opponent": "" if opponent is None else opponent.label,
            "eval_games": n,
            "mean_score": stats.score / n,
            "score_ci_low": score_low,
            "score_ci_high": score_high,
            "exact_value": exact,
        }
        if opponent is None:
            row.update(win="", draw="", loss="", win_ci_low="", win_ci_high="", mean_reward=stats.score / n)
        else:
            low, high = wilson_interval(stats.wins, n)
            row.update(
                win=stats.wins / n,
                draw=stats.draws / n,
                loss=stats.losses / n,
                win_ci_low=low,
                win_ci_high=high,
                mean_reward=(stats.wins - stats.losses) / n,
            )
        rows.append(row)
    return rows


def describe_player(player: Player | None, game: Game) -> Any:
    """A JSON description of a player (its file content when it has one), for checkpoints."""
    if player is None:
        return None
    try:
        return player_to_json(player, game)
    except FsmarenaError:
        return {"kind": player.kind, "label": player.label}
