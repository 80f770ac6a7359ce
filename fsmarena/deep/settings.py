"""The parameters of a deep family, checked and resolved before anything trains.

A competitor of method ``deep`` names its ``algo`` (``ppo``, ``maskable-ppo`` or ``dqn``) and its
budget, ``episodes`` (training games); every other parameter has a default chosen for these
short card and dice games (``gamma = 1``: the only reward is the game's result).  PPO and DQN
take ``illegal_action``, what their training environment does with an illegal action
(``first-legal``, the default, or ``lose``: :mod:`fsmarena.deep.environment`).  Unknown names
are refused, and so is a parameter of the other kind of algorithm (``buffer_size`` given to
PPO), each in one line naming the competitor.  The resolved settings hold every value the
training uses and the versions of the packages that run it.
"""

from __future__ import annotations

from typing import Any

from fsmarena import limits
from fsmarena.deep.extra import installed_versions
from fsmarena.deep.player import ACTIVATIONS
from fsmarena.errors import FsmarenaError
from fsmarena.games.players import resolve_player
from fsmarena.methods.base import MethodContext, Params
from fsmarena.rl.network import check_network_size

ALGOS = ("ppo", "maskable-ppo", "dqn")
#: what the training environment of PPO and DQN does with an illegal action
ILLEGAL_ACTIONS = ("first-legal", "lose")
#: the parameters of the policy-gradient algorithms (PPO, maskable PPO) and their defaults
PPO_DEFAULTS: dict[str, Any] = {
    "learning_rate": 3e-4,
    "n_steps": 512,
    "batch_size": 64,
    "n_epochs": 10,
    "gamma": 1.0,
    "gae_lambda": 0.95,
    "clip_range": 0.2,
    "ent_coef": 0.0,
    "activation": "tanh",
}
#: the parameters of DQN and their defaults (``exploration_fraction``: of the training games)
DQN_DEFAULTS: dict[str, Any] = {
    "learning_rate": 1e-4,
    "buffer_size": 100_000,
    "learning_starts": 1000,
    "batch_size": 64,
    "train_freq": 4,
    "target_update_interval": 1000,
    "gamma": 1.0,
    "exploration_fraction": 0.5,
    "exploration_final_eps": 0.05,
    "activation": "relu",
}
#: the largest replay buffer (transitions): each holds two feature vectors
MAX_BUFFER = 10**6
#: the longest PPO rollout (steps) between two updates
MAX_ROLLOUT = 10**6
#: the largest value of a whole-number parameter, where it is below MAX_COUNT
WHOLE_LIMITS = {"buffer_size": MAX_BUFFER, "n_steps": MAX_ROLLOUT, "batch_size": MAX_BUFFER}
#: the smallest value of a whole-number parameter, where it is not 1
WHOLE_LOWEST = {"learning_starts": 0, "batch_size": 2}


def deep_settings(ctx: MethodContext) -> dict[str, Any]:
    """Every setting a deep family's training will use (FsmarenaError, one line, if any
    parameter is wrong); the extra need not be installed (:func:`train_deep_require`)."""
    versions = installed_versions()
    p = Params(ctx)
    algo = p.get("algo", str)
    if algo not in ALGOS:
        raise p.fail(f"unknown algo '{algo[:40]}' (known: {', '.join(ALGOS)})")
    if not ctx.game.feature_names:
        raise p.fail(f"{ctx.game.name} has no features for a network to read")
    episodes = _whole(p, "episodes", ..., 1, limits.MAX_EPISODES)
    settings: dict[str, Any] = {"algo": algo, "episodes": episodes, "opponent": _opponent(p, ctx)}
    defaults = DQN_DEFAULTS if algo == "dqn" else PPO_DEFAULTS
    for key, default in defaults.items():
        settings[key] = _setting(p, key, default, settings)
    settings["net_arch"] = _net_arch(p, ctx)
    settings["illegal_action"] = _illegal_action(p, algo)
    settings["eval_every"] = _whole(p, "eval_every", max(1, episodes // 10), 1, limits.MAX_EPISODES)
    settings["eval_games"] = _whole(p, "eval_games", 1000, 1, limits.MAX_GAMES)
    _refuse_unused(p, algo)
    return {**settings, "versions": versions}


def _setting(p: Params, key: str, default: Any, settings: dict[str, Any]) -> Any:
    """One algorithm parameter, checked against its range."""
    if key == "activation":
        value = p.get(key, str, default)
        if value not in ACTIVATIONS:
            raise p.fail(f"parameter 'activation' must be one of {', '.join(ACTIVATIONS)}, got '{value[:40]}'")
        return value
    if isinstance(default, float):
        value = _number(p, key, default, 0.0, 1.0)
        if value == 0 and key in ("learning_rate", "clip_range"):
            raise p.fail(f"parameter '{key}' must be above 0")
        return value
    if key == "batch_size" and "n_steps" in settings:  # PPO's minibatches are cut from one rollout
        return _whole(p, key, default, 2, settings["n_steps"], "n_steps")
    return _whole(p, key, default, WHOLE_LOWEST.get(key, 1), WHOLE_LIMITS.get(key, limits.MAX_COUNT))


def _whole(p: Params, key: str, default: Any, low: int, high: int, high_name: str = "") -> int:
    """A whole-number parameter in ``[low, high]``."""
    value = p.get(key, int, default)
    if value < low:
        raise p.fail(f"parameter '{key}' must be at least {low}, got {value}")
    if value > high:
        limit = f"its {high_name} ({high:,})" if high_name else f"{high:,}"
        raise p.fail(f"parameter '{key}' is {limits.shown(value)}; the limit is {limit}")
    return int(value)


def _number(p: Params, key: str, default: float, low: float, high: float) -> float:
    """A number parameter in ``[low, high]``."""
    value = p.get(key, float, default)
    if not low <= value <= high:
        raise p.fail(f"parameter '{key}' must be between {low:g} and {high:g}, got {value!r}")
    return float(value)


def _net_arch(p: Params, ctx: MethodContext) -> list[int]:
    """The hidden layer sizes, within the network limits for this game's features and actions."""
    hidden = p.get("net_arch", list, [64, 64])
    try:
        check_network_size(hidden, len(ctx.game.feature_names), ctx.game.n_actions, prefix="")
    except FsmarenaError as exc:
        raise p.fail(f"parameter 'net_arch': {exc}") from None
    return [int(h) for h in hidden]


def _illegal_action(p: Params, algo: str) -> str:
    """What the training environment does with an illegal action (module docstring)."""
    if algo == "maskable-ppo":
        if "illegal_action" in p.data:
            raise p.fail("maskable-ppo never takes an illegal action: remove 'illegal_action'")
        return "none (masked)"
    value = p.get("illegal_action", str, "first-legal")
    if value not in ILLEGAL_ACTIONS:
        raise p.fail(f"parameter 'illegal_action' must be one of {', '.join(ILLEGAL_ACTIONS)}, got '{value[:40]}'")
    return value


def _opponent(p: Params, ctx: MethodContext) -> str | list[str]:
    """Whom the learner trains against: a builtin or player file (``opponent``), a pool of them
    drawn from game by game (``opponents``, as the table learners take), or the needed champions."""
    given = [key for key in ("opponent", "opponents", "needs") if key in ctx.params or (key == "needs" and ctx.needs)]
    if len(given) > 1:
        raise p.fail(f"give one of 'opponent', 'opponents' and 'needs', not {' and '.join(given)}")
    if ctx.needs:
        return f"champions of {' and '.join(ctx.needs)} (one per game)"
    if ctx.game.n_seats == 1:
        if given:
            raise p.fail(f"{ctx.game.name} is a one-player game: give no opponent")
        return ""
    if "opponents" in ctx.params:
        names = p.get("opponents", list)
        if not names or not all(isinstance(n, str) for n in names) or len(set(names)) != len(names):
            raise p.fail("field 'opponents' must list different player names")
    else:
        names = [p.get("opponent", str, "random")]
    for name in names:
        try:
            resolve_player(name, ctx.game)
        except FsmarenaError as exc:
            raise p.fail(f"opponent: {exc}") from None
    return names if "opponents" in ctx.params else names[0]


def _refuse_unused(p: Params, algo: str) -> None:
    """Unknown parameters are refused; one of the other kind of algorithm is named as such."""
    own, other = (DQN_DEFAULTS, PPO_DEFAULTS) if algo == "dqn" else (PPO_DEFAULTS, DQN_DEFAULTS)
    misplaced = sorted((set(p.data) - p.used) & (set(other) - set(own)))
    if misplaced:
        raise p.fail(f"parameter '{misplaced[0]}' is not one of {algo}'s")
    p.check_unused()
