"""Training counted in games: a Stable-Baselines3 callback that stops after exactly the budget.

Stable-Baselines3 counts steps; a study counts games.  After every environment step the callback
counts the episodes that ended (one environment: at most one per step), calls ``on_point`` at
every ``every``-th game and at the last one (the learning curve's points), and stops training
when the budget's last game has ended: the algorithms check the callback after each step, so
no step of a further game is taken.  PPO's last, partial rollout is then not learned from, and
DQN stops before its next update: the final network is the one that played the last game.
Games that an illegal action ended are counted too, and so are the illegal actions taken
(:mod:`fsmarena.deep.environment`).
"""

from __future__ import annotations

from typing import Callable

import numpy as np
from stable_baselines3.common.callbacks import BaseCallback


class GameBudget(BaseCallback):
    """Stop after ``games`` training games, calling ``on_point(games_so_far)`` every ``every``
    games and at the end."""

    def __init__(self, games: int, every: int, on_point: Callable[[int], None]):
        super().__init__()
        self.budget, self.every, self.on_point = games, every, on_point
        self.games = 0
        self.illegal = 0

    def _on_step(self) -> bool:
        dones = np.asarray(self.locals["dones"])
        infos = self.locals.get("infos", [{}] * len(dones))
        for done, info in zip(dones, infos):
            self.illegal += int("illegal_action" in info)
            if done and self.games < self.budget:
                self.games += 1
                if self.games % self.every == 0 or self.games == self.budget:
                    self.on_point(self.games)
        return self.games < self.budget
