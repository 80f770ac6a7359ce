"""Arguments and helpers shared by several sub-commands."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Any

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import dumps
from fsmarena.games import get_game
from fsmarena.games.registry import game_names
from fsmarena.outdir import claim_folder
from fsmarena.parallel import dask_address, use_dask
from fsmarena.text import clean_text


def _whole_number(
    text: str,
    low: int,
    message: str,
    allowed: tuple[int, ...] = (),
    high: int = limits.MAX_COUNT,
    name: str = "MAX_COUNT",
) -> int:
    if len(text) > 30:
        raise argparse.ArgumentTypeError(f"'{clean_text(text, 30)}' is too long to be a whole number")
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{clean_text(text, 40)}' is not a whole number") from None
    if value < low and value not in allowed:
        raise argparse.ArgumentTypeError(message.format(value=value))
    if value > high:
        raise argparse.ArgumentTypeError(f"is {limits.shown(value)}; the limit is {high:,} ({name})")
    return value


def positive_int(text: str) -> int:
    return _whole_number(text, 1, "must be a positive whole number, got {value}")


def non_negative_int(text: str) -> int:
    return _whole_number(text, 0, "must be zero or more, got {value}")


def games_count(text: str) -> int:
    """A number of games (``--games``, games per pair or per evaluation), at most MAX_GAMES."""
    return _whole_number(
        text, 1, "must be a positive whole number, got {value}", high=limits.MAX_GAMES, name="MAX_GAMES"
    )


def episodes_count(text: str) -> int:
    """Training games (``--episodes``), at most MAX_EPISODES."""
    return _whole_number(
        text, 1, "must be a positive whole number, got {value}", high=limits.MAX_EPISODES, name="MAX_EPISODES"
    )


def population_size(text: str) -> int:
    return _whole_number(
        text, 1, "must be a positive whole number, got {value}", high=limits.MAX_POPULATION, name="MAX_POPULATION"
    )


def states_count(text: str) -> int:
    return _whole_number(
        text, 1, "must be a positive whole number, got {value}", high=limits.MAX_STATES, name="MAX_STATES"
    )


def seed_value(text: str) -> int:
    return _whole_number(text, 0, "must be zero or more, got {value}", high=limits.MAX_SEED, name="MAX_SEED")


def jobs_count(text: str) -> int:
    """Worker processes: 1 to :func:`fsmarena.limits.max_jobs`, or -1 for every core."""
    return _whole_number(
        text,
        1,
        "must be a positive number of processes, or -1 for all cores",
        allowed=(-1,),
        high=limits.max_jobs(),
        name="MAX_JOBS: 4 per core, at most 64",
    )


def output_path(text: str) -> str:
    """An ``--out`` path: anything but the empty string, which the file system would take for
    the current folder (a run would then lock, mark and fill it) or a writer for "no output"."""
    if not text:
        raise argparse.ArgumentTypeError("is empty; name a file or folder (use '.' for the current folder)")
    return text


def add_game(parser: argparse.ArgumentParser) -> None:
    """The GAME positional argument and repeatable ``--param key=value``."""

    parser.add_argument("game", metavar="GAME", help=", ".join(game_names()))
    add_params(parser, "game rule parameter (repeatable), e.g. --param hand_size=4")


def add_params(parser: argparse.ArgumentParser, help: str) -> None:
    """Repeatable ``--param key=value`` (game rules)."""
    parser.add_argument("--param", action="append", default=[], metavar="KEY=VALUE", help=help)


def add_seed_jobs(parser: argparse.ArgumentParser, jobs: bool = True) -> None:
    parser.add_argument("--seed", type=seed_value, default=0, help="master random seed (default 0)")
    if jobs:
        parser.add_argument(
            "--jobs", type=jobs_count, default=1, help="worker processes (results are identical for any value)"
        )


def add_dask(parser: argparse.ArgumentParser) -> None:
    """``--dask ADDRESS``: run the parallel chunks on a dask.distributed scheduler."""
    parser.add_argument(
        "--dask",
        metavar="ADDRESS",
        default=None,
        help="dask scheduler address, or 'local' for a LocalCluster on this machine "
        "(default: the FSMARENA_DASK environment variable, else local processes)",
    )


def parallel_backend(args: argparse.Namespace):
    """A context manager activating the dask backend if ``--dask``/FSMARENA_DASK asks for it."""

    workers = max(1, getattr(args, "jobs", 2) if getattr(args, "jobs", 2) > 0 else os.cpu_count() or 2)
    return use_dask(dask_address(getattr(args, "dask", None)), workers=workers)


def add_json(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print one JSON object on stdout")


def game_from_args(args: argparse.Namespace):
    params = {}
    for item in args.param:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise FsmarenaError(f"--param expects KEY=VALUE, got '{item}'")
        params[key.strip()] = value.strip()
    return get_game(args.game, params)


def print_json(data: Any) -> None:
    sys.stdout.write(dumps(data) + "\n")


def prepare_out(path: str, kind: str) -> Path:
    """Claim the output folder for a ``kind`` run (created, writable, locked for this run, not
    another command's folder; see :mod:`fsmarena.outdir`) before any work starts."""

    return claim_folder(path, kind)
