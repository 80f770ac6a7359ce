"""The objective of tuning one study family: train with a trial's settings, score the player.

A trial's settings replace the family's parameters (the scale's budgets already applied); the
method's own check resolves them (a setting the method does not take is refused before anything
runs) and its own accounting (``<method>_games``, :mod:`fsmarena.studies.budgets`) says what the
trial costs.  The score is the trained player's mean win rate against the opponents (a named
player, by default the study's panel) over ``eval_games`` games each; in a one-player game, its
exact share of the optimum where the game's model is known (421), else its mean score.

Every seed of a tuning comes from ``SeedSequence(study seed, spawn_key=(TUNING_KEY, trial,
purpose))``: a spawn key no replicate, cross-play, league, confirmation or statistics stream of
the study uses, so the settings are never chosen on the games that later judge them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.games import get_game
from fsmarena.games.base import Game
from fsmarena.games.capabilities import ExactModel
from fsmarena.games.match import play_match
from fsmarena.games.players import Player, resolve_player
from fsmarena.methods.base import MethodContext, check_method, get_method, planned_games, win_rate
from fsmarena.studies.protocol import seed_int
from fsmarena.tuning.search import TrialTask

#: the first spawn key of every tuning stream (the study's streams use replicate numbers,
#: 2**32 for cross-play and 2**32 + 16 ... 2**32 + 1000 for its stages and statistics)
TUNING_KEY = 2**32 + 4800
_TRAIN, _SCORE = 0, 1


def tuning_seed(seed: int, trial: int, purpose: int) -> np.random.SeedSequence:
    """The stream of one trial's training (``purpose`` 0) or scoring (1)."""
    return np.random.SeedSequence(seed, spawn_key=(TUNING_KEY, trial, purpose))


@dataclass(frozen=True)
class FamilyObjective:
    """Tune competitor ``label`` (method ``method``, parameters ``params``) of a game."""

    game_name: str
    method: str
    params: Mapping[str, Any]
    label: str
    opponents: tuple[str, ...]
    eval_games: int
    seed: int
    game_params: Mapping[str, str] = field(default_factory=dict)
    curve_opponent: str = "random"

    def game(self) -> Game:
        return get_game(self.game_name, dict(self.game_params))

    def context(self, trial_settings: Mapping[str, Any], seed: int = 0) -> MethodContext:
        params = {**self.params, **trial_settings}
        return MethodContext(self.game(), params, seed, self.label, [], self.curve_opponent)

    def resolved(self, trial_settings: Mapping[str, Any]) -> dict[str, Any]:
        """Every setting the method will use with ``trial_settings`` (one clear error if bad)."""
        return check_method(self.method, self.context(trial_settings))

    def cost(self, trial_settings: Mapping[str, Any]) -> int:
        """The games one trial consumes, by the method's own accounting."""
        return planned_games(self.method, self.resolved(trial_settings), self.game())

    def check(self) -> None:
        """Refuse an objective that cannot run: unknown opponents, no scoring games."""
        if self.eval_games <= 0:
            raise FsmarenaError(f"scoring games must be positive, got {self.eval_games}")
        if not self.opponents and self.game().n_seats > 1:
            raise FsmarenaError("tuning needs at least one opponent to score against")
        for name in self.opponents:
            resolve_player(name, self.game())
        self.resolved({})

    def __call__(self, task: TrialTask) -> tuple[int, float]:
        """Train one trial and score it: (games consumed in training, mean win rate)."""
        ctx = self.context(task.settings, seed_int(tuning_seed(self.seed, task.index, _TRAIN)))
        trained = get_method(self.method)(ctx)
        if ctx.game.n_seats == 1:
            return int(trained.games), self._alone(ctx.game, trained.player, tuning_seed(self.seed, task.index, _SCORE))
        streams = tuning_seed(self.seed, task.index, _SCORE).spawn(len(self.opponents))
        rates = [
            win_rate(ctx.game, trained.player, name, self.eval_games, seed_int(stream))
            for name, stream in zip(self.opponents, streams)
        ]
        return int(trained.games), float(np.mean(rates))

    def _alone(self, game: Game, player: Player, stream: np.random.SeedSequence) -> float:
        """A one-player game's score: the player's exact share of the optimum where the game's
        model is known (421: no sampling noise), else its mean score over ``eval_games`` games."""
        if isinstance(game, ExactModel):
            return float(game.exact_player_values(player)[0]) / float(game.exact_optimum()[0])
        stats = play_match(game, player, None, self.eval_games, stream)
        return stats.score / stats.games
