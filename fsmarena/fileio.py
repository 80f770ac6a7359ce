"""Safe file input and output: atomic writes and validated, pickle-free JSON loading.

Every output file (players, results, checkpoints, figures) is written to a temporary file in
the same folder and renamed into place, so a run killed at any moment leaves either the old
file or the new one, never a half-written one.  JSON is parsed with the standard library
only (no pickle, no object hooks that build classes), with limits on size and nesting, and
every structural problem becomes a :class:`FsmarenaError` naming the file.
"""

from __future__ import annotations

import contextlib
import io
import json
import math
import os
import stat
import tempfile
import zipfile
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np
from numpy.lib import format as npy

from fsmarena import limits
from fsmarena.errors import FsmarenaError
from fsmarena.text import clean_text as sanitise_text  # the one cleaner (fsmarena.text); old name kept

MAX_JSON_BYTES = limits.MAX_JSON_BYTES


@contextlib.contextmanager
def atomic_path(path: str | os.PathLike, suffix: str | None = None) -> Iterator[Path]:
    """Yield a temporary path beside ``path``; on success rename it over ``path``.

    Use it for writers that want a file name (matplotlib, numpy).  On any exception the
    temporary file is removed and ``path`` is left as it was.
    """
    target = Path(path)
    folder = target.parent if str(target.parent) else Path(".")
    check_output_file(target)
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.tmp-", suffix=suffix or target.suffix or ".tmp", dir=folder)
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


#: checks every reader and writer of this module makes first, ``check(path, reading)``: the output
#: folders' rule that no link inside them is followed (:func:`fsmarena.outdir.check_no_links`,
#: which adds itself here; this module is below it and cannot import it)
PATH_CHECKS: list[Callable[[Path, bool], None]] = []


def check_path(path: str | os.PathLike, reading: bool) -> None:
    """Run :data:`PATH_CHECKS` on a path about to be read (``reading``) or written."""
    for check in PATH_CHECKS:
        check(Path(path), reading)


def check_output_file(path: str | os.PathLike) -> None:
    """Refuse, before any work, an output path that cannot be written: writers rename a
    temporary file over the target, which must not destroy a FIFO or a device node, so only a
    regular file (or a symbolic link, replaced itself) may be there; and name the part of the
    path that is a file where a folder is needed (mkdir's own message says only "File exists")."""
    target = Path(path)
    check_path(target, reading=False)
    folder = target.parent if str(target.parent) else Path(".")
    for parent in (folder, *folder.parents):
        if parent.is_dir():
            break
        if parent.exists() or parent.is_symlink():
            raise FsmarenaError(f"cannot write {target}: {parent} is not a folder")
    try:
        mode: int | None = os.lstat(target).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise FsmarenaError(f"cannot write {target}: {exc.strerror or exc}") from None
    if mode is not None and stat.S_ISDIR(mode):
        raise FsmarenaError(f"cannot write {target}: it is a folder")
    if mode is not None and not (stat.S_ISREG(mode) or stat.S_ISLNK(mode)):
        raise FsmarenaError(f"cannot write {target}: it exists and is not a regular file (a device, pipe or socket)")


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


def dumps(data: Any, indent: int | None = 2) -> str:
    """Serialise to JSON text, replacing NaN and infinities (not valid JSON) by null; numpy
    values are written as the Python values their ``tolist`` gives.

    Most data holds no non-finite float, so it is encoded as it is (the encoder refuses a
    non-finite float and asks :func:`_plain` for numpy values); only data it refuses is walked
    and cleaned first.  Both give the same text, and the walk over every value (millions of
    calls for a study's results) is skipped for the rest.  ``indent=None``: one line without
    spaces (a store's compressed results, where indentation was five sixths of the text).
    """
    separators = None if indent is not None else (",", ":")  # no indent: no spaces either (machine data)
    try:
        return json.dumps(data, indent=indent, separators=separators, allow_nan=False, default=_plain)
    except ValueError:
        return json.dumps(_finite(data), indent=indent, separators=separators)


def _plain(value: Any) -> Any:
    """A numpy scalar or array as Python values (the encoder's fallback for other types)."""
    if hasattr(value, "tolist"):
        return value.tolist()
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _finite(value: Any) -> Any:
    """``value`` with every non-finite float replaced by None and numpy values by Python ones."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(v) for v in value]
    if hasattr(value, "tolist"):  # numpy scalars and arrays
        return _finite(value.tolist())
    return value


class _OutOfRange(ValueError):
    """A JSON number fsmarena refuses (non-finite, or too large for a float or an int64)."""


def _reject_constant(name: str) -> Any:
    raise _OutOfRange(f"{name} is not allowed (numbers must be finite)")


def _parse_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _OutOfRange(f"the number {text[:40]} is out of range (numbers must fit a 64-bit float)")
    return value


def _parse_int(text: str) -> int:
    if len(text.lstrip("-")) > limits.MAX_JSON_INT_DIGITS:
        raise _OutOfRange(f"the integer {text[:40]}... has more than {limits.MAX_JSON_INT_DIGITS} digits")
    return int(text)


def read_bytes(
    path: str | os.PathLike, what: str = "file", limit: int = limits.MAX_JSON_BYTES, follow_links: bool = True
) -> bytes:
    """The bytes of a regular file, at most ``limit`` of them, or one clear FsmarenaError.

    The file is opened by :func:`open_regular_file`, and at most ``limit + 1`` bytes are read
    whatever the file's size claims (``/dev/zero`` and ``/proc`` files report 0).
    """
    with open_regular_file(path, what, limit, follow_links) as handle:
        try:
            data = _read_at_most(handle.fileno(), limit + 1)
        except OSError as exc:
            raise FsmarenaError(f"cannot read {what} {path}: {exc.strerror or exc}") from None
        size = os.fstat(handle.fileno()).st_size
    if len(data) > limit:
        raise FsmarenaError(f"{what} {path} is too large (more than {limit} bytes)")
    if size == 0 and data:
        raise FsmarenaError(f"{what} {path} is not a regular file (a pseudo-file of unknown size)")
    return data


@contextlib.contextmanager
def open_regular_file(
    path: str | os.PathLike, what: str, limit: int, follow_links: bool = True
) -> Iterator[io.BufferedReader]:
    """A binary file object on ``path`` if it is a regular file of at most ``limit`` bytes, or
    one clear FsmarenaError.  The file is opened without blocking (a FIFO does not hang the
    open) and anything that is not a regular file (device, FIFO, socket, folder) is refused;
    ``follow_links=False`` also refuses a symbolic link (for files fsmarena itself keeps, such
    as an output folder's control files, which are never links)."""
    target = Path(path)
    check_path(target, reading=True)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    if not follow_links:
        if os.path.islink(target):
            raise FsmarenaError(f"{what} {target} is a symbolic link, not a regular file")
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags)
    except FileNotFoundError:
        raise FsmarenaError(f"{what} {target} does not exist") from None
    except OSError as exc:
        raise FsmarenaError(f"cannot read {what} {target}: {exc.strerror or exc}") from None
    info = os.fstat(fd)
    problem = None
    if stat.S_ISDIR(info.st_mode):
        problem = "is a folder, not a file"
    elif not stat.S_ISREG(info.st_mode):
        problem = "is not a regular file (a device, pipe or socket)"
    elif info.st_size > limit:
        problem = f"is too large ({info.st_size} bytes; the limit is {limit})"
    if problem:
        os.close(fd)
        raise FsmarenaError(f"{what} {target} {problem}")
    with os.fdopen(fd, "rb") as handle:
        yield handle


def _read_at_most(fd: int, count: int) -> bytes:
    chunks, left = [], count
    while left > 0:
        chunk = os.read(fd, min(left, 1 << 20))
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


def read_text(path: str | os.PathLike, what: str = "file", limit: int = limits.MAX_JSON_BYTES) -> str:
    """A bounded regular file (see :func:`read_bytes`) decoded as UTF-8."""
    try:
        return read_bytes(path, what, limit).decode("utf-8")
    except UnicodeDecodeError:
        raise FsmarenaError(f"{what} {path} is not UTF-8 text") from None


def read_json(path: str | os.PathLike, what: str = "file") -> Any:
    """Read a JSON file written by fsmarena (or by hand), with clear errors for bad input."""
    return loads(read_text(path, what, limits.MAX_JSON_BYTES), f"{what} {Path(path)}")


def nesting_depth(value: Any) -> int:
    """How deeply arrays/objects nest in parsed JSON (a scalar is 0), without recursion."""
    if not isinstance(value, (list, dict)):
        return 0
    deepest, stack = 1, [(value, 1)]
    while stack:
        node, level = stack.pop()
        deepest = max(deepest, level)
        for item in node.values() if isinstance(node, dict) else node:
            if isinstance(item, (list, dict)):
                stack.append((item, level + 1))
    return deepest


#: memory one parsed value costs, in bytes (CPython, 64-bit): the slot that holds it, plus its own
#: object unless it is a small integer CPython shares (-5 to 256)
_SLOT, _NUMBER, _STRING, _CONTAINER = 8, 32, 64, 64


class _ParseBudget:
    """What a parse may build, estimated as it goes: arrays, objects and strings counted from
    the text before parsing (an upper bound: brackets and quotes), numbers as the parser meets
    them; the parse stops with one line as soon as the estimate passes MAX_JSON_PARSED_BYTES,
    so a file of short values costs at most that much memory beyond its text, whatever it holds."""

    def __init__(self, text: str, source: str):
        self.source = source
        containers = text.count("[") + text.count("{")  # fast, no parsing
        if containers > limits.MAX_JSON_CONTAINERS:
            raise FsmarenaError(
                f"{source} holds {containers:,} arrays and objects; the limit is "
                f"{limits.MAX_JSON_CONTAINERS:,} (MAX_JSON_CONTAINERS)"
            )
        strings = text.count('"') // 2
        self.spent = containers * (_CONTAINER + _SLOT) + strings * (_STRING + _SLOT)
        self.check()

    def check(self) -> None:
        if self.spent > limits.MAX_JSON_PARSED_BYTES:
            raise FsmarenaError(
                f"{self.source} holds too many values: parsed, they would take more than "
                f"{limits.MAX_JSON_PARSED_BYTES // 2**20} MB (MAX_JSON_PARSED_BYTES)"
            )

    def parse_int(self, text: str) -> int:
        value = _parse_int(text)
        self.spent += _SLOT if -5 <= value <= 256 else _SLOT + _NUMBER
        if self.spent > limits.MAX_JSON_PARSED_BYTES:
            self.check()
        return value

    def parse_float(self, text: str) -> float:
        self.spent += _SLOT + _NUMBER
        if self.spent > limits.MAX_JSON_PARSED_BYTES:
            self.check()
        return _parse_float(text)


def loads(text: str, source: str = "JSON text") -> Any:
    """Parse JSON text; NaN/Infinity, numbers out of range, deep nesting, more values than
    MAX_JSON_CONTAINERS and MAX_JSON_PARSED_BYTES allow, and syntax errors become FsmarenaError."""
    too_deep = f"{source} is nested too deeply (the limit is {limits.MAX_NESTING} levels)"
    budget = _ParseBudget(text, source)
    try:
        data = json.loads(
            text, parse_constant=_reject_constant, parse_float=budget.parse_float, parse_int=budget.parse_int
        )
    except RecursionError:  # the C parser stops cleanly at the interpreter's recursion limit
        raise FsmarenaError(too_deep) from None
    except _OutOfRange as exc:
        raise FsmarenaError(f"{source}: {exc}") from None
    except ValueError as exc:  # JSONDecodeError is a ValueError
        raise FsmarenaError(f"{source} is not valid JSON: {exc}") from None
    if nesting_depth(data) > limits.MAX_NESTING:  # code that walks the data may recurse
        raise FsmarenaError(too_deep)
    return data


#: ``check(name, shape, dtype)`` for :func:`read_npz`: FsmarenaError unless a member may have
#: this shape and type (called on its ``.npy`` header, before any of its data is read)
HeaderCheck = Callable[[str, tuple[int, ...], Any], None]


def read_npz(path: str | os.PathLike, what: str = "checkpoint", check: HeaderCheck | None = None) -> dict[str, Any]:
    """The arrays of an ``.npz`` file, every member checked *before* it is inflated.

    The file is opened as :func:`read_bytes` opens it (bounded, regular files only) and read
    member by member; each zip member's declared size and compression ratio, and its ``.npy``
    header (dtype, shape, order), are checked before its data is read: object dtypes, shapes
    larger than the member's data, compression bombs and whatever ``check`` refuses (the
    caller's expected shapes) cost no memory.  Each array is read once, into its own buffer
    (no second copy).  Float arrays must be finite.
    """

    source = f"{what} {Path(path)}"
    with open_regular_file(path, what, limits.MAX_CHECKPOINT_BYTES) as handle:
        try:
            with zipfile.ZipFile(handle) as archive:
                members = archive.infolist()
                if len(members) > limits.MAX_CHECKPOINT_MEMBERS:
                    raise FsmarenaError(
                        f"{source} has {len(members)} arrays; the limit is "
                        f"{limits.MAX_CHECKPOINT_MEMBERS} (MAX_CHECKPOINT_MEMBERS)"
                    )
                if sum(m.file_size for m in members) > limits.MAX_CHECKPOINT_BYTES:
                    raise FsmarenaError(
                        f"{source} inflates to more than {limits.MAX_CHECKPOINT_BYTES} bytes (MAX_CHECKPOINT_BYTES)"
                    )
                arrays = {}
                for member in members:
                    name = _member_name(member.filename, source)
                    arrays[name] = _read_member(archive, member, name, source, check)
                return arrays
        except (
            zipfile.BadZipFile,
            zipfile.LargeZipFile,
            EOFError,
            ValueError,
            OSError,
            NotImplementedError,
            RuntimeError,
        ) as exc:
            raise FsmarenaError(f"{source} is damaged or not an fsmarena checkpoint ({exc})") from None


def _read_into(handle: Any, buffer: bytearray) -> int:
    """Fill ``buffer`` from ``handle`` a megabyte at a time (a zip member's own ``readinto``
    reads it all into a temporary copy first); the number of bytes read."""
    view, filled = memoryview(buffer), 0
    while filled < len(buffer):
        chunk = handle.read(min(len(buffer) - filled, 1 << 20))
        if not chunk:
            break
        view[filled : filled + len(chunk)] = chunk
        filled += len(chunk)
    return filled


def _member_name(filename: str, source: str) -> str:
    if not filename.endswith(".npy") or "/" in filename:
        raise FsmarenaError(f"{source}: unexpected member '{sanitise_text(filename)}'")
    return filename[:-4]


def _read_member(archive: Any, member: Any, name: str, source: str, check: HeaderCheck | None) -> Any:
    """One ``.npy`` member: header checked, then exactly the bytes its shape needs."""

    shown = sanitise_text(name)
    if member.compress_type != 0 and member.file_size > limits.MAX_COMPRESSION_RATIO * max(member.compress_size, 1):
        raise FsmarenaError(
            f"{source}: array '{shown}' is compressed more than {limits.MAX_COMPRESSION_RATIO}:1 (MAX_COMPRESSION_RATIO)"
        )
    with archive.open(member) as handle:
        version = npy.read_magic(handle)
        if version == (1, 0):
            shape, fortran, dtype = npy.read_array_header_1_0(handle)
        elif version == (2, 0):
            shape, fortran, dtype = npy.read_array_header_2_0(handle)
        else:
            raise FsmarenaError(f"{source}: array '{shown}' has an unsupported .npy version {version}")
        if dtype.hasobject or dtype.kind not in "biuf" or dtype.subdtype is not None or dtype.names:
            raise FsmarenaError(f"{source}: array '{shown}' has the unsupported type {dtype}")
        count = math.prod(shape)
        needed = count * dtype.itemsize
        if needed > member.file_size:
            raise FsmarenaError(f"{source}: array '{shown}' declares shape {list(shape)}, larger than its data")
        if check is not None:
            check(name, tuple(shape), dtype)
        data = bytearray(needed)
        got = _read_into(handle, data)
    if got != needed:
        raise FsmarenaError(f"{source}: array '{shown}' is truncated")
    array = np.frombuffer(data, dtype=dtype).reshape(shape, order="F" if fortran else "C")
    if dtype.kind == "f" and not np.all(np.isfinite(array)):
        raise FsmarenaError(f"{source}: array '{shown}' holds NaN or infinite values")
    if dtype.kind == "b" and array.size and array.view(np.uint8).max() > 1:  # numpy keeps any byte
        raise FsmarenaError(f"{source}: array '{shown}' holds booleans other than 0 and 1")
    return array


def refuse_booleans(raw: Any, what: str) -> None:
    """FsmarenaError if the nested lists ``raw`` (a table of numbers read from JSON) hold
    ``true`` or ``false``: numpy would turn ``[true, 2]`` into ``[1, 2]`` without a word.
    Walked without recursion; anything but a list is left to the caller's own checks."""
    stack = [raw] if isinstance(raw, list) else []
    while stack:
        for item in stack.pop():
            if isinstance(item, bool):
                raise FsmarenaError(f"{what} must hold numbers, not true or false")
            if isinstance(item, list):
                stack.append(item)


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
        if isinstance(value, int) and not isinstance(value, bool) and not -(2**63) <= value < 2**63:
            raise self.fail(f"field '{key}' is out of range (integers must fit 64 bits)")
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

        raw = self.get(key, list)
        refuse_booleans(raw, f"{self.source}: field '{key}'")
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

        raw = self.get(key, list)
        refuse_booleans(raw, f"{self.source}: field '{key}'")
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
    names = {
        int: "an integer",
        float: "a number",
        str: "a string",
        list: "a list",
        dict: "an object",
        bool: "true or false",
    }
    return " or ".join(names.get(k, k.__name__) for k in kinds)
