"""Scale-out on dask.distributed: identical results, clear errors."""

from __future__ import annotations

import sys
import time

import pytest

from fsmarena.cli import main
from fsmarena.errors import FsmarenaError
from fsmarena.parallel import use_dask

pytest.importorskip("dask.distributed")

PLAYERS = ["random", "always-small", "always-median", "always-large"]
FILES = ("tournament.json", "results.csv", "matrix.csv")


def tournament(tmp_path, name, *extra):
    out = tmp_path / name
    code = main(["tournament", "dtd", *PLAYERS, "--games", "60000", "--seed", "21", "--out", str(out),
                 "--quiet", *extra])
    assert code == 0
    return {f: (out / f).read_bytes() for f in FILES}


def test_local_cluster_gives_bit_identical_files(tmp_path, capsys, monkeypatch):
    serial = tournament(tmp_path, "serial", "--jobs", "1")
    assert tournament(tmp_path, "dask", "--dask", "local") == serial
    monkeypatch.setenv("FSMARENA_DASK", "local")
    assert tournament(tmp_path, "env", "--jobs", "2") == serial


def test_unreachable_scheduler_is_a_clear_error():
    start = time.monotonic()
    with pytest.raises(FsmarenaError, match="cannot reach the dask scheduler"):
        with use_dask("tcp://127.0.0.1:9", timeout="2s"):
            pass
    assert time.monotonic() - start < 60


def test_missing_distributed_package_is_a_clear_error(monkeypatch):
    monkeypatch.setitem(sys.modules, "dask.distributed", None)
    with pytest.raises(FsmarenaError, match=r"fsmarena\[distributed\]"):
        with use_dask("local"):
            pass
