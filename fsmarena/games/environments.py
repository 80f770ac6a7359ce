"""PettingZoo and Gymnasium environments for every registered game (extra ``[envs]``).

Three environments, each stepping the game's compiled single-game kernel
(:class:`fsmarena.games.stepper.KernelStepper`: no thread, no batched driver), so every registered
game has them:

* :class:`AECGameEnv` (``aec_env("dtd")``): PettingZoo's agent-environment-cycle API, one
  agent ``player_<seat>`` per seat, as PettingZoo's classic games are;
* :class:`ParallelGameEnv` (``parallel_env("vautour")``): PettingZoo's parallel API, for
  games whose seats move simultaneously (:class:`fsmarena.games.capabilities.SimultaneousMoves`);
* :class:`GymGameEnv` (``gym_env("dtd", opponents=["random", "best.json"])``, or
  ``gymnasium.make("fsmarena/DivideTheDollar-v0")`` after ``import fsmarena``): one seat
  against opponents given as fsmarena player specs (builtin names, player JSON files, player
  objects); a list is a pool drawn from for every opponent seat of every episode.

Observations follow PettingZoo's classic convention: ``{"observation": ..., "action_mask":
int8 mask}``, where the observation is a dict of the game's ``features`` (``Box`` in [0, 1],
float64) and its small-integer encodings (``Discrete`` each).  The tabular state ``index`` is
in ``info["index"]``; ``index_in_observation=True`` adds it to the observation as a
``Discrete`` (up to half a million values, which ``FlattenObservation`` would one-hot encode).
The Gymnasium environment flattens the same parts into one dict (the parts and
``action_mask``); the mask is also in ``info["action_mask"]`` and ``action_masks()``.
Rewards are the game's: 0 until the end, then the game's reward (+1 sole winner, 0 shared
first place, -1 otherwise; the score in a one-player game); ``info["scores"]`` holds the final
scores.

Illegal actions (``illegal_action``): an action in the action space but outside the legal mask
ends the episode by default (``"lose"``, as PettingZoo's classic games do): the mover gets
:data:`ILLEGAL_REWARD`, every other seat 0, and ``info["illegal_move"]`` says what was illegal
(``info["illegal_action"]``: the action).  ``"raise"`` raises :class:`IllegalAction` instead,
and ``"first-legal"`` plays the first legal action and reports it the same way.  An action
outside the action space (not a whole number, ``True``, out of range) is an
:class:`IllegalAction` under every policy, and so is an opponent's illegal answer, naming the
opponent.

Seeds: ``reset(seed=s)`` plays the episode of generator ``numpy.random.default_rng(s)``: the
Gymnasium opponents draw from a generator seeded with its first draw (``integers(2**63)``),
then the kernel deals from it (:class:`fsmarena.games.stepper.KernelDeals`); a later ``reset()``
without a seed plays the next child of ``SeedSequence(s)``.  ``stepper`` (``auto`` or
``kernel``, the same stepper) is kept for old callers.  Rule parameters are keyword
``params`` (values or ``--param``-style strings).  Every environment pickles and
deep-copies, mid-episode included, and the copy continues the same episode (the stepper
pickles its game, :mod:`fsmarena.games.stepper`).

This module is the environments' face (the constructors, the Gymnasium ids, the speed table);
the parts every environment shares are :mod:`fsmarena.games.env_parts`, the PettingZoo environments
:mod:`fsmarena.games.env_pettingzoo` and the Gymnasium one :mod:`fsmarena.games.env_gymnasium`.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

from fsmarena.extras import install_hint

try:  # here, before the environments: one clear line when the extra is missing
    import gymnasium  # noqa: F401
    import pettingzoo  # noqa: F401
except ModuleNotFoundError as _missing:  # pragma: no cover - exercised without the extra
    raise ImportError(
        f"the fsmarena environments need PettingZoo and Gymnasium ({_missing.name} is not installed): "
        + install_hint("envs")
    ) from _missing

from fsmarena.games.env_gymnasium import GymGameEnv as GymGameEnv
from fsmarena.games.env_gymnasium import gym_env
from fsmarena.games.env_pettingzoo import AECGameEnv as AECGameEnv
from fsmarena.games.env_pettingzoo import ParallelGameEnv as ParallelGameEnv
from fsmarena.games.env_pettingzoo import aec_env
from fsmarena.games.env_pettingzoo import parallel_env as parallel_env
from fsmarena.games.gym_ids import env_id, register_envs  # noqa: F401 - env_id: part of this module's API
from fsmarena.games.registry import entries
from fsmarena.games.stepper import IllegalAction as IllegalAction  # part of this module's API

# ---- speed ---------------------------------------------------------------------------------


def steps_per_second(game: str, api: str = "aec", episodes: int = 100, seed: int = 0) -> float:
    """Decisions per CPU second of this process through the ``api`` (``aec`` or ``gym``
    against ``random``) environment of ``game``, random legal actions, ``episodes`` episodes
    after one warm-up episode: a measurement for the docs (``python -m games.environments``),
    not a test.  CPU time, not the wall clock: on a shared machine the wall clock also counts
    the time spent waiting for a core."""
    env: Any = aec_env(game) if api == "aec" else gym_env(game)
    pick = np.random.default_rng(seed)
    steps, started = 0, 0.0
    for episode in range(episodes + 1):
        if episode == 1:
            steps, started = 0, time.process_time()
        steps += _random_episode(env, api, pick, seed + episode)
    env.close()
    return steps / (time.process_time() - started)


def _random_episode(env: Any, api: str, pick: np.random.Generator, seed: int) -> int:
    """One episode of random legal actions; returns the number of actions taken."""
    steps = 0
    if api == "aec":
        env.reset(seed=seed)
        for _ in env.agent_iter():
            obs, _, done, truncated, _ = env.last()
            env.step(None if done or truncated else int(pick.choice(np.flatnonzero(obs["action_mask"]))))
            steps += not done
        return steps
    obs, _ = env.reset(seed=seed)
    done = False
    while not done:
        obs, _, done, _, _ = env.step(int(pick.choice(np.flatnonzero(obs["action_mask"]))))
        steps += 1
    return steps


register_envs()

if __name__ == "__main__":  # pragma: no cover - prints the speed table of docs/environments.md
    print(f"{'game':10} {'api':4} {'kernel':>9}  (decisions per CPU second)")
    for item in entries():
        for api in ("aec", "gym"):
            print(f"{item.name:10} {api:4} {steps_per_second(item.name, api):9.0f}")
