"""The cross-play counts as JSON: every pairing in order is stored without its list of pairs.

A store of 1,220 champions held 743,590 pairings; their list took 1.7 MB of the 2.2 MB its
cross-play took compressed, though a reader can rebuild it from the labels.  A file without
``pairs`` means every pairing i < j in ``numpy.triu_indices`` order; a file with them (older
stores, or a subset of pairings) is read as before.
"""

from __future__ import annotations

import itertools
import json

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as hs

from fsmarena.errors import FsmarenaError
from fsmarena.games.crossplay import CrossplayResult, every_pairing


def _result(n: int, pairs: np.ndarray, seed: int = 0) -> CrossplayResult:
    rng = np.random.default_rng(seed)
    games = 2 * rng.integers(1, 5, len(pairs))
    wins = rng.integers(0, games + 1)
    draws = rng.integers(0, games - wins + 1)
    labels = [f"f{k % 2}/r{k:03d}" for k in range(n)]
    return CrossplayResult(
        labels, [f"f{k % 2}" for k in range(n)], list(range(n)), pairs, games, wins, draws, games - wins - draws
    )


def _same(a: CrossplayResult, b: CrossplayResult) -> bool:
    return (a.labels, a.families, a.replicates) == (b.labels, b.families, b.replicates) and all(
        np.array_equal(getattr(a, k), getattr(b, k)) for k in ("pairs", "games", "wins", "draws", "losses")
    )


def test_every_pairing_is_itertools_combinations_in_order():
    for n in range(6):
        assert every_pairing(n).tolist() == [list(p) for p in itertools.combinations(range(n), 2)]


@given(hs.integers(2, 12), hs.integers(0, 2**16))
def test_every_pairing_round_trips_without_its_list(n, seed):
    result = _result(n, every_pairing(n), seed)
    data = json.loads(json.dumps(result.to_json()))
    assert "pairs" not in data
    assert _same(CrossplayResult.from_json(data), result)


def test_a_subset_of_pairings_keeps_its_list_and_an_old_file_with_the_list_reads_alike():
    pairs = np.array([[0, 2], [1, 2]])
    subset = _result(3, pairs)
    data = subset.to_json()
    assert data["pairs"] == pairs.tolist() and _same(CrossplayResult.from_json(data), subset)
    full = _result(4, every_pairing(4))
    old = {**full.to_json(), "pairs": every_pairing(4).tolist()}
    assert _same(CrossplayResult.from_json(old), full)


@pytest.mark.parametrize("count", [0, 5, 7])
def test_without_pairs_the_counts_must_be_one_per_pairing(count):
    """4 champions have 6 pairings: 5 or 7 counts (or none) are refused in one line, before any
    pairing is built (so a file of a million labels costs nothing)."""
    data = _result(4, every_pairing(4)).to_json()
    for key in ("games", "wins", "draws", "losses"):
        data[key] = (data[key] * 2)[:count]
    with pytest.raises(FsmarenaError, match="4 champions need 6 counts") as info:
        CrossplayResult.from_json(data)
    assert "\n" not in str(info.value)
    huge = {**data, "labels": ["x"] * 10**6}
    with pytest.raises(FsmarenaError, match="need 499999500000 counts"):
        CrossplayResult.from_json(huge)
