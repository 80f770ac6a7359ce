"""What every fsmarena environment shares (:mod:`fsmarena.games.environments`): the game and its
parameters, the observation and action spaces and their codec, the judging of illegal
actions, the episodes' seeds and the stepper that plays them.
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any, Mapping

import numpy as np
from gymnasium import spaces

from fsmarena.errors import FsmarenaError
from fsmarena.games import game_class, get_game
from fsmarena.games.base import Game, Observation, parse_params
from fsmarena.games.gym_ids import env_id, register_envs  # noqa: F401 - env_id: part of this module's API
from fsmarena.games.players import (
    GroupedStack,
    Mixture,
    Player,
    player_class,
    player_from_json,
    player_to_json,
    resolve_player,
)
from fsmarena.games.registry import entries, player_kinds
from fsmarena.games.stepper import (
    IllegalAction,
    KernelStepper,
    action_number,
)

ILLEGAL_POLICIES = ("lose", "raise", "first-legal")
#: the reward of the seat whose illegal action ended the episode (policy ``lose``; the other
#: seats get 0): a loss, and below every 421 score
ILLEGAL_REWARD = -1.0
SEAT_CHOICES = ("alternate", "random")


# ---- games and their parameters ------------------------------------------------------------


def build_game(game: str | Game, params: Mapping[str, Any] | None = None) -> Game:
    """The game named ``game`` with rule parameters ``params`` (values, or strings as
    ``--param`` takes them); a :class:`Game` is returned as it is."""
    if isinstance(game, Game):
        if params:
            raise FsmarenaError("give rule parameters with the game's name, not with a built game")
        return game
    cls = game_class(game)
    params = dict(params or {})
    fields = {f.name for f in dataclasses.fields(cls.Config)}
    unknown = sorted(set(params) - fields)
    if unknown:
        raise FsmarenaError(f"{game}: unknown parameter '{unknown[0]}' (known: {', '.join(sorted(fields))})")
    return cls(parse_params(cls.Config, {key: _param_text(value) for key, value in params.items()}))


def _param_text(value: Any) -> str:
    """A rule parameter as ``--param`` writes it (lists comma-separated), so that one parser
    checks every value the same way whatever form it was given in."""
    if isinstance(value, str):
        return value
    if isinstance(value, (list, tuple, np.ndarray)):
        return ",".join(_param_text(v) for v in value)
    return str(value.item() if isinstance(value, np.generic) else value)


# ---- opponents -------------------------------------------------------------------------------


def check_opponent(spec: Any, game: Game, number: int) -> Player:
    """Opponent ``number`` of an environment of ``game`` as a player, checked as a player file is.

    A builtin name or a player file (``str`` or path) is read by the player reader, which
    checks its game and kind.  A :class:`Player` object of a kind that has a player file
    (table policies, machines, builtins, networks) is checked by that same reader, on the
    fields its file would hold: a policy of another game (a divide-the-dollar table in a
    Stupide Vautour environment) or of other rule parameters is one FsmarenaError naming the
    opponent and the game it does fit, not an ``IndexError`` in the middle of an episode.  A
    mixture is checked member by member; a stack of several players is refused (give them
    as a pool).  A player of a class of your own (whatever ``kind`` it declares), which has
    no file reader, is taken as it is: its answers are judged at every move (:func:`judge`).
    Anything else is refused.
    """
    if isinstance(spec, (str, os.PathLike)):
        return resolve_player(os.fspath(spec), game)
    if not isinstance(spec, Player):
        raise FsmarenaError(
            f"{game.name} opponent {number}: give a builtin name, a player file or a Player, not {type(spec).__name__}"
        )
    who = f"{game.name} opponent {number} ('{spec.label}', a {spec.kind} player)"
    if isinstance(spec, Mixture):
        for member in spec.players:
            check_opponent(member, game, number)
        return spec
    if isinstance(spec, GroupedStack) or spec.n_members != 1:
        raise FsmarenaError(f"{who} is a stack of {spec.n_members} players: give them as a list (a pool)")
    if spec.kind not in player_kinds() or not isinstance(spec, player_class(spec.kind)):
        return spec  # a class of your own: its answers are judged at every move
    try:
        player_from_json(_as_file(spec, game, who), game, who)
    except FsmarenaError as exc:
        fits = _games_fitting(spec, game)
        if not fits:
            raise
        raise FsmarenaError(f"{exc}: it is a player of {' or '.join(fits)}, not of this {game.name}") from None
    return spec


def _as_file(player: Player, game: Game, who: str) -> dict[str, Any]:
    """The fields the player's file would hold for ``game`` (FsmarenaError if it has none)."""
    try:
        return player_to_json(player, game)
    except FsmarenaError:
        raise
    except (AttributeError, TypeError, ValueError, KeyError, IndexError) as exc:
        raise FsmarenaError(f"{who} cannot be read as a {player.kind} player: {exc}") from None


def _games_fitting(player: Player, refused: Game) -> list[str]:
    """The registered games (at their default rule parameters) whose player reader accepts
    ``player``: what the message of a refused opponent names as its game."""
    fits = []
    for item in entries():
        try:
            other = get_game(item.name)
            if other.name == refused.name and other.config == refused.config:
                continue
            player_from_json(_as_file(player, other, "opponent"), other, "opponent")
        except FsmarenaError:
            continue
        fits.append(item.name if other.name != refused.name else f"{item.name} at its default parameters")
    return fits


# ---- observations ----------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Seen:
    """One seat's latest observation: ``parts`` as the observation space holds them, the int8
    legal-action ``mask`` and the tabular state ``index``."""

    parts: dict[str, Any]
    mask: np.ndarray
    index: int


def legal_mask(obs: Observation, n_actions: int) -> np.ndarray:
    """The int8 legal-action mask of a one-row observation (all ones when it has none)."""
    mask = obs.mask
    return np.ones(n_actions, np.int8) if mask is None else np.asarray(mask, np.int8).reshape(-1).copy()


class Codec:
    """The game's observation parts as Gymnasium spaces and values: ``features`` (if the
    game has any; every game's features lie in [0, 1]), every encoding not named like the
    standard parts, and ``index`` if ``with_index``."""

    def __init__(self, game: Game, with_index: bool = False):
        self.game = game
        self.with_index = with_index
        parts: dict[str, spaces.Space] = {"index": spaces.Discrete(game.n_states)} if with_index else {}
        if game.feature_names:
            parts["features"] = spaces.Box(0.0, 1.0, (len(game.feature_names),), np.float64)
        self.encodings = [name for name in game.encodings if name not in ("index", "features", "action_mask")]
        for name in self.encodings:
            parts[name] = spaces.Discrete(int(game.encodings[name]))
        self.parts = parts
        self.mask_space = spaces.Box(0, 1, (game.n_actions,), np.int8)

    def encode(self, obs: Observation) -> Seen:
        """What a seat sees in a one-row observation."""
        index = int(np.asarray(obs.index).reshape(-1)[0])
        values: dict[str, Any] = {"index": np.int64(index)} if self.with_index else {}
        if "features" in self.parts:
            values["features"] = np.asarray(obs.features, dtype=np.float64).reshape(-1).copy()
        for name in self.encodings:
            values[name] = np.int64(np.asarray(getattr(obs, name)).reshape(-1)[0])
        return Seen(values, legal_mask(obs, self.game.n_actions), index)

    def blank(self) -> Seen:
        """What a seat that has not been asked anything yet sees (all zero, nothing legal)."""
        values: dict[str, Any] = {"index": np.int64(0)} if self.with_index else {}
        if "features" in self.parts:
            values["features"] = np.zeros(self.parts["features"].shape, np.float64)
        values.update({name: np.int64(0) for name in self.encodings})
        return Seen(values, np.zeros(self.game.n_actions, np.int8), 0)


def copy_value(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: copy_value(v) for k, v in value.items()}
    return value.copy() if isinstance(value, np.ndarray) else value


# ---- illegal actions ---------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Move:
    """An action after the illegal-action policy: ``number`` is what the game plays (``None``:
    the mover forfeits, policy ``lose``), ``given`` the action given, ``illegal`` the message
    naming it when it was illegal."""

    number: int | None
    given: int
    illegal: str | None = None

    def info(self) -> dict[str, Any]:
        """The ``info`` entries reporting an illegal action (none for a legal one)."""
        return {} if self.illegal is None else {"illegal_action": self.given, "illegal_move": self.illegal}


def judge(game: Game, action: Any, mask: np.ndarray, policy: str, who: str) -> Move:
    """``action`` of ``who`` under the illegal-action ``policy`` (module docstring): an
    IllegalAction if it is no action at all, or illegal under ``raise``."""
    number = action_number(action, game.n_actions, who)
    if mask[number]:
        return Move(number, number)
    legal = np.flatnonzero(mask)
    names = ", ".join(f"{a} ({game.action_names[a]})" for a in legal)
    message = f"{who}: action {number} is illegal ({game.action_names[number]}); legal actions: {names}"
    if policy == "raise":
        raise IllegalAction(message)
    return Move(int(legal[0]) if policy == "first-legal" else None, number, message)


def check_policy(policy: str) -> str:
    if policy not in ILLEGAL_POLICIES:
        raise FsmarenaError(f"illegal_action must be one of {', '.join(ILLEGAL_POLICIES)}, got {policy!r}")
    return policy


def check_flag(name: str, value: Any) -> bool:
    """``value`` if it is a boolean (numpy's too), else a FsmarenaError: a truthy string such as
    ``'yes'`` or ``'false'`` would otherwise switch the option on without a word."""
    if not isinstance(value, (bool, np.bool_)):
        raise FsmarenaError(f"{name} must be True or False, got {value!r}")
    return bool(value)


def not_started(name: str) -> FsmarenaError:
    return FsmarenaError(f"{name}: no episode in progress (not started, or over): call reset() first")


class Episodes:
    """Engine generators for successive episodes: ``default_rng(seed)`` after a seeded reset,
    then the children of ``SeedSequence(seed)``."""

    def __init__(self) -> None:
        self.sequence: np.random.SeedSequence | None = None

    def next(self, seed: int | None) -> np.random.Generator:
        if seed is not None:
            self.sequence = np.random.SeedSequence(seed)
            return np.random.default_rng(self.sequence)
        if self.sequence is None:
            self.sequence = np.random.SeedSequence()
        return np.random.default_rng(self.sequence.spawn(1)[0])

    def child(self) -> np.random.Generator:
        """An independent generator for the environment's own choices."""
        if self.sequence is None:
            self.sequence = np.random.SeedSequence()
        return np.random.default_rng(self.sequence.spawn(1)[0])


def agent_name(seat: int) -> str:
    return f"player_{seat}"


def describe_agent(game: Game, agent: str, seen: Seen) -> str:
    legal = ", ".join(game.action_names[a] for a in np.flatnonzero(seen.mask))
    return f"{agent} to move: {game.state_label(seen.index)}; legal: {legal}"


class Stepped:
    """What every environment shares: the stepper that plays its episodes."""

    _stepper: KernelStepper

    @property
    def stepper(self) -> KernelStepper:
        """The stepper playing the episodes (:class:`fsmarena.games.stepper.KernelStepper`)."""
        return self._stepper
