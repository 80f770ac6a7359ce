"""Tampered checkpoints against the command line: the rl tables' (every field, headers that
claim huge shapes, zip bombs, flipped bytes), read before anything is inflated, and the 31
agent's.

Every case ends as the README promises (:mod:`hostile_helpers` says how).
"""

from __future__ import annotations

import io
import json
import os
import time
import zipfile
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_cli
from hostile_helpers import (
    TRAIN,
    assert_one_clear_line,
    files,
    hostile,
    run_bounded,
)
from hypothesis import given
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import read_npz

# ---- tampered training checkpoints (read before anything is inflated) -------------------------


def _npz(path: Path, members: dict[str, bytes], compress: bool = False) -> None:
    mode = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
    with zipfile.ZipFile(path, "w", compression=mode) as archive:
        for name, data in members.items():
            archive.writestr(name + ".npy", data)


def _npy(array: np.ndarray) -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array(buffer, array, allow_pickle=False)
    return buffer.getvalue()


def _npy_header(shape: tuple[int, ...], dtype: str = "<f8") -> bytes:
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": False, "shape": shape})
    return buffer.getvalue()


@pytest.fixture(scope="module")
def trained(tmp_path_factory) -> Path:
    """A finished tabular training run (its checkpoint is tampered with by the tests)."""
    from tests.cli_helpers import cli

    out = tmp_path_factory.mktemp("trained") / "run"
    assert cli(*TRAIN, "--out", out)[0] == 0
    return out


def _tamper(trained: Path, tmp_path: Path, change) -> Path:
    """A copy of the trained run whose checkpoint's arrays and metadata went through ``change``."""
    import shutil

    out = tmp_path / "run"
    shutil.copytree(trained, out)
    with np.load(out / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files}
    meta = json.loads(arrays["meta"].tobytes())
    members = change(arrays, meta)
    if members is None:
        arrays["meta"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
        members = {name: _npy(value) for name, value in arrays.items()}
    _npz(out / "checkpoint.npz", members)
    return out


def _set(key, value):
    def change(arrays, meta):
        meta[key] = value

    return change


def _drop(key):
    def change(arrays, meta):
        del meta[key]

    return change


def _nan_q(arrays, meta):
    arrays["table_q"] = arrays["table_q"].copy()
    arrays["table_q"].flat[0] = np.nan


def _negative_counts(arrays, meta):
    arrays["table_n"] = arrays["table_n"].astype(np.int64) - 5


def _huge_shape(arrays, meta):
    members = {name: _npy(value) for name, value in arrays.items()}
    members["table_q"] = _npy_header((10**6, 10**6)) + b"\0" * 64  # declares 8 TB
    return members


def _count_near_2_63(arrays, meta):
    """A visit count that a resumed run would push past 2^63, where it wraps negative."""
    arrays["table_n"] = arrays["table_n"].astype(np.int64)
    state, action = np.argwhere(arrays["table_legal"])[0]
    arrays["table_n"][state, action] = 2**63 - 10


def _rng(**changes):
    def change(arrays, meta):
        meta["rng"] = {**meta["rng"], **changes}

    return change


def _rng_inner(**changes):
    def change(arrays, meta):
        meta["rng"]["state"] = {**meta["rng"]["state"], **changes}

    return change


def _object_dtype(arrays, meta):
    members = {name: _npy(value) for name, value in arrays.items()}
    members["table_q"] = _npy_header((1,), "|O") + b"\0" * 8
    return members


@pytest.mark.parametrize(
    "change, words",
    [
        (_drop("done"), "missing field 'done'"),
        (_set("done", -1), "'done' must be between"),
        (_set("done", 10**30), "out of range|'done' must be between"),
        (_set("done", "many"), "'done' must be an integer"),
        (_drop("rng"), "missing field 'rng'"),
        (_set("curve", {"a": 1}), "'curve' must be a list"),
        (_nan_q, "NaN or infinite"),
        (_negative_counts, "negative entries"),
        (_huge_shape, "larger than its data"),
        (_object_dtype, "unsupported type"),
        (_count_near_2_63, "MAX_TABLE_COUNT"),
        (_rng(extra=1), "fields must be exactly"),
        (_rng(has_uint32=7), "'has_uint32' must be 0 or 1"),
        (_rng(has_uint32=True), "'has_uint32' must be 0 or 1"),
        (_rng(uinteger=2**32), "'uinteger' must be"),
        (_rng_inner(inc=2), "odd 128-bit increment"),
        (_rng_inner(state=2**128), "128-bit state"),
        (_rng_inner(extra=0), "'state' must be an object"),
    ],
    ids=[
        "no-done",
        "done-negative",
        "done-1e30",
        "done-text",
        "no-rng",
        "curve-object",
        "nan-q",
        "negative-counts",
        "huge-shape",
        "object-dtype",
        "count-near-2^63",
        "rng-extra-key",
        "rng-has-uint32-7",
        "rng-has-uint32-bool",
        "rng-uinteger-33-bits",
        "rng-even-increment",
        "rng-state-129-bits",
        "rng-state-extra-key",
    ],
)
def test_tampered_training_checkpoints_are_one_line_and_leave_the_folder_alone(
    trained, tmp_path, capsys, change, words
):
    out = _tamper(trained, tmp_path, change)
    before = files(out)
    code, _, err = run_cli(capsys, *TRAIN, "--resume", "--out", out)
    assert_one_clear_line(code, err)
    assert any(word in err for word in words.split("|")), err
    assert files(out) == before


class _SparseWriter(io.RawIOBase):
    """A file that turns long runs of zero bytes into holes (seeks), so a test can make a
    checkpoint of hundreds of megabytes that takes no disk and no time to write."""

    def __init__(self, handle):
        self.handle = handle

    def writable(self):
        return True

    def seekable(self):
        return True

    def write(self, data):
        data = bytes(data)
        if len(data) >= 4096 and not any(data):
            self.handle.seek(len(data), os.SEEK_CUR)
            end = self.handle.tell()
            self.handle.truncate(max(end, os.fstat(self.handle.fileno()).st_size))
        else:
            self.handle.write(data)
        return len(data)

    def seek(self, offset, whence=os.SEEK_SET):
        return self.handle.seek(offset, whence)

    def tell(self):
        return self.handle.tell()

    def flush(self):
        self.handle.flush()


def _huge_table_q(trained: Path, out: Path, entries: int) -> None:
    """The trained run's checkpoint with a zero ``table_q`` of ``entries`` float64 values."""
    import shutil

    shutil.copytree(trained, out)
    with np.load(out / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files if name != "table_q"}
    with open(out / "checkpoint.npz", "wb") as raw, zipfile.ZipFile(_SparseWriter(raw), "w") as archive:
        for name, value in arrays.items():
            archive.writestr(name + ".npy", _npy(value))
        with archive.open("table_q.npy", "w", force_zip64=True) as member:
            member.write(_npy_header((entries,)))
            left = entries * 8
            while left:
                member.write(bytes(min(left, 1 << 24)))
                left -= min(left, 1 << 24)


@pytest.mark.slow
def test_a_table_of_the_wrong_shape_is_refused_from_its_header_in_bounded_memory(trained, tmp_path):
    """An 800 MB ``table_q`` of 10^8 entries peaked at 2.5 GB (three copies) before "expected
    shape"; its header says so first, and nothing of it is read."""
    out = tmp_path / "run"
    _huge_table_q(trained, out, 10**8)
    assert (out / "checkpoint.npz").stat().st_size > 800_000_000
    assert os.stat(out / "checkpoint.npz").st_blocks * 512 < 10_000_000  # sparse
    before = files(out)
    done = run_bounded(
        [*TRAIN, "--resume", "--out", out], tmp_path, timeout=120, env={**os.environ, "MALLOC_ARENA_MAX": "2"}
    )
    assert_one_clear_line(done.returncode, done.stderr)
    assert "table 'q' has shape [100000000]; expected shape [" in done.stderr
    assert files(out) == before


def test_a_table_is_checked_before_any_of_its_data_is_read(trained, tmp_path, monkeypatch, capsys):
    import fsmarena.fileio as fileio

    out = tmp_path / "run"
    _huge_table_q(trained, out, 1000)
    read = []
    original = fileio._read_into
    monkeypatch.setattr(
        fileio, "_read_into", lambda handle, buffer: read.append(len(buffer)) or original(handle, buffer)
    )
    code, _, err = run_cli(capsys, *TRAIN, "--resume", "--out", out)
    assert_one_clear_line(code, err)
    assert "expected shape" in err
    assert 8000 not in read


def test_a_zip_bomb_checkpoint_is_refused_before_inflating(tmp_path):
    path = tmp_path / "checkpoint.npz"
    _npz(path, {"table_q": _npy_header((5_000_000,)) + b"\0" * 40_000_000}, compress=True)
    assert path.stat().st_size < 1_000_000  # inflates 400 times
    start = time.monotonic()
    with pytest.raises(FsmarenaError, match="compressed more than"):
        read_npz(path)
    assert time.monotonic() - start < 5


@hostile
@given(
    shape=st.lists(st.integers(0, 2**40), min_size=0, max_size=4),
    dtype=st.sampled_from(["<f8", "<i8", "|b1", "<U3", "|O", "<c16", "|V8", "<f2", ">i4"]),
    fortran=st.booleans(),
    payload=st.integers(0, 256),
)
def test_any_npy_header_is_read_or_refused_without_inflating(tmp_path_factory, shape, dtype, fortran, payload):
    """Declared shapes up to 2^160 elements, odd dtypes: only FsmarenaError, never an allocation
    beyond the member's real data."""
    path = tmp_path_factory.mktemp("npz") / "c.npz"
    buffer = io.BytesIO()
    np.lib.format.write_array_header_1_0(buffer, {"descr": dtype, "fortran_order": fortran, "shape": tuple(shape)})
    _npz(path, {"a": buffer.getvalue() + b"\1" * payload})
    try:
        arrays = read_npz(path)
    except FsmarenaError:
        return
    assert arrays["a"].nbytes <= payload and arrays["a"].shape == tuple(shape)


@hostile
@given(flips=st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 255)), min_size=1, max_size=8))
def test_corrupted_checkpoint_bytes_are_refused_or_read_never_crash(trained, flips):
    raw = bytearray((trained / "checkpoint.npz").read_bytes())
    for position, value in flips:
        raw[position % len(raw)] = value
    path = trained.parent / "corrupt.npz"
    path.write_bytes(bytes(raw))
    from fsmarena.rl.checkpoint import load_checkpoint

    try:
        load_checkpoint(path)
    except FsmarenaError:
        pass


def test_a_member_shorter_than_its_shape_is_refused(tmp_path):
    path = tmp_path / "c.npz"
    _npz(path, {"a": _npy_header((1000,))[:-1] + b"\n" + b"\0" * 80})
    with pytest.raises(FsmarenaError, match="larger than its data"):
        read_npz(path)


def test_tampered_31_agent_checkpoint_is_one_line(tmp_path, capsys):
    """The network learner's checkpoint goes through the same reader and its own fields."""
    pytest.importorskip("sklearn")
    args = [
        "train",
        "thirtyone",
        "--algo",
        "mlp",
        "--episodes",
        "200",
        "--eval-every",
        "200",
        "--eval-games",
        "20",
        "--hidden",
        "4",
        "--seed",
        "1",
        "--quiet",
    ]
    out = tmp_path / "mlp"
    assert run_cli(capsys, *args, "--out", out)[0] == 0
    with np.load(out / "checkpoint.npz") as data:
        arrays = {name: data[name] for name in data.files}
    for key, value in (("metrics", None), ("done", 10**12)):
        meta = json.loads(arrays["meta"].tobytes())
        if value is None:
            del meta[key]
        else:
            meta[key] = value
        tampered = dict(arrays, meta=np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8))
        _npz(out / "checkpoint.npz", {name: _npy(v) for name, v in tampered.items()})
        before = files(out)
        code, _, err = run_cli(capsys, *args, "--resume", "--out", out)
        assert_one_clear_line(code, err)
        assert key in err
        assert files(out) == before
