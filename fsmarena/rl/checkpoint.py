"""Training checkpoints: one ``.npz`` file (``allow_pickle=False``) holding the learner's tables
and a JSON metadata record (settings, games done, random stream state, learning curve).

Written atomically (temporary file + fsync + rename), so a run killed at any moment leaves
either the previous checkpoint or the new one, and ``--resume`` continues from it to exactly
the result of an uninterrupted run.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping

import numpy as np

from fsmarena import limits, run_loop
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, atomic_path, dumps, loads, read_npz
from fsmarena.text import clean_text

FORMAT_VERSION = 1
FILENAME = "checkpoint.npz"


def save_checkpoint(path: str | Path, meta: dict[str, Any], tables: dict[str, np.ndarray]) -> None:
    """Write ``meta`` (JSON-ready) and ``tables`` to ``path`` atomically."""
    payload = {f"table_{name}": np.asarray(value) for name, value in tables.items()}
    record = {"format_version": FORMAT_VERSION, **meta}
    payload["meta"] = np.frombuffer(dumps(record).encode("utf-8"), dtype=np.uint8)
    with atomic_path(path, suffix=".npz") as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, **payload)  # type: ignore[arg-type]
            handle.flush()
            os.fsync(handle.fileno())


def load_checkpoint(
    path: str | Path,
    lists: tuple[str, ...] = ("curve",),
    max_done: int = limits.MAX_EPISODES,
    expected: Mapping[str, np.ndarray | None] | None = None,
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(meta, tables)`` from a checkpoint file, with one clear error for any defect.

    The file is read by :func:`fsmarena.fileio.read_npz` (bounded, headers checked before any
    array is inflated, floats finite, no pickle).  ``expected`` names every table the run may
    find (a template of the right shape and type, or ``None`` for one checked by the caller):
    a table of another name, shape or type is then refused from its ``.npy`` header, before
    its data costs any memory (:func:`check_header`).  Integer tables (counts, policies) must
    be non-negative; the metadata's common fields are validated: ``done`` a whole number in
    ``[0, max_done]``, ``rng`` an object, ``seconds`` (if present) a finite number of seconds,
    and each of ``lists`` a list.
    """
    source = f"checkpoint {path}"
    arrays = read_npz(path, "checkpoint", functools.partial(_check_member, expected=expected, source=source))
    meta_bytes = arrays.pop("meta", None)
    if meta_bytes is None or meta_bytes.dtype != np.uint8 or meta_bytes.ndim != 1:
        raise FsmarenaError(f"{source} has no metadata record")
    try:
        text = meta_bytes.tobytes().decode("utf-8")
    except UnicodeDecodeError:
        raise FsmarenaError(f"{source}: metadata is not UTF-8 text") from None
    meta = loads(text, source)
    if not isinstance(meta, dict) or meta.get("format_version") != FORMAT_VERSION:
        raise FsmarenaError(f"{source}: unsupported checkpoint format")
    _check_meta(Fields(meta, source), lists, max_done)
    tables = {name[len("table_") :]: value for name, value in arrays.items() if name.startswith("table_")}
    for name, value in tables.items():
        if value.dtype.kind in "iu" and value.size and value.min() < 0:
            raise FsmarenaError(f"{source}: table '{clean_text(name)}' holds negative entries")
        if value.dtype.kind in "iu" and value.size and value.max() > limits.MAX_TABLE_COUNT:
            raise FsmarenaError(
                f"{source}: table '{clean_text(name)}' holds counts above "
                f"{limits.shown(limits.MAX_TABLE_COUNT)} (MAX_TABLE_COUNT), more than a run can make"
            )
    return meta, tables


def _check_member(
    name: str, shape: tuple[int, ...], dtype: np.dtype, expected: Mapping[str, np.ndarray | None] | None, source: str
) -> None:
    """A checkpoint member's ``.npy`` header against what this run can use (see load_checkpoint)."""
    if name == "meta":
        if dtype != np.uint8 or len(shape) != 1 or shape[0] > limits.MAX_JSON_BYTES:
            raise FsmarenaError(f"{source}: the metadata record is not at most {limits.MAX_JSON_BYTES} bytes of text")
        return
    table = name[len("table_") :]
    if expected is None:
        return
    if not name.startswith("table_") or table not in expected:
        raise FsmarenaError(f"{source}: unexpected table '{clean_text(table, limits.MAX_SHOWN_CHARS)}'")
    template = expected[table]
    if template is not None:
        check_header(shape, dtype, template, f"{source}: table '{clean_text(table)}'")


def _check_meta(fields: Fields, lists: tuple[str, ...], max_done: int) -> None:
    fields.int_in("done", 0, max_done)
    fields.get("rng", dict)
    if "seconds" in fields.data:
        fields.number_in("seconds", 0.0, 1e12)
    for name in lists:
        fields.get(name, list)


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """The generator's full state as JSON-ready data."""
    return dict(rng.bit_generator.state)


# ---- what a resumed run may trust -------------------------------------------------------------


@dataclass(frozen=True)
class Column:
    """What one column of a row kept in a checkpoint (a learning-curve point, a batch's
    metrics) may hold: a whole number (``int``), a finite number (``float``) or a string
    (``str``, one of ``choices`` when given) within ``[low, high]`` (``high`` may be the limit
    named ``limit``); ``empty`` also allows
    ``""`` and ``null`` (a blank cell, or a NaN written as ``null``).

    A resumed run writes these rows out again (CSV, plots, run summaries), so every one is
    checked on read: a tampered row is refused with one line instead of failing half-way
    through writing the outputs.
    """

    kind: type
    low: float = -math.inf
    high: float = math.inf
    empty: bool = False
    choices: tuple[str, ...] | None = None
    #: the constant of :mod:`fsmarena.limits` that ``high`` is, if any (named in the error)
    limit: str = ""

    def accepts(self, value: Any) -> bool:
        if self.empty and (value is None or value == ""):
            return True
        if self.kind is str:
            return isinstance(value, str) and (self.choices is None or value in self.choices)
        numeric = int if self.kind is int else (int, float)
        return isinstance(value, numeric) and not isinstance(value, bool) and self.low <= value <= self.high

    def describe(self) -> str:
        if self.kind is str:
            if self.choices is None:
                text = "a string"
            elif self.choices == ("",):
                text = "empty"
            else:
                text = "one of " + ", ".join(repr(c) for c in self.choices)
        else:
            text = "a whole number" if self.kind is int else "a number"
            if math.isfinite(self.low) or math.isfinite(self.high):
                text += f" in [{_bound(self.low)}, {_bound(self.high)}]"
                text += f" ({self.limit})" if self.limit else ""
        return text + (" or empty" if self.empty else "")


def _bound(value: float) -> str:
    return "inf" if value == math.inf else ("-inf" if value == -math.inf else limits.shown(value))


#: a value read from a file, bounded for an error message (one definition: the run loop's)
echoed = run_loop.echoed


def check_rows(rows: list[Any], columns: dict[str, Column], source: str, name: str) -> list[dict[str, Any]]:
    """``rows`` (a list read from a checkpoint's metadata) checked in full: every row an object
    with exactly the keys of ``columns``, every value accepted by its column, and the rows in
    order of their ``games`` column when there is one.  Returns the rows (FsmarenaError naming
    the row and the key otherwise)."""
    keys = set(columns)
    previous = -math.inf
    for number, row in enumerate(rows):
        where = f"{source}: {name} row {number}"
        if not isinstance(row, dict) or set(row) != keys:
            if isinstance(row, dict):
                odd = sorted(keys - set(row), key=str)[:1] or sorted(set(row) - keys, key=str)[:1]
                got = f"{'missing' if odd[0] in keys else 'unexpected'} key {echoed(odd[0])}"
            else:
                got = f"got {echoed(row)}"
            raise FsmarenaError(f"{where} must be an object with the keys {', '.join(columns)} ({got})")
        for key, column in columns.items():
            if not column.accepts(row[key]):
                raise FsmarenaError(f"{where}: '{key}' must be {column.describe()}, got {echoed(row[key])}")
        if "games" in columns:
            if row["games"] < previous:
                raise FsmarenaError(f"{where}: rows must be in order of 'games' ({row['games']} after {previous})")
            previous = row["games"]
    return rows


def check_table(value: Any, current: np.ndarray, source: str, name: str) -> np.ndarray:
    """A checkpoint table that can replace ``current`` exactly: present, of the same shape and
    of the same dtype kind (integer counts stay integers, float values floats, masks booleans),
    converted only when that is lossless (``float32`` to ``float64``, either byte order; a
    wider type such as ``float128`` is refused).  Returns ``value`` (FsmarenaError otherwise)."""
    label = f"{source}: table '{clean_text(name)}'"
    if not isinstance(value, np.ndarray):
        raise FsmarenaError(f"{label} is missing; expected shape {list(current.shape)}")
    check_header(value.shape, value.dtype, current, label)
    return value


def check_header(shape: tuple[int, ...], dtype: np.dtype, current: np.ndarray, label: str) -> None:
    """The shape and type rule of :func:`check_table`, on an array's header alone (so a
    checkpoint's ``.npy`` header can be refused before its data is read)."""
    if tuple(shape) != current.shape:
        raise FsmarenaError(f"{label} has shape {list(shape)}; expected shape {list(current.shape)}")
    if dtype.kind != current.dtype.kind or not np.can_cast(dtype, current.dtype, "safe"):
        raise FsmarenaError(f"{label} has type {dtype}; expected {_kinds(current)} values ({current.dtype})")


def _kinds(array: np.ndarray) -> str:
    return {"b": "boolean", "i": "signed integer", "u": "unsigned integer", "f": "float"}.get(array.dtype.kind, "type")
