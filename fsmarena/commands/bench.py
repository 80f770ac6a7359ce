"""``fsmarena bench``: engine speed against a plain-Python loop measured in the same run.

The engines, studies and figures are imported inside the command's functions: ``fsmarena --help``
imports every command module and must stay quick (:mod:`fsmarena.commands`).
"""

from __future__ import annotations

from fsmarena import limits
from fsmarena.commands._common import add_json, print_json
from fsmarena.errors import FsmarenaError
from fsmarena.games import available_games, get_game

NAME = "bench"
HELP = "benchmark each game on its kernel (games per CPU second) against a plain-Python loop, with ratios"


def add_arguments(parser) -> None:
    parser.add_argument("game", metavar="GAME", nargs="?", help="one game (default: all)")
    parser.add_argument(
        "--scale", type=float, default=1.0, help="multiply every case's amount of work (e.g. 0.1 for a quick look)"
    )
    parser.add_argument(
        "--case",
        default=None,
        help="only cases whose name contains this text (long cases, such as 'study speed-up', run only when named)",
    )
    add_json(parser)


def run(args) -> int:
    from fsmarena.games.bench import cases_for, time_case

    if not 0 < args.scale <= limits.MAX_BENCH_SCALE:  # also refuses nan and inf
        raise FsmarenaError(
            f"--scale must be a positive number of at most {limits.MAX_BENCH_SCALE:g} "
            f"(MAX_BENCH_SCALE), got {args.scale}"
        )
    names = [args.game] if args.game else available_games()
    every = [(name, case) for name in names for case in cases_for(get_game(name))]
    chosen = [(name, case) for name, case in every if _chosen(case, args.case)]
    if not chosen:  # every game with a kernel has default cases: a --case that names none gets here
        known = "; ".join(sorted({case.name for _name, case in every})) or "none"
        if args.case is None:
            raise FsmarenaError(f"no benchmark case runs by default here; name one with --case (cases: {known})")
        raise FsmarenaError(f"no benchmark case's name contains --case {args.case!r} (cases: {known})")
    results = []
    for name, case in chosen:
        result = {"game": name, **time_case(case, scale=args.scale)}
        results.append(result)
        if not args.json:
            print(_line(result), flush=True)
    if args.json:
        print_json({"results": results})
    return 0


def _chosen(case, text: str | None) -> bool:
    """Whether ``--case text`` runs ``case``: its name contains the text; without one, every
    case but the long ones that run only when named."""
    return text in case.name if text else not case.opt_in


def _rate(per_second: float, unit: str) -> str:
    """Units per second, or seconds per unit for slow cases (whole studies)."""
    if per_second >= 10:
        return f"{per_second:,.0f} {unit}/s"
    return f"{1 / per_second:,.1f} s each"


def _seconds(result: dict) -> str:
    """The engine's time: CPU seconds (what the rate and ratio use) and the wall clock."""
    if "engine_cpu_seconds" in result:
        return f"{result['engine_cpu_seconds']:.2f} s of CPU, {result['engine_seconds']:.2f} s wall"
    return f"{result['engine_seconds']:.2f} s wall"


def _line(result: dict) -> str:
    text = _speed(result)
    if "result" in result:  # a case that measures an outcome as well (e.g. a learner's win rate)
        text += f" | {result['result']}"
    if "target" in result:
        text += f" | target: {result['target']}"
    return text


def _speed(result: dict) -> str:
    unit = result["unit"]
    if result["engine_per_second"] < 10:
        text = f"{result['game']:>9} | {result['case']}: {_rate(result['engine_per_second'], unit)}"
        if "ratio" in result:
            text += f" | baseline {_rate(result['plain_per_second'], unit)} | ratio {result['ratio']:.2f}x"
        return text
    text = (
        f"{result['game']:>9} | {result['case']}: {result['engine_per_second']:,.0f} {unit}/s "
        f"({result['engine_units']:,} {unit} in {_seconds(result)})"
    )
    if "ratio" in result:
        text += f" | plain loop {result['plain_per_second']:,.0f} {unit}/s | ratio {result['ratio']:.1f}x"
    return text
