"""The published studies' figures: drawn from each store into ``docs/results/<study>/``, shown on the
results pages with their captions, and checked by ``fsmarena publish --figures --check``.

Each study's report layout draws its figures (:func:`fsmarena.studies.results.write_report` with
figures) in a scratch folder; every PNG is copied to ``docs/results/<study>/<name>.png`` and its
caption (the report's own, saying what is drawn, over how many replicates and what the band or
interval is) is kept in ``docs/results/<study>/figures.json``.  The block ``<study>:figures``
(:func:`figure_blocks`) shows every figure with its caption; a page quotes it like any block.

Checking cannot compare PNG bytes: the same data drawn by another matplotlib or FreeType version
gives other bytes.  It compares a *content fingerprint* instead (:func:`fingerprint`): the image's
size in pixels and its mean grey level over a 16 x 16 grid of cells; two drawings agree when their
sizes are equal and no cell differs by more than :data:`TOLERANCE` (a moved curve, a changed bar or
a new panel moves whole cells; anti-aliasing and hinting do not).  Every figure passes the figure
check (:mod:`fsmarena.figures.check`) while it is drawn.
"""

from __future__ import annotations

import re
import shutil
import tempfile
from pathlib import Path

import numpy as np

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import read_json, read_text, write_json
from fsmarena.studies.report import write_report
from fsmarena.studies.store import load_store, stores

#: the largest difference of a cell's mean grey level (0 to 1) between two drawings of one figure
TOLERANCE = 0.03
GRID = 16
_IMAGE = re.compile(r"^!\[(.*)\]\((figures/[^)\s]+\.png)\)$", re.M)


def figures_folder(root: str | Path, study: str) -> Path:
    return Path(root) / "docs" / "results" / study


def fingerprint(path: Path) -> tuple[tuple[int, int], np.ndarray]:
    """A PNG's size and its mean grey level on a GRID x GRID grid of cells."""
    import matplotlib.image  # drawing dependency, imported where figures are read

    pixels = np.asarray(matplotlib.image.imread(str(path)), dtype=float)
    grey = pixels[..., :3].mean(axis=2) if pixels.ndim == 3 else pixels
    rows = np.array_split(np.arange(grey.shape[0]), GRID)
    cols = np.array_split(np.arange(grey.shape[1]), GRID)
    cells = np.array([[grey[np.ix_(r, c)].mean() for c in cols] for r in rows])
    return (grey.shape[0], grey.shape[1]), cells


def same_drawing(a: Path, b: Path) -> bool:
    """Whether two PNGs are one figure by their fingerprints."""
    (size_a, cells_a), (size_b, cells_b) = fingerprint(a), fingerprint(b)
    return size_a == size_b and float(np.abs(cells_a - cells_b).max()) <= TOLERANCE


def draw_study(folder: Path, scratch: Path) -> list[tuple[str, Path]]:
    """Every figure the study's report draws from its store, as (caption, PNG) in report order."""
    results = load_store(folder)
    write_report(results.moved(scratch), figures=True)
    report = read_text(scratch / "report.md", "generated report")
    return [(caption, scratch / png) for caption, png in _IMAGE.findall(report) if (scratch / png).is_file()]


def publish_figures(root: str | Path, check: bool = False) -> list[Path]:
    """Draw every published study's figures into ``docs/results/<study>/`` (nothing when ``check``);
    returns the figures (and caption files) that changed or would change."""
    changed: list[Path] = []
    for folder in stores(root):
        target = figures_folder(root, folder.name)
        with tempfile.TemporaryDirectory(prefix="fsmarena-figures-") as scratch:
            drawn = draw_study(folder, Path(scratch))
            captions = {png.name: caption for caption, png in drawn}
            index = target / "figures.json"
            if not index.is_file() or read_json(index, "figure captions") != captions:
                changed.append(index)
            for _, png in drawn:
                kept = target / png.name
                if not kept.is_file() or not same_drawing(kept, png):
                    changed.append(kept)
                    if not check:
                        target.mkdir(parents=True, exist_ok=True)
                        shutil.copyfile(png, kept)
            if not check:
                write_json(index, captions)
    return changed


def figure_blocks(root: str | Path) -> dict[str, str]:
    """``<study>:figures``: every published figure of the study with its caption, from the captions
    that :func:`publish_figures` kept (a line saying so before it ran)."""
    blocks = {}
    for folder in stores(root):
        index = figures_folder(root, folder.name) / "figures.json"
        if not index.is_file():
            blocks[f"{folder.name}:figures"] = "*No figures published yet: `fsmarena publish --figures` draws them.*"
            continue
        captions = read_json(index, "figure captions")
        if not isinstance(captions, dict):
            raise FsmarenaError(f"{index}: figure captions must be a table of file name to caption")
        items = [f"![{c}]({folder.name}/{name})\n\n*{c}*" for name, c in captions.items()]
        blocks[f"{folder.name}:figures"] = "\n\n".join(items)
    return blocks
