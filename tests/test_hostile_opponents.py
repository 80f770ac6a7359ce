"""Environment opponents given as objects are checked as player files are
(``fsmarena.games.env_parts.check_opponent``), and the environments' switches are booleans.

The Gymnasium Stupide Vautour environment with a divide-the-dollar ``TablePolicy`` as its
opponent ended in ``IndexError: index 32766 is out of bounds for axis 1 with size 40`` in the
middle of an episode; ``index_in_observation='yes'`` switched the option on."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")
pytest.importorskip("pettingzoo")

from fsmarena.errors import FsmarenaError  # noqa: E402
from fsmarena.games import get_game  # noqa: E402
from fsmarena.games.environments import aec_env, gym_env, parallel_env  # noqa: E402
from fsmarena.games.players import FixedActionPlayer, Mixture, RandomPlayer, TablePolicy  # noqa: E402


def _table(game: str) -> TablePolicy:
    return TablePolicy(np.zeros(get_game(game).n_states, dtype=np.int64), label=f"{game}-table")


@pytest.mark.parametrize(
    "env_game, opponent_game",
    [("vautour", "dtd"), ("dtd", "thirtyone"), ("thirtyone", "goofspiel"), ("goofspiel", "dtd")],
)
def test_a_table_policy_of_another_game_is_one_error_naming_it_and_its_game(env_game, opponent_game):
    with pytest.raises(FsmarenaError) as refused:
        gym_env(env_game, opponents=[_table(opponent_game)])
    message = str(refused.value)
    assert f"{env_game} opponent 0 ('{opponent_game}-table', a table-policy player)" in message
    assert f"it is a player of {opponent_game}" in message and "\n" not in message


def test_a_builtin_of_another_game_is_refused_too():
    always_large = get_game("dtd").builtin_players()["always-large"]()
    with pytest.raises(FsmarenaError, match=r"vautour has no builtin 'always-large'.*it is a player of dtd"):
        gym_env("vautour", opponents=[always_large])
    fixed = FixedActionPlayer(2, "large_max")  # a fixed action named after a dtd action
    with pytest.raises(FsmarenaError, match="unknown action 'large_max' for vautour"):
        gym_env("vautour", opponents=fixed)


@pytest.mark.parametrize(
    "opponent, words",
    [
        (5, "give a builtin name, a player file or a Player, not int"),
        ({"kind": "random"}, "not dict"),
        (TablePolicy(np.zeros((2, 40), dtype=np.int64)), "is a stack of 2 players"),
        (Mixture([RandomPlayer(), TablePolicy(np.zeros(40, dtype=np.int64))]), "it is a player of dtd"),
    ],
    ids=["number", "dict", "stack", "mixture-member"],
)
def test_no_opponent_garbage_reaches_an_episode(opponent, words):
    with pytest.raises(FsmarenaError, match=words):
        gym_env("thirtyone" if words.startswith("it is") else "dtd", opponents=[opponent])


def test_the_right_opponents_still_play():
    """The control: a table of the environment's own game, a mixture and a builtin play."""
    env = gym_env("dtd", opponents=[_table("dtd"), Mixture([RandomPlayer()]), "always-small"])
    observation, _ = env.reset(seed=0)
    done = False
    while not done:
        _, _, done, _, _ = env.step(int(np.flatnonzero(observation["action_mask"])[0]))
    env.close()


@pytest.mark.parametrize("make", [aec_env, parallel_env, gym_env], ids=["aec", "parallel", "gym"])
@pytest.mark.parametrize("value", ["yes", "false", 1, None])
def test_index_in_observation_takes_booleans_only(make, value):
    game = "vautour" if make is parallel_env else "goofspiel"
    with pytest.raises(FsmarenaError, match=f"index_in_observation must be True or False, got {value!r}"):
        make(game, index_in_observation=value)


def test_a_numpy_boolean_is_a_boolean():
    env = aec_env("dtd", index_in_observation=np.True_)
    assert env.index_in_observation is True
