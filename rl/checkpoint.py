"""Training checkpoints: one ``.npz`` file (``allow_pickle=False``) holding the learner's tables
and a JSON metadata record (settings, games done, random stream state, learning curve).

Written atomically (temporary file + fsync + rename), so a run killed at any moment leaves
either the previous checkpoint or the new one, and ``--resume`` continues from it to exactly
the result of an uninterrupted run.
"""

from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import Any

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import atomic_path, dumps, loads

FORMAT_VERSION = 1
FILENAME = "checkpoint.npz"


def save_checkpoint(path: str | Path, meta: dict[str, Any], tables: dict[str, np.ndarray]) -> None:
    """Write ``meta`` (JSON-ready) and ``tables`` to ``path`` atomically."""
    payload = {f"table_{name}": np.asarray(value) for name, value in tables.items()}
    record = {"format_version": FORMAT_VERSION, **meta}
    payload["meta"] = np.frombuffer(dumps(record).encode("utf-8"), dtype=np.uint8)
    with atomic_path(path, suffix=".npz") as tmp:
        with open(tmp, "wb") as handle:
            np.savez(handle, **payload)
            handle.flush()
            os.fsync(handle.fileno())


def load_checkpoint(path: str | Path) -> tuple[dict[str, Any], dict[str, np.ndarray]]:
    """``(meta, tables)`` from a checkpoint file, with one clear error for any defect."""
    source = f"checkpoint {path}"
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {name: data[name] for name in data.files}
    except FileNotFoundError:
        raise FsmarenaError(f"{source} does not exist") from None
    except (OSError, ValueError, zipfile.BadZipFile, EOFError) as exc:
        raise FsmarenaError(f"{source} is damaged or not an fsmarena checkpoint ({exc})") from None
    if "meta" not in arrays or arrays["meta"].dtype != np.uint8:
        raise FsmarenaError(f"{source} has no metadata record")
    try:
        text = arrays.pop("meta").tobytes().decode("utf-8")
    except UnicodeDecodeError:
        raise FsmarenaError(f"{source}: metadata is not UTF-8 text") from None
    meta = loads(text, source)
    if not isinstance(meta, dict) or meta.get("format_version") != FORMAT_VERSION:
        raise FsmarenaError(f"{source}: unsupported checkpoint format")
    tables = {name[len("table_"):]: value for name, value in arrays.items() if name.startswith("table_")}
    return meta, tables


def rng_state(rng: np.random.Generator) -> dict[str, Any]:
    """The generator's full state as JSON-ready data."""
    return rng.bit_generator.state


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
