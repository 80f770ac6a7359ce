"""Safe file input and output: atomic writes and validated, pickle-free JSON loading.

Every output file (players, results, checkpoints, figures) is written to a temporary file in
the same folder and renamed into place, so a run killed at any moment leaves either the old
file or the new one, never a half-written one.  JSON is parsed with the standard library
only (no pickle, no object hooks that build classes), with limits on size and nesting, and
every structural problem becomes a :class:`FsmarenaError` naming the file.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from pathlib import Path
from typing import Any, Iterator

from fsmarena.errors import FsmarenaError

MAX_JSON_BYTES = 64 * 1024 * 1024


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it over ``path``.

    Use it for writers that want a file name (matplotlib, numpy).  On any exception the
    temporary file is removed and ``path`` is left as it was.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(
            prefix=f".{target.name}.", suffix=suffix or target.suffix or ".tmp", dir=folder
        )
    except OSError as exc:
        raise FsmarenaError(f"cannot write {target}: {exc.strerror or exc}") from None
    os.close(fd)
    tmp_path = Path(tmp)
    try:
        yield tmp_path
        os.chmod(tmp_path, 0o666 & ~_umask())  # mkstemp makes 0600; give the usual mode
        os.replace(tmp_path, target)
    except OSError as exc:
        tmp_path.unlink(missing_ok=True)
        raise FsmarenaError(f"cannot write {target}: {exc.strerror or exc}") from None
    except BaseException:
        tmp_path.unlink(missing_ok=True)
        raise


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def write_text(path: str | os.PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically, fsync'ed so a crash cannot leave it empty."""
    with atomic_path(path) as tmp:
        with open(tmp, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())


def write_json(path: str | os.PathLike, data: Any) -> None:
    """Write ``data`` as indented JSON, atomically; non-finite floats become null."""
    write_text(path, dumps(data) + "\n")


def dumps(data: Any) -> str:
    """Serialise to JSON text, replacing NaN and infinities (not valid JSON) by null."""
    return json.dumps(_finite(data), indent=2, sort_keys=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return _finite(value.tolist())
    return value


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not allowed in fsmarena JSON files")


def read_json(path: str | os.PathLike, what: str = "file") -> Any:
    """Read a JSON file written by fsmarena (or by hand), with clear errors for bad input."""
    target = Path(path)
    try:
        size = target.stat().st_size
        if size > MAX_JSON_BYTES:
            raise FsmarenaError(f"{what} {target} is too large ({size} bytes)")
        text = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise FsmarenaError(f"{what} {target} does not exist") from None
    except IsADirectoryError:
        raise FsmarenaError(f"{what} {target} is a folder, not a file") from None
    except UnicodeDecodeError:
        raise FsmarenaError(f"{what} {target} is not UTF-8 text") from None
    except OSError as exc:
        raise FsmarenaError(f"cannot read {what} {target}: {exc.strerror or exc}") from None
    return loads(text, f"{what} {target}")


def loads(text: str, source: str = "JSON text") -> Any:
    """Parse JSON text; NaN/Infinity, huge nesting and syntax errors become FsmarenaError."""
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except RecursionError:
        raise FsmarenaError(f"{source} is nested too deeply") from None
    except ValueError as exc:  # JSONDecodeError is a ValueError
        raise FsmarenaError(f"{source} is not valid JSON: {exc}") from None


class Fields:
    """Typed access to the fields of a JSON object, each failure a clear FsmarenaError.

    ``Fields(data, "player file x.json").get("actions", list)`` returns the list or raises
    ``player file x.json: field 'actions' must be a list``.
    """

    def __init__(self, data: Any, source: str):
        if not isinstance(data, dict):
            raise FsmarenaError(f"{source}: expected a JSON object, got {type(data).__name__}")
        self.data = data
        self.source = source

    def fail(self, message: str) -> FsmarenaError:
        return FsmarenaError(f"{self.source}: {message}")

    def get(self, key: str, kind: type | tuple[type, ...], default: Any = ...) -> Any:
        if key not in self.data:
            if default is ...:
                raise self.fail(f"missing field '{key}'")
            return default
        value = self.data[key]
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if isinstance(value, bool) and bool not in kinds:
            raise self.fail(f"field '{key}' must be {_kind_name(kinds)}, got a boolean")
        if float in kinds and isinstance(value, int) and not isinstance(value, bool):
            value = float(value)
        if not isinstance(value, kinds):
            raise self.fail(f"field '{key}' must be {_kind_name(kinds)}, got {type(value).__name__}")
        return value

    def int_in(self, key: str, low: int, high: int, default: Any = ...) -> int:
        value = self.get(key, int, default)
        if not low <= value <= high:
            raise self.fail(f"field '{key}' must be between {low} and {high}, got {value}")
        return value

    def number_in(self, key: str, low: float, high: float, default: Any = ...) -> float:
        value = self.get(key, float, default)
        if not low <= value <= high:
            raise self.fail(f"field '{key}' must be between {low} and {high}, got {value}")
        return value

    def int_array(self, key: str, shape: tuple[int, ...], low: int, high: int):
        """A nested list of integers with exactly ``shape``, every entry in [low, high)."""
        import numpy as np

        raw = self.get(key, list)
        try:
            array = np.asarray(raw)
        except (ValueError, TypeError):
            raise self.fail(f"field '{key}' is not a rectangular array") from None
        if array.shape != tuple(shape):
            raise self.fail(f"field '{key}' must have shape {list(shape)}, got {list(array.shape)}")
        if array.size and array.dtype.kind not in "iu":
            raise self.fail(f"field '{key}' must hold integers")
        array = array.astype(np.int64)
        if array.size and (array.min() < low or array.max() >= high):
            raise self.fail(f"field '{key}' entries must be in [{low}, {high - 1}]")
        return array

    def float_array(self, key: str, shape: tuple[int, ...], low: float = -math.inf, high: float = math.inf):
        """A nested list of finite numbers with exactly ``shape`` within [low, high]."""
        import numpy as np

        raw = self.get(key, list)
        try:
            array = np.asarray(raw, dtype=float)
        except (ValueError, TypeError):
            raise self.fail(f"field '{key}' must be a rectangular array of numbers") from None
        if array.shape != tuple(shape):
            raise self.fail(f"field '{key}' must have shape {list(shape)}, got {list(array.shape)}")
        if not np.all(np.isfinite(array)) or (array.size and (array.min() < low or array.max() > high)):
            raise self.fail(f"field '{key}' entries must be finite numbers in [{low}, {high}]")
        return array


def _kind_name(kinds: tuple[type, ...]) -> str:
    names = {int: "an integer", float: "a number", str: "a string", list: "a list",
             dict: "an object", bool: "true or false"}
    return " or ".join(names.get(k, k.__name__) for k in kinds)
