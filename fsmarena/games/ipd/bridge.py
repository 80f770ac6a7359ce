"""Axelrod's library (Axelrod-Python, the optional extra ``fsmarena[axelrod]``) and fsmarena's
iterated prisoner's dilemma: players both ways, and the classics as Axelrod names them.

* :func:`to_axelrod` turns an fsmarena table FSM over ``opp_last`` into an ``axelrod.FSMPlayer``
  that plays identically (its opening move and first state are what the machine does on the
  input "before the first turn"; every later decision reads the opponent's last move, as
  Axelrod's machines do); :func:`axelrod_description` is the same machine as JSON-ready data
  (``fsmarena export PLAYER.json --to axelrod``), :func:`from_description` reads it back;
* :func:`from_axelrod` turns any ``axelrod.FSMPlayer`` (``axelrod.EvolvedFSM16()``, a machine
  of your own) into an fsmarena table FSM (:func:`fsmarena.games.ipd.machines.fsm_tables`);
* :data:`AXELROD_NAMES` names the Axelrod class of each fsmarena builtin; :func:`axelrod_game`
  is Axelrod's ``Game`` of a configuration's payoffs.

Axelrod is imported on first use only: without the extra, everything else of the game works and
these functions say how to install it.
"""

from __future__ import annotations

import importlib
from typing import Any, Mapping

from fsmarena.errors import FsmarenaError
from fsmarena.extras import install_hint
from fsmarena.fileio import Fields
from fsmarena.games.ipd.machines import MACHINES, fsm_tables
from fsmarena.games.players import FORMAT_VERSION, Player, player_from_json

#: fsmarena builtin -> Axelrod's class name (the published machines: :data:`.machines.MACHINES`)
AXELROD_NAMES: dict[str, str] = {
    "random": "Random",
    "cooperator": "Cooperator",
    "defector": "Defector",
    "tit-for-tat": "TitForTat",
    "grudger": "Grudger",
    "grim": "Grudger",  # Axelrod's Grudger is also called Grim and Grim Trigger
    "tit-for-two-tats": "TitFor2Tats",
    "win-stay-lose-shift": "WinStayLoseShift",
    "alternator": "Alternator",
    "suspicious-tit-for-tat": "SuspiciousTitForTat",
    "generous-tit-for-tat": "GTFT",
    "bully": "Bully",
    **{name: machine[0] for name, machine in MACHINES.items()},
}
INPUTS = "opp_last"
MOVES = "CD"


def axelrod() -> Any:
    """The ``axelrod`` module, or one clear error saying how to install it."""
    try:
        return importlib.import_module("axelrod")
    except ModuleNotFoundError:
        raise FsmarenaError(f"Axelrod's library is not installed: {install_hint('axelrod')} (axelrod 4.13)") from None


def axelrod_game(config: Any) -> Any:
    """Axelrod's ``Game`` with the payoffs of an :class:`fsmarena.games.ipd.game.IpdConfig`."""
    return axelrod().Game(r=config.reward, s=config.sucker, t=config.temptation, p=config.punishment)


def axelrod_player(name: str, args: Mapping[str, float] | None = None) -> Any:
    """A fresh Axelrod player for fsmarena builtin ``name`` (with its parameters ``args``:
    ``p`` of ``random``, ``generosity`` of ``generous-tit-for-tat``, -1 meaning the default)."""
    if name not in AXELROD_NAMES:
        raise FsmarenaError(f"no Axelrod strategy for '{name}' (known: {', '.join(sorted(AXELROD_NAMES))})")
    cls = getattr(axelrod(), AXELROD_NAMES[name])
    args = dict(args or {})
    if name == "random":
        return cls(p=args.get("p", 0.5))
    if name == "generous-tit-for-tat" and args.get("generosity", -1.0) >= 0:
        return cls(p=args["generosity"])
    return cls()


def _machine_tables(player: Player) -> tuple[Any, Any]:
    """The next-state and action tables of a one-member table FSM over ``opp_last``."""
    if getattr(player, "kind", None) != "table-fsm" or getattr(player, "n_members", 1) != 1:
        raise FsmarenaError("only a table-fsm player (one machine) exports to Axelrod")
    if player.inputs != INPUTS or player.n_inputs != 3:  # type: ignore[attr-defined]
        raise FsmarenaError(
            f"a table FSM exports to Axelrod when it reads '{INPUTS}' (the opponent's last move), "
            f"not '{player.inputs}': evolve it with --inputs {INPUTS}"  # type: ignore[attr-defined]
        )
    return player.next_state[0], player.action[0]  # type: ignore[attr-defined]


def axelrod_description(player: Player, label: str | None = None) -> dict[str, Any]:
    """The table FSM ``player`` as the arguments of ``axelrod.FSMPlayer`` (JSON-ready): the
    transitions ``[state, opponent's last move, next state, move]`` of every state, the initial
    state and the opening move."""
    next_state, action = _machine_tables(player)
    transitions = [
        [state, MOVES[move], int(next_state[state, 1 + move]), MOVES[int(action[state, 1 + move])]]
        for state in range(len(next_state))
        for move in (0, 1)
    ]
    return {
        "format": "axelrod.FSMPlayer",
        "label": label or player.label,
        "transitions": transitions,
        "initial_state": int(next_state[0, 0]),
        "initial_action": MOVES[int(action[0, 0])],
    }


def memory_one_description(game: Any, player: Player, label: str | None = None) -> dict[str, Any]:
    """A table policy over the memory-one state (the last joint move) as the same machine: its
    state is its own last move, each transition reads the opponent's and moves to the action
    the policy takes after that joint move; its opening is the policy's action at "start"."""
    if getattr(game.config, "memory", None) != 1 or getattr(player, "n_members", 1) != 1:
        raise FsmarenaError("a table policy exports to Axelrod when it is one policy over memory 1")
    table = player.table[0]  # type: ignore[attr-defined]
    if len(table) != 5:
        raise FsmarenaError(f"a memory-one table policy has 5 states, not {len(table)}")
    transitions = []
    for own, opp in ((0, 0), (0, 1), (1, 0), (1, 1)):
        move = int(table[1 + 2 * own + opp])
        transitions.append([own, MOVES[opp], move, MOVES[move]])
    opening = int(table[0])
    return {
        "format": "axelrod.FSMPlayer",
        "label": label or player.label,
        "transitions": transitions,
        "initial_state": opening,
        "initial_action": MOVES[opening],
    }


def export_axelrod(game: Any, player: Player) -> dict[str, Any]:
    """``fsmarena export PLAYER.json --to axelrod``: :func:`axelrod_description` of a table FSM,
    :func:`memory_one_description` of a memory-one table policy (this needs no Axelrod
    installed: the file is read by :func:`from_description`)."""
    if getattr(player, "kind", None) == "table-policy":
        return memory_one_description(game, player)
    return axelrod_description(player)


def from_description(data: Any, source: str = "Axelrod machine") -> Any:
    """An ``axelrod.FSMPlayer`` from :func:`axelrod_description`'s data (checked field by field)."""
    fields = Fields(data, source)
    rows = fields.get("transitions", list)
    actions = axelrod().Action
    try:
        transitions = tuple((int(s), actions.from_char(m), int(n), actions.from_char(a)) for s, m, n, a in rows)
        initial = actions.from_char(fields.get("initial_action", str))
        return axelrod().FSMPlayer(transitions, fields.get("initial_state", int), initial)
    except (TypeError, ValueError, KeyError) as exc:
        raise fields.fail(f"not an Axelrod machine: {exc}") from None


def to_axelrod(player: Player) -> Any:
    """The table FSM ``player`` (over ``opp_last``) as an ``axelrod.FSMPlayer`` that plays alike."""
    return from_description(axelrod_description(player))


def from_axelrod(machine: Any, game: Any, label: str | None = None) -> Player:
    """An ``axelrod.FSMPlayer`` as an fsmarena table FSM of ``game`` (the ipd game)."""
    fsm = getattr(machine, "fsm", None)
    if fsm is None or not hasattr(machine, "initial_state"):
        raise FsmarenaError(f"{machine!r} is not an Axelrod finite-state player (axelrod.FSMPlayer)")
    transitions = [(s, MOVES.index(str(m)), n, MOVES.index(str(a))) for (s, m), (n, a) in fsm.state_transitions.items()]
    opening = MOVES.index(str(machine.initial_action))
    next_state, action = fsm_tables(transitions, machine.initial_state, opening)
    data = {
        "format_version": FORMAT_VERSION,
        "kind": "table-fsm",
        "game": game.name,
        "label": label or str(machine.name),
        "inputs": INPUTS,
        "states": len(next_state),
        "n_inputs": 3,
        "start_state": 0,
        "next_state": next_state.tolist(),
        "action": action.tolist(),
    }
    return player_from_json(data, game, "Axelrod machine")
