"""``fsmarena search GAME --opponent NAME``: the best known table policy against an opponent.

A direct policy search over the tabular policy class (:mod:`fsmarena.rl.policy_search`): coordinate
ascent on common random games, then a confirmation on fresh games.  Writes ``policy.json`` (a
normal table-policy player file) and ``search.json`` (win rate with its 95% interval, the
trace, the timing) into ``--out``, a new folder or an empty one: a search cannot be resumed, so a
folder holding an earlier search is refused (like ``evolve`` and ``train`` without ``--resume``).

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

import time
from pathlib import Path

from fsmarena.commands._common import (
    add_game,
    add_json,
    game_from_args,
    games_count,
    output_path,
    prepare_out,
    print_json,
    seed_value,
)
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import write_json
from fsmarena.games.players import TablePolicy, load_player, resolve_player, save_player
from fsmarena.outdir import SIGNATURES

NAME = "search"
HELP = "direct policy search: the best table policy found against an opponent, with its win rate"


def add_arguments(parser) -> None:
    add_game(parser)
    parser.add_argument("--opponent", required=True, help="builtin player name or player JSON file")
    parser.add_argument("--budget", type=games_count, default=1_000_000, help="games of the search (default 1e6)")
    parser.add_argument("--eval-games", type=games_count, default=None, help="common games per candidate")
    parser.add_argument("--start", default=None, help="a table-policy player file to start from (default random)")
    parser.add_argument("--seed", type=seed_value, default=0, help="master random seed (default 0)")
    parser.add_argument("--out", type=output_path, required=True, help="output folder")
    add_json(parser)


def _start_table(spec: str | None, game):
    if spec is None:
        return None
    player = load_player(Path(spec), game)
    if not isinstance(player, TablePolicy):
        raise FsmarenaError(f"--start must be a table-policy player file, got a '{player.kind}'")
    return player.table[0]


def refuse_earlier_search(out: Path) -> None:
    """A search cannot be resumed, and its files are its result: like ``evolve`` and ``train``
    (which refuse a folder holding a run unless ``--resume``), a new search refuses a folder that
    holds an earlier one (any of its files, :data:`fsmarena.outdir.SIGNATURES`), whatever its
    game or opponent, rather than replace it without a word."""

    found = [name for name in SIGNATURES["search"] if (out / name).exists() or (out / name).is_symlink()]
    if found:
        raise FsmarenaError(f"{out} already holds a search ({found[0]}): choose another output folder")


def run(args) -> int:
    from fsmarena.rl.policy_search import check_searchable, search_policy

    game = game_from_args(args)
    check_searchable(game)
    opponent = resolve_player(args.opponent, game)
    start = _start_table(args.start, game)
    out = prepare_out(args.out, "search")
    refuse_earlier_search(out)
    began = time.perf_counter()
    result = search_policy(game, opponent, args.budget, args.seed, start=start, games_per_eval=args.eval_games)
    seconds = time.perf_counter() - began
    label = f"best table vs {opponent.label}"
    save_player(TablePolicy(result.table, label=label), game, out / "policy.json")
    summary = {"game": game.name, "opponent": opponent.label, "seed": args.seed, "budget": args.budget}
    summary.update(result.summary())
    summary["seconds"] = round(seconds, 3)
    write_json(out / "search.json", summary)
    if args.json:
        print_json(summary)
        return 0
    low, high = result.win_ci95
    print(f"{label} in {game.name}: win {100 * result.win_rate:.2f}% (95% CI {100 * low:.2f} to {100 * high:.2f})")
    print(
        f"  {result.games_used:,} search games, {result.sweeps} sweeps, {len(result.trace)} changes, "
        f"{seconds:.1f} s; written to {out}"
    )
    return 0
