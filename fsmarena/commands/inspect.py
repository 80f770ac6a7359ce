"""``fsmarena inspect``: what a player file is and what it does in play.

Reads a player file of any kind and plays it against a panel (default: the game's builtins).
For a table FSM or a BDA it prints its states (declared, reachable, effective: after exact
minimisation and on the inputs met in play), the inputs it met and how much of it fired; for
every kind, its strategy summary (:mod:`fsmarena.evo.strategy_summary`): per state, the
situations grouped by the action it takes and the moves that leave the state, in the game's
words, most frequent first; then the drawings of it, found by the player's content hash
(:mod:`fsmarena.figures.machine_index`), and how to make new ones.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from fsmarena.commands._common import add_json, add_params, print_json
from fsmarena.commands.draw import MACHINE_KINDS, add_panel_arguments, load_player_file, panel_of, panel_usage
from fsmarena.errors import FsmarenaError
from fsmarena.games.players import player_to_json
from fsmarena.text import percent

NAME = "inspect"
HELP = "what a player file is and does: its strategy per state, and a machine's states, inputs and usage"


def add_arguments(parser) -> None:
    parser.add_argument("player", metavar="PLAYER.json", help="a player file of any kind (e.g. best.json)")
    add_params(parser, "game rule parameter the player was evolved with (repeatable)")
    parser.add_argument("--game", help="refuse the file unless it is for this game")
    add_panel_arguments(parser, minimum=1)
    add_json(parser)


def run(args) -> int:
    from fsmarena.evo.strategy_summary import summarise
    from fsmarena.evo.usage import machine_summary

    game, player = load_player_file(args)
    if args.game is not None and args.game != game.name:
        raise FsmarenaError(f"player file {args.player} is for the game '{game.name}', not '{args.game}'")
    summary: dict[str, Any] = {"kind": player.kind, "label": player.label, "game": game.name}
    minimal = None
    if player.kind in MACHINE_KINDS:
        usage = panel_usage(args, game, player)
        summary = machine_summary(player, game, usage)
        minimal = _minimal_in_play(player, usage)
    summary["panel"] = args.panel or sorted(game.builtin_players())
    strategy = summarise(player, game, panel_of(args, game), args.games, args.seed)
    summary["strategy"] = strategy.to_dict()
    summary["drawings"] = drawings(Path(args.player), [player_to_json(p, game) for p in (player, minimal) if p])
    if args.json:
        print_json(summary)
    else:
        lines = machine_lines(summary) if player.kind in MACHINE_KINDS else [head_line(summary)]
        print("\n".join(lines + strategy.lines() + drawing_lines(summary)))
    return 0


def _minimal_in_play(player, usage) -> Any:
    """The minimal machine on the inputs met in play: the machine a study's drawing shows."""
    from fsmarena.evo.minimise import minimise

    return minimise(player, usage.domain()).player


def drawings(player_file: Path, contents: list[dict]) -> dict[str, object]:
    """The drawings that show this player or its minimal machine (by content hash, wherever
    they were written) and the commands that make new ones."""
    from fsmarena.figures.machine_index import content_hash, drawings_of

    found = sorted({path for content in contents for path in drawings_of(player_file, content_hash(content))})
    stem = player_file.stem
    return {
        "found": found,
        "draw": f"fsmarena draw {player_file} --out {stem}.png",
        "draw_card": f"fsmarena draw {player_file} --card --out {stem}-card.png",
        "draw_minimal": f"fsmarena draw {player_file} --minimise --out {stem}-minimal.png",
    }


def head_line(summary: dict) -> str:
    return f"{summary['kind']} '{summary['label']}' for {summary['game']}"


def machine_lines(summary: dict) -> list[str]:
    """A machine's sizes and usage as a few readable lines."""
    usage = summary["usage"]
    lines = [
        head_line(summary),
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
    visits = ", ".join(f"S{s} {percent(v, usage['decisions'])}" for s, v in enumerate(usage["visits"]) if v)
    return lines + [
        f"  usage: {usage['games']} games against {', '.join(summary['panel'])}, {usage['decisions']} decisions",
        f"  states used: {usage['states_used']}; entries used: {usage['entries_used']} of {usage['entries']}",
        f"  decisions begun in: {visits}",
    ]


def drawing_lines(summary: dict) -> list[str]:
    """Where the drawings are and how to make them."""
    drawn = summary["drawings"]
    lines = [
        f"drawings: {', '.join(drawn['found']) or 'none yet'}",
        f"  draw it: {drawn['draw']}",
        f"  draw its strategy card: {drawn['draw_card']}",
    ]
    if summary["kind"] in MACHINE_KINDS:
        lines.append(f"  draw the minimal machine (states used in play): {drawn['draw_minimal']}")
    return lines
