"""One validator of stored values: what the numbers in results fsmarena reads back may be.

The readers of results (a study's replicate result files and cross-play and league files, the
published stores ``published/<study>/results.json.gz`` and their ``manifest.json``) check the
*structure* of what they read: the fields, their types, the plan they belong to.  Whether a value
is possible is one question for all of them, answered here by the value's field name, wherever
it appears in the document:

* **counts** (``games``, ``wins``, ``draws``, ``losses``, ``replicates``, ``tasks``, the games of
  a curve, machine sizes, ...): whole numbers (never ``true``), from 0 to their limit in
  :mod:`fsmarena.limits` (:data:`COUNT_LIMITS`; :data:`fsmarena.limits.MAX_STORED_COUNT` for the
  rest), alone or in (nested) lists;
* **outcomes**: an object with ``games`` and ``wins``/``draws``/``losses`` has no more of them
  than games (per entry when they are lists of one length);
* **rates** (win rates, their intervals, ``epsilon``, ``gamma``, ``crossover_rate``, ...):
  numbers in [0, 1] (``null`` where a setting may be unset);
* **seconds** (``*_seconds``): finite and not negative; **seeds**: from 0 to ``MAX_SEED``;
* **dates** (``finished``, ``added``): ISO dates (``2026-11-26``), not any text;
* **booleans** (``exact_fitness``, ``compare_at_smallest_budget``, ...): ``true`` or ``false``,
  never ``1`` or ``"yes"``;
* a gzip store is **exactly one gzip member and nothing after it** (:func:`check_one_member`):
  trailing bytes or a second member would otherwise be ignored without a word.

A value outside its range is one :class:`FsmarenaError` naming the file and the field's path
(``study result r000.json: panel.random: field 'games' must be between 0 and ..., got -5``);
a study then recomputes the replicate from its seed, ``publish`` refuses the store.
"""

from __future__ import annotations

import datetime
import math
import zlib
from itertools import chain
from typing import Any, Iterator

from fsmarena import limits
from fsmarena.errors import FsmarenaError

#: fields holding counts, with their limit when it is tighter than MAX_STORED_COUNT
COUNT_LIMITS: dict[str, int] = {
    "replicates": limits.MAX_COUNT,
    "tasks": limits.MAX_COUNT,
    "panel_games": limits.MAX_GAMES,
    "eval_games": limits.MAX_GAMES,
    "check_games": limits.MAX_GAMES,
    "confirm_games": limits.MAX_GAMES,
    "table_games": limits.MAX_GAMES,
    "league_games": limits.MAX_GAMES,
    "sampled_games": limits.MAX_GAMES,
    "usage_games": limits.MAX_GAMES,
    "episodes": limits.MAX_EPISODES,
    "generations": limits.MAX_COUNT,
    "iterations": limits.MAX_COUNT,
    "sweeps": limits.MAX_COUNT,
    "population": limits.MAX_POPULATION,
    "states": limits.MAX_COUNT,
    "reachable_states": limits.MAX_COUNT,
    "effective_states": limits.MAX_COUNT,
    "effective_states_in_play": limits.MAX_COUNT,
}
COUNTS = frozenset(
    {"games", "wins", "draws", "losses", "other_wins", "curve_games", "games_used", "entries", "entries_used"}
    | set(COUNT_LIMITS)
)
#: the outcome counts an object's ``games`` bounds
OUTCOMES = ("wins", "draws", "losses")
#: fields holding rates or probabilities
RATES = frozenset(
    {
        "curve_win",
        "win",
        "win_rate",
        "win_ci95",
        "draw_rate",
        "loss_rate",
        "mean_win_rate",
        "epsilon",
        "epsilon_final",
        "gamma",
        "crossover_rate",
        "mutation_rate",
        "panel_weight",
    }
)
#: fields holding ISO dates
DATES = frozenset({"finished", "added"})
#: fields holding booleans
BOOLEANS = frozenset({"exact_fitness", "compare_at_smallest_budget", "all_equal"})
SEEDS = frozenset({"seed"})
#: fields holding what has a reader of its own: a player file's content (the player reader)
UNWALKED = frozenset({"player"})


def check_stored(data: Any, source: str) -> None:
    """FsmarenaError (one line naming ``source`` and the field) for the first value of ``data``
    (decoded JSON: objects, lists, numbers, texts) outside what its field may hold (module
    docstring).  Walked without recursion; fields the rules do not name are left to the
    reader's own checks."""
    for container, key, value in _fields(data):
        where = f"{source}: {container + ': ' if container else ''}field '{key}'"
        if isinstance(value, dict) or (isinstance(value, list) and _holds_objects(value)):
            pass  # a structure, not a value: its own fields are walked
        elif key in COUNTS:
            _counts(value, COUNT_LIMITS.get(key, limits.MAX_STORED_COUNT), where)
        elif key in RATES:
            _numbers(value, 0.0, 1.0, where, "between 0.0 and 1.0")
        elif key in SEEDS:
            _counts(value, limits.MAX_SEED, where)
        elif key == "seconds" or key.endswith("_seconds"):
            _numbers(value, 0.0, math.inf, where, "a finite number, at least 0")
        elif key in DATES:
            check_date(value, where)
        elif key in BOOLEANS and not isinstance(value, bool):
            raise FsmarenaError(f"{where} must be true or false, got {_shown(value)}")
        if isinstance(value, dict) and "games" in value:
            inner = f"{container}.{key}" if container else str(key)
            _counts(value["games"], limits.MAX_STORED_COUNT, f"{source}: {inner}: field 'games'")
            check_outcomes(value, f"{source}: {inner}")


def check_outcomes(entry: dict[str, Any], where: str) -> None:
    """``games`` at least ``wins + draws + losses`` (entry by entry for lists of one length)."""
    games = entry["games"]
    parts = [entry[k] for k in OUTCOMES if k in entry]
    if not parts or isinstance(games, bool) or not isinstance(games, int):
        return
    if all(isinstance(p, int) and not isinstance(p, bool) for p in parts):
        if sum(parts) > games:
            raise FsmarenaError(f"{where}: {' + '.join(k for k in OUTCOMES if k in entry)} exceed its {games} games")
    elif all(isinstance(p, list) for p in parts) and len({len(p) for p in parts}) == 1:
        for index, counts in enumerate(zip(*parts)):
            if all(isinstance(c, int) for c in counts) and sum(counts) > games:
                raise FsmarenaError(f"{where}: entry {index}'s outcomes exceed its {games} games")


def check_date(value: Any, where: str) -> datetime.date:
    """An ISO date (``YYYY-MM-DD``, as fsmarena writes it) or one FsmarenaError."""
    if isinstance(value, str) and len(value) == 10:
        try:
            return datetime.date.fromisoformat(value)
        except ValueError:
            pass
    raise FsmarenaError(f"{where} must be a date (YYYY-MM-DD), got {_shown(value)}")


def check_one_member(reader: "zlib._Decompress", source: str) -> None:
    """After a gzip stream has ended (``reader.eof``): FsmarenaError if anything follows it,
    trailing bytes or a second gzip member, which ``zlib`` would leave unread without a word."""
    if reader.unused_data:
        raise FsmarenaError(
            f"{source} holds {len(reader.unused_data):,} bytes after its gzip data "
            "(a second gzip member or trailing bytes): a store is exactly one gzip member"
        )


def _fields(data: Any) -> Iterator[tuple[str, str, Any]]:
    """Every ``(container, key, value)`` of the objects nested in ``data`` (``container``: the
    path of the object holding the field, ``""`` at the top), depth first; lists that hold no
    object, the bulk of a store, are not walked."""
    stack: list[tuple[str, Any]] = [("", data)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, dict):
            for key, value in node.items():
                here = f"{path}.{key}" if path else str(key)
                yield path, str(key), value
                if key in UNWALKED:
                    continue
                if isinstance(value, dict) or (isinstance(value, list) and _holds_objects(value)):
                    stack.append((here, value))
        elif isinstance(node, list):  # a bare value (None, a number, a text) holds no field: its reader checks it
            stack.extend(
                (f"{path}[{i}]", item)
                for i, item in enumerate(node)
                if isinstance(item, dict) or (isinstance(item, list) and _holds_objects(item))
            )


def _holds_objects(items: list) -> bool:
    """Whether a (nested) list holds an object anywhere, a level at a time at C speed."""
    level = items
    while level:
        kinds = set(map(type, level))
        if dict in kinds:
            return True
        if list not in kinds:
            return False
        level = list(chain.from_iterable(item for item in level if type(item) is list))
    return False


def _scalars(items: list) -> bool:
    """Whether a list holds no list or object."""
    return not (set(map(type, items)) & {list, dict})


def _leaves(value: Any) -> Iterator[list]:
    """The flat lists of scalars a value is made of (a scalar is a list of one)."""
    stack = [value]
    while stack:
        node = stack.pop()
        if not isinstance(node, list):
            yield [node]
        elif _scalars(node):
            yield node
        else:
            stack.extend(node)


def _counts(value: Any, limit: int, where: str) -> None:
    for items in _leaves(value):
        present = [item for item in items if item is not None]
        if present and (
            not set(map(type, present)) <= {int} or min(present) < 0 or max(present) > limit
        ):  # type(True) is bool, not int
            wrong = next(i for i in present if type(i) is not int or not 0 <= i <= limit)
            raise FsmarenaError(f"{where} must be between 0 and {limit} (a whole number), got {_shown(wrong)}")


def _numbers(value: Any, low: float, high: float, where: str, wanted: str) -> None:
    for items in _leaves(value):
        present = [item for item in items if item is not None]
        if present and not (
            set(map(type, present)) <= {int, float}
            and all(map(math.isfinite, present))
            and low <= min(present)
            and max(present) <= high
        ):
            wrong = next(
                i for i in present if type(i) not in (int, float) or not math.isfinite(i) or not low <= i <= high
            )
            raise FsmarenaError(f"{where} must be {wanted}, got {_shown(wrong)}")


def _shown(value: Any) -> str:
    text = repr(value) if not isinstance(value, str) else repr(value[: limits.MAX_SHOWN_CHARS])
    return text[: limits.MAX_SHOWN_CHARS + 2]
