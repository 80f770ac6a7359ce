"""A learner added from outside the library: one module (tests/learner_plugin.py) and one
registry line, trained on every game by the one compiled loop (fsmarena/rl/sequential.py)."""

from __future__ import annotations

import dataclasses
import importlib

import numpy as np
import pytest

from fsmarena.games import get_game
from fsmarena.games.registry import entries, resolve
from fsmarena.rl import registry
from fsmarena.rl.train import TrainConfig, train

PLUGIN = dataclasses.replace(
    registry.learner("q-learning"),
    name="plugin-q-learning",
    target="fsmarena.rl.learners:SequentialLearner",
    options={},
    summary="Q-learning from the test folder",
    update="learner_plugin:plugin_q_learning",
)


def _games():
    found = []
    for e in entries():
        if e.kernel:
            module = importlib.import_module(e.kernel)
            config = module.test_configs()[0] if hasattr(module, "test_configs") else None
            found.append(pytest.param(resolve(e.game, "game")(config), id=e.name))
    return found


def _trains_like_q_learning(game, monkeypatch):
    monkeypatch.setattr(registry, "LEARNERS", registry.LEARNERS + (PLUGIN,))
    settings = dict(episodes=300, eval_every=300, eval_games=20, epsilon=0.3, alpha=0.1)
    plugin = train(game, TrainConfig(algo="plugin-q-learning", **settings), seed=5)
    library = train(game, TrainConfig(algo="q-learning", **settings), seed=5)
    assert plugin.counts.sum() >= 300
    assert np.array_equal(plugin.counts, library.counts) and np.array_equal(plugin.q, library.q)
    assert plugin.config.algo == "plugin-q-learning"


def test_a_learner_from_the_test_folder_is_one_module_and_one_registry_line(monkeypatch):
    """On divide-the-dollar: the same tables as the library's Q-learning, bit for bit; it has no
    batched algorithm, so a batch is refused by name."""
    _trains_like_q_learning(get_game("dtd"), monkeypatch)
    with pytest.raises(Exception, match="plugin-q-learning is written as a compiled update only"):
        TrainConfig(algo="plugin-q-learning", episodes=100, batch=10).resolved(get_game("dtd"))


@pytest.mark.slow
@pytest.mark.parametrize("game", _games())
def test_the_learner_from_the_test_folder_trains_on_every_game(game, monkeypatch):
    _trains_like_q_learning(game, monkeypatch)
