"""Training checkpoints: one ``.npz`` file (``allow_pickle=False``) holding the learner's tables
and a JSON metadata record (settings, games done, random stream state, learning curve).

Written atomically (temporary file + fsync + rename), so a run killed at any moment leaves
either the previous checkpoint or the new one, and ``--resume`` continues from it to exactly
the result of an uninterrupted run.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.fileio import Fields, atomic_path, dumps, loads, read_npz, sanitise_text

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
    path: str | Path, lists: tuple[str, ...] = ("curve",), max_done: int = limits.MAX_EPISODES
) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(meta, tables)`` from a checkpoint file, with one clear error for any defect.

    The file is read by :func:`fsmarena.fileio.read_npz` (bounded, headers checked before any
    array is inflated, floats finite, no pickle); integer tables (counts, policies) must be
    non-negative; the metadata's common fields are validated: ``done`` a whole number in
    ``[0, max_done]``, ``rng`` an object, ``seconds`` (if present) a finite number of seconds,
    and each of ``lists`` a list.
    """
    source = f"checkpoint {path}"
    arrays = read_npz(path, "checkpoint")
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
            raise FsmarenaError(f"{source}: table '{sanitise_text(name)}' holds negative entries")
    return meta, tables


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


def restore_rng(state: Any, source: str) -> np.random.Generator:
    """A PCG64 generator positioned exactly at ``state``."""
    rng = np.random.default_rng()
    try:
        if not isinstance(state, dict) or state.get("bit_generator") != "PCG64":
            raise ValueError("not a PCG64 state")
        rng.bit_generator.state = state
    except (ValueError, TypeError, KeyError, OverflowError) as exc:
        raise FsmarenaError(f"{source}: invalid random generator state ({exc})") from None
    return rng
