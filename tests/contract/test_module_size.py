"""Files a reader can hold: no module of the package is over 600 lines, except a game's compiled
kernel (``fsmarena/games/<name>/kernel.py``: one game's rules, written out as one scalar unit so
that the compiler can inline them, read rule by rule rather than at once).  A module that grows
past the limit is split along its concepts (data apart from text, text apart from figures)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MAX_LINES = 600


def _is_kernel(path: Path) -> bool:
    """A game folder's compiled kernel: ``fsmarena/games/<name>/kernel.py``."""
    parts = path.relative_to(ROOT).parts
    return len(parts) == 4 and parts[:2] == ("fsmarena", "games") and parts[3] == "kernel.py"


MODULES = sorted(p for p in (ROOT / "fsmarena").rglob("*.py") if not _is_kernel(p))


def test_the_kernels_left_out_are_the_game_folders_kernels():
    kernels = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "fsmarena").rglob("kernel.py") if _is_kernel(p))
    assert "fsmarena/games/dtd/kernel.py" in kernels and "fsmarena/games/thirtyone/kernel.py" in kernels
    assert (ROOT / "fsmarena" / "games" / "kernel.py") in MODULES  # the kernel contract is an ordinary module


def test_every_module_is_at_most_600_lines():
    lengths = {p.relative_to(ROOT).as_posix(): len(p.read_text(encoding="utf-8").splitlines()) for p in MODULES}
    assert len(lengths) > 100
    too_long = {path: n for path, n in lengths.items() if n > MAX_LINES}
    assert not too_long, f"split these along their concepts: {too_long}"
