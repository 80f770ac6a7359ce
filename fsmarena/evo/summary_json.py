"""A strategy summary and a transcript as JSON a published store can keep, and read back checked.

:meth:`fsmarena.evo.strategy_summary.StrategySummary.to_dict` is written for people (situations in
words only); a card must be redrawn from what is stored, so :func:`summary_to_json` keeps the
input codes, their words and every count, and :func:`read_summary` rebuilds the very summary
(its :meth:`~fsmarena.evo.strategy_summary.StrategySummary.rows` equal the original's).  Every
malformed value is one :class:`~fsmarena.errors.FsmarenaError` naming where it is.
"""

from __future__ import annotations

from typing import Any, Sequence

from fsmarena.errors import FsmarenaError
from fsmarena.evo.strategy_summary import Group, StateSummary, StrategySummary
from fsmarena.evo.transcript import Move, Transcript
from fsmarena.fileio import Fields
from fsmarena.limits import MAX_STORED_COUNT


def _group_json(group: Group) -> dict[str, Any]:
    return {"key": group.key, "count": group.count, "inputs": [list(pair) for pair in group.inputs]}


def summary_to_json(summary: StrategySummary) -> dict[str, Any]:
    """Everything of ``summary``; ``machine_states`` (not ``states``, a count elsewhere)."""
    return {
        "kind": summary.kind,
        "label": summary.label,
        "game": summary.game,
        "inputs": summary.inputs,
        "opponents": list(summary.opponents),
        "games": summary.games,
        "decisions": summary.decisions,
        "machine_states": [
            {
                "state": s.state,
                "decisions": s.decisions,
                "actions": [_group_json(g) for g in s.actions],
                "moves": [_group_json(g) for g in s.moves],
            }
            for s in summary.states
        ],
        "words": [[code, words] for code, words in sorted(summary.words.items())],
        "action_names": list(summary.actions),
        "meanings": dict(summary.meanings),
        "legend": dict(summary.legend),
        "tests": [[state, test] for state, test in sorted(summary.tests.items())],
    }


def _count(value: Any, where: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_STORED_COUNT:
        raise FsmarenaError(f"{where} must be a whole number from 0 to {MAX_STORED_COUNT}, got {value!r}")
    return value


def _texts(value: Any, where: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise FsmarenaError(f"{where} must be a list of texts")
    return value


def _text_map(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise FsmarenaError(f"{where} must map names to texts")
    return dict(value)


def _pairs(value: Any, where: str, second: type) -> list[tuple[int, Any]]:
    """``[[whole number, second], ...]``."""
    if not isinstance(value, list):
        raise FsmarenaError(f"{where} must be a list of pairs")
    found = []
    for pair in value:
        if not isinstance(pair, list) or len(pair) != 2 or not isinstance(pair[1], second):
            raise FsmarenaError(f"{where} must be a list of [number, {second.__name__}] pairs")
        found.append((_count(pair[0], where), pair[1]))
    return found


def _group(raw: Any, where: str, keys: int, words: dict[int, str]) -> Group:
    f = Fields(raw, where)
    key = f.int_in("key", 0, keys - 1)
    inputs = tuple((code, _count(n, f"{where}: inputs")) for code, n in _pairs(f.get("inputs", list), where, int))
    if any(code not in words for code, _n in inputs):
        raise FsmarenaError(f"{where}: a situation without words")
    count = _count(f.get("count", int), f"{where}: count")
    if sum(n for _c, n in inputs) != count:
        raise FsmarenaError(f"{where}: the situations' counts do not add up to its count {count}")
    return Group(key, count, inputs)


def _state(raw: Any, where: str, n_actions: int, words: dict[int, str]) -> StateSummary:
    f = Fields(raw, where)
    decisions = _count(f.get("decisions", int), f"{where}: decisions")
    actions = tuple(
        _group(g, f"{where}: action {k + 1}", n_actions, words) for k, g in enumerate(f.get("actions", list))
    )
    moves = tuple(
        _group(g, f"{where}: move {k + 1}", MAX_STORED_COUNT, words) for k, g in enumerate(f.get("moves", list))
    )
    if sum(g.count for g in actions) != decisions:
        raise FsmarenaError(f"{where}: the actions' counts do not add up to its {decisions} decisions")
    return StateSummary(_count(f.get("state", int), f"{where}: state"), decisions, actions, moves)


def read_summary(raw: Any, source: str) -> StrategySummary:
    """The summary :func:`summary_to_json` wrote, every count checked against the others."""
    f = Fields(raw, source)
    actions = _texts(f.get("action_names", list), f"{source}: action_names")
    words = dict(_pairs(f.get("words", list), f"{source}: words", str))
    states = [
        _state(s, f"{source}: state {k + 1}", len(actions), words) for k, s in enumerate(f.get("machine_states", list))
    ]
    decisions = _count(f.get("decisions", int), f"{source}: decisions")
    if sum(s.decisions for s in states) != decisions:
        raise FsmarenaError(f"{source}: the states' decisions do not add up to {decisions}")
    return StrategySummary(
        kind=f.get("kind", str),
        label=f.get("label", str),
        game=f.get("game", str),
        inputs=f.get("inputs", str),
        opponents=_texts(f.get("opponents", list), f"{source}: opponents"),
        games=_count(f.get("games", int), f"{source}: games"),
        decisions=decisions,
        states=states,
        words=words,
        actions=actions,
        meanings=_text_map(f.get("meanings", dict), f"{source}: meanings"),
        legend=_text_map(f.get("legend", dict), f"{source}: legend"),
        tests=dict(_pairs(f.get("tests", list), f"{source}: tests", str)),
    )


def _move(raw: Any, where: str, actions: Sequence[str]) -> Move:
    f = Fields(raw, where)
    states = [f.get(k, (int, type(None))) for k in ("before", "after")]
    if any(s is not None and s < 0 for s in states):
        raise FsmarenaError(f"{where}: a machine state must not be negative")
    action = f.int_in("action", 0, len(actions) - 1)
    if f.get("action_name", str) != actions[action]:
        raise FsmarenaError(f"{where}: 'action_name' is not the name of action {action}")
    return Move(
        f.int_in("seat", 0, 63),
        f.int_in("step", 0, MAX_STORED_COUNT),
        f.int_in("index", 0, MAX_STORED_COUNT),
        f.get("situation", str),
        states[0],
        states[1],
        action,
        actions[action],
    )


def read_transcript(raw: Any, source: str, actions: Sequence[str]) -> Transcript:
    """The game :meth:`fsmarena.evo.transcript.Transcript.to_dict` wrote, checked."""
    f = Fields(raw, source)
    players = _texts(f.get("players", list), f"{source}: players")
    moves = [_move(m, f"{source}: move {k + 1}", actions) for k, m in enumerate(f.get("moves", list))]
    if any(m.seat >= len(players) for m in moves):
        raise FsmarenaError(f"{source}: a move by a seat without a player")
    numbers = []
    for name in ("scores", "rewards"):
        value = f.get(name, list)
        if len(value) != len(players) or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) and abs(v) < 1e12 for v in value
        ):
            raise FsmarenaError(f"{source}: '{name}' must hold one number per player")
        numbers.append([float(v) for v in value])
    if len(players) > 1 and any(r not in (-1.0, 0.0, 1.0) for r in numbers[1]):
        raise FsmarenaError(f"{source}: a reward must be -1, 0 or 1")
    return Transcript(players, moves, numbers[0], numbers[1])
