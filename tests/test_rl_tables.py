"""Shared table operations: batched updates against the plain loop, greedy tie-breaking,
epsilon-greedy probabilities, schedules and the alpha rule."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fsmarena.errors import FsmarenaError
from fsmarena.rl.schedules import EpsilonSchedule, parse_alpha
from fsmarena.rl.tables import (
    EXACT_REPEATS,
    ActionValues,
    epsilon_greedy_probabilities,
    masked_argmax,
    masked_max,
    sequential_update,
)
from fsmarena.rl.tables import _narrowest as narrowest


def plain_loop(q, n, keys, targets, alpha):
    q, n = q.copy(), n.copy()
    for k, t in zip(keys.tolist(), targets.tolist()):
        n[k] += 1
        step = alpha if alpha is not None else 1.0 / n[k]
        q[k] += step * (t - q[k])
    return q, n


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(0, 300), st.sampled_from([None, 0.5, 0.1, 1.0]))
def test_sequential_update_is_the_plain_loop_bit_for_bit(seed, size, count, alpha):
    rng = np.random.default_rng(seed)
    q = rng.normal(size=size)
    n = rng.integers(0, 5, size=size)
    keys = rng.integers(0, size, size=count)
    targets = rng.normal(size=count)
    expected_q, expected_n = plain_loop(q, n, keys, targets, alpha)
    if count and np.bincount(keys).max() > EXACT_REPEATS:
        return  # covered by the closed-form test below
    sequential_update(q, n, keys, targets, alpha)
    assert np.array_equal(q, expected_q) and np.array_equal(n, expected_n)


@pytest.mark.parametrize("alpha", [None, 0.05, 0.5])
def test_sequential_update_closed_form_for_many_repeats_equals_the_loop(alpha):
    rng = np.random.default_rng(1)
    q = rng.normal(size=4)
    n = np.array([0, 3, 10, 1])
    keys = rng.integers(0, 4, size=5000)  # ~1250 repeats per entry: the closed form
    targets = rng.normal(size=5000)
    expected_q, expected_n = plain_loop(q, n, keys, targets, alpha)
    sequential_update(q, n, keys, targets, alpha)
    assert np.array_equal(n, expected_n)
    assert np.allclose(q, expected_q, rtol=0, atol=1e-12)


def closed_form(q, n, keys, targets, alpha):
    """The closed form of many repeats written as its formula, one power per update."""
    q, n = q.copy(), n.copy()
    order = np.argsort(keys, kind="stable")
    keys, targets = keys[order], targets[order]
    for key in np.unique(keys).tolist():
        mine = targets[keys == key]
        deltas = mine - q[key]
        later = np.arange(len(mine))[::-1]
        if alpha is None:
            q[key] = q[key] + np.add.reduceat(deltas, [0])[0] / (n[key] + len(mine))
        else:
            q[key] = q[key] + np.add.reduceat(alpha * np.power(1.0 - alpha, later) * deltas, [0])[0]
        n[key] += len(mine)
    return q, n


@pytest.mark.parametrize("alpha", [None, 0.05, 0.5])
def test_the_closed_form_is_its_formula_bit_for_bit(alpha):
    """The closed form looks its powers up in a table of those that occur: the same numbers
    as one power per update."""
    rng = np.random.default_rng(4)
    q, n = rng.normal(size=5), np.array([0, 3, 10, 1, 7])
    keys, targets = rng.integers(0, 5, size=3000), rng.normal(size=3000)
    expected_q, expected_n = closed_form(q, n, keys, targets, alpha)
    sequential_update(q, n, keys, targets, alpha)
    assert np.array_equal(q, expected_q) and np.array_equal(n, expected_n)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([1, 200, 256, 300, 65_536, 70_000]), st.integers(1, 400))
def test_narrowed_keys_sort_in_the_same_order(seed, size, count):
    """Keys narrowed to 8 or 16 bits (numpy's radix sort) keep their stable order, on both
    sides of each width's limit."""
    keys = np.random.default_rng(seed).integers(0, size, size=count)
    narrow = narrowest(keys)
    assert narrow.dtype == (np.uint8 if keys.max() < 256 else np.uint16 if keys.max() < 65_536 else np.int64)
    assert np.array_equal(np.argsort(narrow, kind="stable"), np.argsort(keys, kind="stable"))


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 25), st.integers(0, 50))
def test_masked_max_is_numpys_max_over_the_legal_actions(seed, actions, rows):
    """Column by column, the same numbers as ``max`` along the rows (ties, rows with no legal
    action: ``-inf``)."""
    rng = np.random.default_rng(seed)
    values = rng.integers(-2, 3, size=(rows, actions)).astype(float)  # many ties
    mask = rng.random((rows, actions)) < 0.6
    expected = np.where(mask, values, -np.inf).max(axis=1) if rows else np.zeros(0)
    assert np.array_equal(masked_max(values, mask), expected)


def test_masked_argmax_breaks_ties_low_and_respects_the_mask():
    values = np.array([[1.0, 3.0, 3.0], [5.0, 1.0, 2.0], [0.0, 0.0, 0.0]])
    mask = np.array([[True, True, True], [False, True, True], [False, False, False]])
    assert masked_argmax(values, mask).tolist() == [1, 2, 0]


def test_greedy_table_uses_only_actions_seen_legal():
    values = ActionValues(3, 3)
    values.q[:] = [[-1.0, 0.5, 9.0], [-1.0, -2.0, 0.0], [0.0, 0.0, 0.0]]
    values.note_legal(np.array([0, 1]), np.array([[True, True, False], [True, True, False]]))
    assert values.greedy_table().tolist() == [1, 0, 0]  # 9.0 and 0.0 were never legal
    values.note_legal(np.array([1]), None)  # no mask: everything legal
    assert values.greedy_table().tolist() == [1, 2, 0]


def test_epsilon_greedy_probabilities_sum_to_one_and_favour_the_greedy_action():
    q = np.array([[0.0, 2.0, 1.0], [3.0, 2.0, 1.0]])
    mask = np.array([[True, True, True], [False, True, True]])
    p = epsilon_greedy_probabilities(q, mask, 0.3)
    assert np.allclose(p.sum(axis=1), 1.0)
    assert np.allclose(p[0], [0.1, 0.8, 0.1])
    assert np.allclose(p[1], [0.0, 0.85, 0.15])


def test_schedules():
    assert EpsilonSchedule(0.2).value(500, 1000) == 0.2
    linear = EpsilonSchedule(0.2, 0.0, "linear")
    assert [linear.value(d, 100) for d in (0, 50, 100, 200)] == pytest.approx([0.2, 0.1, 0.0, 0.0])
    exponential = EpsilonSchedule(0.1, 0.001, "exponential")
    assert exponential.value(50, 100) == pytest.approx(0.01)
    with pytest.raises(FsmarenaError, match="final epsilon > 0"):
        EpsilonSchedule(0.1, 0.0, "exponential")
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(FsmarenaError, match="epsilon"):
            EpsilonSchedule(bad)
    with pytest.raises(FsmarenaError, match="schedule"):
        EpsilonSchedule(0.1, 0.0, "cosine")


def test_alpha_rule():
    assert parse_alpha("1/n") is None and parse_alpha(None) is None
    assert parse_alpha("0.25") == 0.25 and parse_alpha(1) == 1.0
    for bad in ("0", "-0.1", "1.5", "fast", "nan"):
        with pytest.raises(FsmarenaError, match="alpha"):
            parse_alpha(bad)


def test_note_legal_accumulates_over_repeated_states_in_one_batch():
    values = ActionValues(2, 3)
    values.note_legal(
        np.array([0, 0, 0]), np.array([[True, False, False], [False, True, False], [False, False, False]])
    )
    assert values.legal.tolist() == [[True, True, False], [False, False, False]]


# ---- checkpoint rows and tables ------------------------------------------------------------------


def test_check_table_keeps_the_dtype_kind_and_converts_only_losslessly():
    from fsmarena.rl.checkpoint import check_table

    q, n, legal = np.zeros((2, 3)), np.zeros((2, 3), dtype=np.int64), np.zeros((2, 3), dtype=bool)
    for value, like in ((q.astype(">f8"), q), (q.astype(np.float32), q), (np.asfortranarray(q), q), (n, n)):
        assert check_table(value, like, "c", "t") is value
    for value, like, words in (
        (n, q, "type int64; expected float"),
        (q, n, "type float64; expected signed integer"),
        (n.astype(np.uint64), n, "type uint64"),
        (n, legal, "expected boolean"),
        (q[:1], q, "has shape \\[1, 3\\]; expected shape \\[2, 3\\]"),
        (None, q, "is missing"),
    ):
        with pytest.raises(FsmarenaError, match=words):
            check_table(value, like, "c", "t")
    if np.dtype(np.longdouble).itemsize > 8:  # a wider float would be cut: refused
        with pytest.raises(FsmarenaError, match="type float128; expected float values"):
            check_table(q.astype(np.longdouble), q, "c", "t")


def test_check_rows_checks_keys_types_ranges_and_order():
    from fsmarena.rl.checkpoint import Column, check_rows

    columns = {"games": Column(int, 0, 10), "name": Column(str, choices=("a",)), "x": Column(float, 0, 1, empty=True)}
    rows = [{"games": 0, "name": "a", "x": None}, {"games": 10, "name": "a", "x": 1}]
    assert check_rows(rows, columns, "c", "curve") is rows
    for bad, words in (
        ([[0, "a", 1.0]], "curve row 0 must be an object with the keys games, name, x \\(got \\[0, 'a', 1.0\\]\\)"),
        ([{"games": 0, "name": "a"}], "missing key 'x'"),
        ([{**rows[0], "extra\x1b": 1}], "unexpected key 'extra\\\\x1b'"),
        ([{**rows[0], "games": True}], "'games' must be a whole number in \\[0, 10\\], got True"),
        ([{**rows[0], "games": 11}], "got 11"),
        ([{**rows[0], "games": 1.0}], "got 1.0"),
        ([{**rows[0], "x": 1.5}], "'x' must be a number in \\[0, 1\\] or empty"),
        ([{**rows[0], "name": "b" * 10**6}], "'name' must be one of 'a', got 'bbb"),
        ([rows[1], rows[0]], "curve row 1: rows must be in order of 'games'"),
    ):
        with pytest.raises(FsmarenaError, match=words) as error:
            check_rows(bad, columns, "c", "curve")
        assert len(str(error.value)) < 300


def test_a_boolean_array_holding_other_bytes_is_refused(tmp_path):
    from fsmarena.fileio import read_npz

    np.savez(tmp_path / "c.npz", legal=np.array([0, 1, 7], dtype=np.uint8).view(bool))
    with pytest.raises(FsmarenaError, match="booleans other than 0 and 1"):
        read_npz(tmp_path / "c.npz")
