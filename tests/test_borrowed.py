"""Borrowed array views (fsmarena.jit.borrowed): the same data without numba's reference counts.

The compiled loops that play games read every array through such a view; these tests check
that a view reads and writes its owner's data (whole arrays, rows, slices, every dtype the loops
use), that it really has no owner (what makes it cheap), and that without numba it is the array.
"""

from __future__ import annotations

import os
import subprocess
import sys

import numba
import numpy as np
import pytest
from numba.core import cgutils
from numba.extending import intrinsic

from fsmarena.jit import borrowed, njit
from fsmarena.specialise import _reachable_files

pytestmark = pytest.mark.skipif(numba.config.DISABLE_JIT, reason="borrowed views exist in compiled code only")


@intrinsic
def _has_owner(typingctx, array):
    """True when the array structure points at an owner (numba reference-counts it)."""

    def codegen(context, builder, signature, args):
        view = context.make_array(array)(context, builder, value=args[0])
        null = cgutils.get_null_value(view.meminfo.type)
        return builder.icmp_unsigned("!=", view.meminfo, null)

    return numba.types.boolean(array), codegen


@njit(cache=False)
def _owners(values):
    view = borrowed(values)
    return _has_owner(values), _has_owner(view), _has_owner(view[1:]), _has_owner(borrowed(values[0]))


@njit(cache=False)
def _write_through(states, row, seat, value):
    """Writes ``value`` at ``states[row, seat]`` through a borrowed row; returns the row's sum read back."""
    view = borrowed(states)[row]
    view[seat] = value
    total = 0
    for x in borrowed(view)[:]:
        total += x
    return total


@njit(cache=False)
def _copy(source, out):
    source, out = borrowed(source), borrowed(out)
    for i in range(len(source)):
        out[i] = source[i]


def test_a_borrowed_view_has_no_owner_and_the_array_keeps_its_own():
    assert _owners(np.zeros((3, 4))) == (True, False, False, False)


def test_writes_through_a_borrowed_row_reach_the_array():
    states = np.arange(12, dtype=np.int64).reshape(3, 4)
    total = _write_through(states, 1, 2, 100)
    assert states[1, 2] == 100
    assert total == 4 + 5 + 100 + 7
    assert states[0].tolist() == [0, 1, 2, 3] and states[2].tolist() == [8, 9, 10, 11]


@pytest.mark.parametrize("dtype", [np.int64, np.int8, np.float64, np.bool_])
def test_every_dtype_of_the_loops_reads_and_writes_the_same_values(dtype):
    source = (np.random.default_rng(3).integers(0, 100, size=17) % 7).astype(dtype)
    out = np.zeros(17, dtype=dtype)
    _copy(source[::2].copy(), out[:9])
    assert out[:9].tolist() == source[::2].tolist()
    assert not out[9:].any()


def test_the_compiled_cache_hashes_the_module_of_the_view():
    """A loop that borrows is compiled with the view's code: editing :mod:`fsmarena.jit` must
    give the loops new cached modules, so its file is among those hashed."""
    import fsmarena.games.dtd.kernel as kernel
    import fsmarena.games.row_loops as row_loops

    files = {path.name for path in _reachable_files([row_loops.__name__, kernel.__name__])}
    assert "jit.py" in files


def test_without_numba_a_borrowed_view_is_the_array():
    code = "import numpy as np; from fsmarena.jit import borrowed; a = np.ones(3); print(borrowed(a) is a)"
    env = {**os.environ, "NUMBA_DISABLE_JIT": "1"}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "True"
