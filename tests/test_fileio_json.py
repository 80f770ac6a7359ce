"""JSON text written by fsmarena (``fsmarena.fileio.dumps``): non-finite floats become null and
numpy values their Python values, and the direct encoding gives exactly the text of the walk
that cleans every value first (hashes of players and champions are taken of this text)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from fsmarena.fileio import _finite, dumps

FLOATS = st.floats(allow_nan=True, allow_infinity=True)
NUMPY_SCALARS = st.one_of(
    FLOATS.map(np.float64),
    st.floats(width=32).map(np.float32),
    st.integers(-(2**63), 2**63 - 1).map(np.int64),
    st.booleans().map(np.bool_),
)
ARRAYS = st.lists(FLOATS, max_size=5).map(np.array) | st.lists(st.integers(-9, 9), max_size=5).map(np.array)
LEAVES = st.none() | st.booleans() | st.integers() | FLOATS | st.text(max_size=5) | NUMPY_SCALARS | ARRAYS
DATA = st.recursive(
    LEAVES,
    lambda inner: (
        st.lists(inner, max_size=4) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)


def walked(data) -> str:
    """The text of the walk that cleans every value before encoding."""
    return json.dumps(_finite(data), indent=2)


@given(DATA)
@example({"x": [float("nan"), np.float64(-np.inf)], "y": (np.arange(2), np.float32(0.5))})
def test_the_direct_encoding_is_the_text_of_the_cleaning_walk(data):
    assert dumps(data) == walked(data)


def test_non_finite_floats_are_null_and_numpy_values_are_plain():
    data = {"a": [1.5, float("nan"), np.float64("inf")], "b": np.arange(3), "c": (np.int64(7), np.bool_(True))}
    assert json.loads(dumps(data)) == {"a": [1.5, None, None], "b": [0, 1, 2], "c": [7, True]}
    assert json.loads(dumps({"x": np.array([1.0, -math.inf])})) == {"x": [1.0, None]}
    assert dumps([np.float32(0.1)]) == json.dumps([float(np.float32(0.1))], indent=2)


def test_a_value_json_cannot_hold_is_refused():
    with pytest.raises(TypeError, match="not JSON serializable"):
        dumps({"x": object()})
