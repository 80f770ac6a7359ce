"""Published figures (drawn at the 300 dpi of fsmarena.figures.style.save): the content fingerprint tells a changed figure from a re-rendered one, and every
published study's figures are on disk and shown, with captions, on its results page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fsmarena.publish.figures import figure_blocks, same_drawing
from fsmarena.studies.store import stores

ROOT = Path(__file__).resolve().parent.parent


def _draw(path: Path, shift: float, dpi: int = 300, antialiased: bool = True) -> Path:
    plt = pytest.importorskip("matplotlib.pyplot")
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1, 2, 3], [0 + shift, 1 + shift, 0 + shift, 1 + shift], antialiased=antialiased, lw=6)
    ax.set_ylim(-1, 4)
    fig.savefig(path, dpi=dpi)
    plt.close(fig)
    return path


def test_fingerprint_ignores_rendering_and_sees_a_moved_curve(tmp_path):
    first = _draw(tmp_path / "a.png", 0.0)
    assert same_drawing(first, _draw(tmp_path / "b.png", 0.0, antialiased=False))
    assert not same_drawing(first, _draw(tmp_path / "c.png", 2.5))
    assert not same_drawing(first, _draw(tmp_path / "d.png", 0.0, dpi=320))  # another size


def test_every_published_study_shows_each_of_its_figures_with_a_caption():
    blocks = figure_blocks(ROOT)
    for folder in stores(ROOT):
        study = folder.name
        captions = json.loads((ROOT / "docs" / "results" / study / "figures.json").read_text())
        assert captions, study
        page = (ROOT / "docs" / "results" / f"{study}.md").read_text()
        assert blocks[f"{study}:figures"] in page
        for name, caption in captions.items():
            assert (ROOT / "docs" / "results" / study / name).is_file()
            assert f"![{caption}]({study}/{name})" in page and caption.strip()
