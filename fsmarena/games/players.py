"""Players: anything that picks actions for a batch of games.

A player answers ``act(obs, memory, rows, rng)`` with one action per row of ``obs``.  Per-game
memory (an FSM's current state, a learner's trajectory) is created by ``begin`` at the start of
every batch of games, so it is reset each game by construction.  Players may be *stacks* of
several members of one kind (a whole population of table FSMs): ``begin`` then receives, per
game, which member sits in that seat, and the player evaluates all members at once by fancy
indexing (``tables[member_of_row, state_of_row]``).

Every player saves to and loads from a JSON file with a ``kind`` field and a
``format_version``; loading validates every field and never uses pickle.  Kinds are looked up
in the registry (:func:`fsmarena.games.registry.player_kinds`), which maps a kind to ``"module:Class"`` so that ``games`` does not import
``evo`` or ``rl`` until a file of that kind is loaded.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Sequence

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, read_json, write_json
from fsmarena.games.observation import Outcome
from fsmarena.games.registry import lookup, player_kinds
from fsmarena.text import clean_label

if TYPE_CHECKING:
    from fsmarena.games.base import Game, Observation, Outcome

FORMAT_VERSION = 1


class Player(ABC):
    """Base class of every player; see the module docstring for the protocol."""

    kind: ClassVar[str]
    #: number of members when the player is a stack (1 for an ordinary player)
    n_members: int = 1

    def __init__(self, label: str | None = None):
        self.label = clean_label(label or self.kind)

    def begin(self, game: "Game", n: int, members: np.ndarray | None, rng: np.random.Generator) -> Any:
        """Create the per-game memory for a batch of ``n`` games (``None`` if stateless).

        ``members[i]`` is the stack member playing game ``i`` (``None`` = member 0 everywhere).
        """
        return members

    @abstractmethod
    def act(self, obs: "Observation", memory: Any, rows: np.ndarray | None, rng: np.random.Generator) -> np.ndarray:
        """Actions for the games ``rows`` of the batch (``None`` = all), one per row of ``obs``."""

    def finish(self, memory: Any, outcome: "Outcome", seat: int) -> None:
        """Called once the batch is over (learners collect their experience here)."""

    # ---- stacking (many players of one kind evaluated as one) ------------------------------
    def stack_key(self) -> Any:
        """Players with equal non-None keys can be merged by :meth:`stack` (None: cannot)."""
        return None

    @classmethod
    def stack(cls, players: Sequence[Any]) -> "Player":
        """One stacked player whose member ``k`` plays like ``players[k]``."""
        raise NotImplementedError(f"players of kind {cls.kind} cannot be stacked")

    # ---- serialisation ---------------------------------------------------------------
    def to_dict(self) -> dict[str, Any]:
        """The kind-specific fields of the JSON file (``kind`` and version are added)."""
        return {}

    @classmethod
    def from_fields(cls, fields: Fields, game: "Game") -> "Player":
        """Build from validated JSON fields; raise ``fields.fail(...)`` on any problem."""
        return cls()

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.label}>"


def members_of(memory: Any, rows: np.ndarray | None) -> np.ndarray | int:
    """The member index of each acting row, from a memory that is the members array."""
    if memory is None:
        return 0
    return memory if rows is None else memory[rows]


class RandomPlayer(Player):
    """Uniformly random among the legal abstract actions at every decision."""

    kind = "random"

    def __init__(self, label: str | None = None):
        super().__init__(label or "random")

    def act(self, obs, memory, rows, rng):
        n_actions = obs.n_actions
        mask = obs.mask
        if mask is None:
            return rng.integers(0, n_actions, size=obs.n)
        return uniform_legal(mask, rng)


def uniform_legal(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """One uniformly random legal action per row of a boolean ``(rows, actions)`` mask."""
    counts = mask.sum(axis=1)
    if np.any(counts == 0):
        raise FsmarenaError("a decision with no legal action (engine bug)")
    pick = (rng.random(len(mask)) * counts).astype(np.int64)
    cumulative = np.cumsum(mask, axis=1)
    return np.argmax(cumulative > pick[:, None], axis=1)


def legal_or_first(actions: np.ndarray, mask: np.ndarray | None) -> np.ndarray:
    """``actions`` with every illegal one (per the observation's mask) replaced by the first
    legal action of its row; unchanged when every action is legal."""
    if mask is not None:
        bad = ~mask[np.arange(len(actions)), actions]
        if bad.any():
            actions = actions.copy()
            actions[bad] = np.argmax(mask[bad], axis=1)
    return actions


class FixedActionPlayer(Player):
    """Always the same abstract action (``always-small`` etc.); a legal one if it is not."""

    kind = "fixed-action"

    def __init__(self, action: int, action_name: str = "", label: str | None = None):
        super().__init__(label or f"always-{action_name or action}")
        self.action = int(action)
        self.action_name = action_name

    def act(self, obs, memory, rows, rng):
        return legal_or_first(np.full(obs.n, self.action, dtype=np.int64), obs.mask)

    def to_dict(self):
        return {"action": self.action_name or self.action}

    @classmethod
    def from_fields(cls, fields, game):
        action = fields.get("action", (str, int))
        number = action_number(game, action, fields)
        return cls(number, game.action_names[number], label=fields.get("label", str, None))


def action_number(game: "Game", action: str | int, fields: Fields | None = None) -> int:
    """The number of an action given by name or number, validated against ``game``."""
    if isinstance(action, str):
        if action in game.action_names:
            return game.action_names.index(action)
        message = f"unknown action '{action}' for {game.name} (actions: {', '.join(game.action_names)})"
    elif 0 <= action < game.n_actions:
        return int(action)
    else:
        message = f"action {action} out of range for {game.name} (0..{game.n_actions - 1})"
    raise fields.fail(message) if fields else FsmarenaError(message)


class TablePolicy(Player):
    """An action per observation index: the policy class of tabular RL.

    ``table`` has shape ``(n_states,)`` or, for a stack of ``P`` policies, ``(P, n_states)``.
    Illegal table entries (possible in games with masks) fall back to the first legal action.
    """

    kind = "table-policy"

    def __init__(self, table: np.ndarray, label: str | None = None):
        super().__init__(label or "table-policy")
        table = np.asarray(table, dtype=np.int64)
        self.table = table if table.ndim == 2 else table[None, :]
        self.n_members = len(self.table)

    def act(self, obs, memory, rows, rng):
        members = members_of(memory, rows)
        return legal_or_first(self.table[members, obs.index], obs.mask)

    def to_dict(self):
        if self.n_members != 1:
            raise FsmarenaError("save the members of a stacked table policy one by one")
        return {"actions": self.table[0].tolist()}

    @classmethod
    def from_fields(cls, fields, game):
        table = fields.int_array("actions", (game.n_states,), 0, game.n_actions)
        return cls(table, label=fields.get("label", str, None))

    def stack_key(self) -> Any:
        return None if self.n_members != 1 else (self.kind, self.table.shape[1])

    @classmethod
    def stack(cls, policies: Sequence["TablePolicy"]) -> "TablePolicy":
        return cls(np.concatenate([p.table for p in policies]), label="stack")


class GroupedStack(Player):
    """Several players behind one seat: ``members[i]`` (an index into ``players``) plays game ``i``.

    Players that can be merged (equal :meth:`Player.stack_key`: table policies, BDAs and
    table FSMs of one shape) become one stacked player evaluated by a single fancy-indexed
    lookup per decision, so hundreds of champions cost one call per *kind*, not per champion;
    the others act on their own rows.  Actions and random draws happen group by group in a
    fixed order (first appearance), so a batch is reproducible.
    """

    kind = "grouped-stack"

    def __init__(self, players: Sequence[Player]):
        super().__init__("grouped")
        self.n_members = len(players)
        groups: dict[Any, list[int]] = {}
        for index, player in enumerate(players):
            key = player.stack_key()
            groups.setdefault(("single", index) if key is None else key, []).append(index)
        self.groups: list[Player] = []
        self.group_of = np.empty(len(players), dtype=np.int64)
        self.local = np.empty(len(players), dtype=np.int64)
        for number, (key, indices) in enumerate(groups.items()):
            members = [players[i] for i in indices]
            self.groups.append(members[0] if key[0] == "single" else type(members[0]).stack(members))
            self.group_of[indices] = number
            self.local[indices] = np.arange(len(indices))

    def begin(self, game, n, members, rng):
        members = np.zeros(n, dtype=np.int64) if members is None else np.asarray(members)
        group = self.group_of[members]
        rows = [np.flatnonzero(group == g) for g in range(len(self.groups))]
        memories = [
            p.begin(game, len(r), self.local[members[r]], rng) if len(r) else None for p, r in zip(self.groups, rows)
        ]
        position = np.empty(n, dtype=np.int64)
        for r in rows:
            position[r] = np.arange(len(r))
        return group, position, memories, rows

    def act(self, obs, memory, rows, rng):
        group, position, memories, _ = memory
        row_ids = np.arange(len(group)) if rows is None else np.asarray(rows)
        acting = group[row_ids]
        actions = np.empty(obs.n, dtype=np.int64)
        for g, player in enumerate(self.groups):
            local = np.flatnonzero(acting == g)
            if len(local) == obs.n and rows is None:
                actions[:] = player.act(obs, memories[g], None, rng)
            elif len(local):
                actions[local] = player.act(obs.subset(local), memories[g], position[row_ids[local]], rng)
        return actions

    def finish(self, memory, outcome, seat):
        _, _, memories, rows = memory
        for player, mem, r in zip(self.groups, memories, rows):
            if len(r):
                player.finish(mem, Outcome(outcome.scores[r], outcome.rewards[r]), seat)


class Mixture(Player):
    """An opponent population: each game of a batch draws one of ``players`` uniformly.

    An opponent for learners (an RL agent trains against "the evolved champions" as a
    population), seated with the one stacked player, :class:`GroupedStack`; the draw uses the
    batch's random stream."""

    kind = "mixture"

    def __init__(self, players: Sequence[Player], label: str | None = None):
        super().__init__(label or "mixture of " + ", ".join(p.label for p in players))
        self.players = list(players)
        self.grouped = GroupedStack(self.players)

    def begin(self, game, n, members, rng):
        drawn = rng.integers(0, len(self.players), size=n)
        return self.grouped.begin(game, n, drawn, rng)

    def act(self, obs, memory, rows, rng):
        return self.grouped.act(obs, memory, rows, rng)

    def finish(self, memory, outcome, seat):
        self.grouped.finish(memory, outcome, seat)

    def to_dict(self) -> dict[str, Any]:
        """A description for training checkpoints (a mixture is not a player file)."""
        return {"players": [p.label for p in self.players]}


# ---- files and names ------------------------------------------------------------------------


def player_class(kind: str) -> type[Player]:
    return lookup(player_kinds(), kind, "player kind")


def player_to_json(player: Player, game: "Game") -> dict[str, Any]:
    data = {"format_version": FORMAT_VERSION, "kind": player.kind, "game": game.name, "label": player.label}
    data.update(player.to_dict())
    return data


def save_player(player: Player, game: "Game", path: str | Path) -> None:
    """Write ``player`` to a versioned JSON file (atomically)."""
    write_json(path, player_to_json(player, game))


def player_from_json(data: Any, game: "Game", source: str = "player file") -> Player:
    """Validate a decoded player JSON object and build the player (never executes code)."""
    fields = Fields(data, source)
    version = fields.get("format_version", int)
    if version != FORMAT_VERSION:
        raise fields.fail(f"unsupported format_version {version} (this fsmarena reads {FORMAT_VERSION})")
    kind = fields.get("kind", str)
    if kind not in player_kinds():
        raise fields.fail(f"unknown player kind '{kind}'")
    file_game = fields.get("game", str)
    if file_game != game.name:
        raise fields.fail(f"this player is for the game '{file_game}', not '{game.name}'")
    label = fields.get("label", str, None)
    if label is not None:  # every kind reads its label from these fields: clean it once here
        fields = Fields({**fields.data, "label": clean_label(label)}, source)
    try:
        return player_class(kind).from_fields(fields, game)
    except FsmarenaError:
        raise
    except (ValueError, TypeError, KeyError, IndexError, OverflowError) as exc:
        raise fields.fail(f"invalid {kind} player: {exc}") from None


def load_player(path: str | Path, game: "Game") -> Player:
    """Load a player JSON file for ``game``, with clear errors for any defect."""
    return player_from_json(read_json(path, "player file"), game, f"player file {path}")


def resolve_player(spec: str, game: "Game") -> Player:
    """A builtin name (``random``, ``always-small`` ...) or the path of a player JSON file."""
    builtins = game.builtin_players()
    if spec in builtins:
        return builtins[spec]()
    path = Path(spec)
    if path.suffix.lower() == ".json" or path.exists():
        return load_player(path, game)
    raise FsmarenaError(
        f"unknown player '{spec}' for {game.name}: not a builtin ({', '.join(sorted(builtins))}) and not a file"
    )
