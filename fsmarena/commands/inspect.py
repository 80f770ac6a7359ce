"""``fsmarena inspect``: what an evolved machine is and what it does in play.

Reads a table-FSM or BDA player file, plays it against a panel (default: the game's
builtins) and prints its kind, its states (declared, reachable, effective: after exact
minimisation and on the inputs met in play), the inputs it met, how much of it fired, and
where its drawings are (or how to make them).

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

from pathlib import Path

from fsmarena.commands._common import add_json, add_params, print_json
from fsmarena.commands.draw import add_panel_arguments, load_machine, panel_usage
from fsmarena.errors import FsmarenaError

NAME = "inspect"
HELP = "what a table-FSM or BDA player file is and does: states, effective states, inputs, usage"


def add_arguments(parser) -> None:
    parser.add_argument("player", metavar="PLAYER.json", help="a table-fsm or bda player file (e.g. best.json)")
    add_params(parser, "game rule parameter the player was evolved with (repeatable)")
    parser.add_argument("--game", help="refuse the file unless it is for this game")
    add_panel_arguments(parser, minimum=1)
    add_json(parser)


def run(args) -> int:
    from fsmarena.evo.usage import machine_summary

    game, player = load_machine(args)
    if args.game is not None and args.game != game.name:
        raise FsmarenaError(f"player file {args.player} is for the game '{game.name}', not '{args.game}'")
    usage = panel_usage(args, game, player)
    summary = machine_summary(player, game, usage)
    summary["panel"] = args.panel or sorted(game.builtin_players())
    summary["drawings"] = drawings(Path(args.player))
    if args.json:
        print_json(summary)
    else:
        print("\n".join(text_lines(summary)))
    return 0


def drawings(player_file: Path) -> dict[str, object]:
    """Drawings already next to the file (``<stem>*.png``, a study's ``best_*.png``) and the
    commands that make new ones."""
    folder = player_file.parent
    found = sorted({*folder.glob(f"{player_file.stem}*.png"), *folder.glob("best_*.png")})
    return {
        "found": [str(path) for path in found],
        "draw": f"fsmarena draw {player_file} --out {player_file.stem}.png",
        "draw_minimal": f"fsmarena draw {player_file} --minimise --out {player_file.stem}-minimal.png",
    }


def text_lines(summary: dict) -> list[str]:
    """The summary as a few readable lines."""
    usage = summary["usage"]
    lines = [
        f"{summary['kind']} '{summary['label']}' for {summary['game']}",
        f"  states: {summary['states']}, reachable {summary['reachable_states']}, "
        f"effective {summary['effective_states']} (exact), {summary['effective_states_in_play']} on the inputs met in play",
    ]
    if "inputs" in summary:
        inputs = summary["inputs"]
        lines.append(f"  inputs '{inputs['encoding']}': {inputs['met_in_play']} of {inputs['total']} met in play")
    if "tests" in summary:
        tests = summary["tests"]
        lines.append(
            f"  tests: {tests['states_tested_in_play']} states tested in play, {tests['never_held']} never held, "
            f"{tests['never_failed']} never failed"
        )
    from fsmarena.figures.machine_captions import share_text

    visits = ", ".join(f"S{s} {share_text(v, usage['decisions'])}" for s, v in enumerate(usage["visits"]) if v)
    lines += [
        f"  usage: {usage['games']} games against {', '.join(summary['panel'])}, {usage['decisions']} decisions",
        f"  states used: {usage['states_used']}; entries used: {usage['entries_used']} of {usage['entries']}",
        f"  decisions begun in: {visits}",
        f"  drawings: {', '.join(summary['drawings']['found']) or 'none yet'}",
        f"  draw it: {summary['drawings']['draw']}",
        f"  draw the minimal machine: {summary['drawings']['draw_minimal']}",
    ]
    return lines
