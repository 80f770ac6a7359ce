"""Every figure carries a caption: the figure functions return one with their files (what is
shown, over how many replicates, what a band or an interval is), and every image embedded in
the documentation (outside docs/results/, which `fsmarena publish` writes) has an italic
caption paragraph right below it."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

import fsmarena.figures.curves
import fsmarena.figures.exact_values
import fsmarena.figures.exploitability
import fsmarena.figures.fingerprint
import fsmarena.figures.heatmap
import fsmarena.figures.outcomes
import fsmarena.figures.policy_map
import fsmarena.figures.target
import fsmarena.games.dice421.figures
from fsmarena.evo.fingerprint import Fingerprint
from fsmarena.figures.style import Drawn, plt

DOCS = Path(__file__).resolve().parent.parent / "docs"
IMAGE = re.compile(r"!\[[^\]]*\]\(([^)]+\.(?:png|svg|jpg|gif))\)")


def documentation_pages() -> list[Path]:
    return sorted(p for p in DOCS.rglob("*.md") if "results" not in p.relative_to(DOCS).parts)


def caption_below(lines: list[str], at: int) -> str:
    """The paragraph right below line ``at`` (after at most one blank line) if it is an
    italic caption (``*...*``, not bold), else ''."""
    k = at + 1
    if k < len(lines) and not lines[k].strip():
        k += 1
    paragraph = []
    while k < len(lines) and lines[k].strip():
        paragraph.append(lines[k].strip())
        k += 1
    text = " ".join(paragraph)
    italic = text.startswith("*") and not text.startswith("**") and text.endswith("*")
    return text.strip("*") if italic else ""


def test_the_scan_finds_images_and_their_captions():
    """The checker itself: an image followed by a caption passes, one without fails."""
    good = ["![x](a.png)", "", "*A caption that says what is shown.*", ""]
    assert caption_below(good, 0) == "A caption that says what is shown."
    assert caption_below(["![x](a.png)", "", "Plain text follows."], 0) == ""
    assert caption_below(["![x](a.png)", "", "**Bold** is a heading, not a caption.**"], 0) == ""
    assert caption_below(["![x](a.png)"], 0) == ""
    assert IMAGE.search("see ![Cross-play](paper-crossplay.png) here")


def test_every_image_in_the_documentation_has_a_caption_below_it():
    images = 0
    for page in documentation_pages():
        lines = page.read_text(encoding="utf-8").splitlines()
        for number, line in enumerate(lines):
            if not IMAGE.search(line):
                continue
            images += 1
            caption = caption_below(lines, number)
            where = f"{page.relative_to(DOCS)}:{number + 1}"
            assert caption, f"{where}: an image without an italic caption paragraph right below it"
            assert len(caption.split()) >= 12, f"{where}: the caption is too short to say what is shown"
    assert images >= 3  # index, machines and ground truth embed figures


# ---- the figure functions' own captions ----------------------------------------------------------


def _no_files(monkeypatch):
    """Figures are drawn but not written (each module's ``save`` returns no paths)."""
    for module in (
        fsmarena.figures.curves,
        fsmarena.figures.exploitability,
        fsmarena.figures.target,
        fsmarena.figures.heatmap,
        fsmarena.figures.outcomes,
        fsmarena.figures.fingerprint,
        fsmarena.figures.policy_map,
        fsmarena.figures.exact_values,
        fsmarena.games.dice421.figures,
    ):
        monkeypatch.setattr(module, "save", lambda fig, stem, *a, **k: plt.close(fig) or [])


def _draw_each(tmp_path) -> dict[str, Drawn]:
    """Every figure function of figures/ and of the games' figure modules, on small data."""
    from fsmarena.figures.exact_values import exact_value_curves, final_gaps
    from fsmarena.games.dtd.game import DivideTheDollar

    rng = np.random.default_rng(0)
    values = {"FSM": list(rng.uniform(0.6, 0.8, 4)), "Q": list(rng.uniform(0.5, 0.8, 4))}
    net = np.array([[0.0, 0.1], [-0.1, 0.0]])
    grid = np.linspace(0, 1, 3)
    curves = {m: [(np.array([1e3, 1e4, 1e5]), np.array([0.4, 0.5, 0.6]))] * 4 for m in values}
    game = DivideTheDollar()
    return {
        "net": fsmarena.figures.heatmap.net_score_heatmap(
            net, ["FSM", "Q"], tmp_path / "n", net - 0.05, net + 0.05, "", [4, 4]
        ),
        "win": fsmarena.figures.heatmap.win_rate_heatmap(net + 0.5, ["FSM", "Q"], tmp_path / "w", replicates=[4, 4]),
        "boxes": fsmarena.figures.outcomes.outcome_boxes({"random": values}, tmp_path / "b"),
        "ecdf": fsmarena.figures.outcomes.outcome_ecdfs({"vs random": values}, tmp_path / "e"),
        "fingerprint": fsmarena.figures.fingerprint.fingerprint_figure(
            [Fingerprint("FSM", grid, grid, rng.uniform(0.3, 0.7, (3, 3)), "x", "y", 20)], tmp_path / "f"
        ),
        "policy": fsmarena.figures.policy_map.policy_maps(
            {"Q": rng.integers(0, 3, (4, game.n_states))},
            [game.state_label(s) for s in range(game.n_states)],
            game.action_names,
            tmp_path / "p",
        ),
        "exact": exact_value_curves(curves, 0.7, tmp_path / "x"),
        "gaps": final_gaps(values, 0.9, tmp_path / "g"),
        "curves": fsmarena.figures.curves.learning_curves(curves, tmp_path / "l", opponent="random"),
        **_draw_study_figures(tmp_path),
    }


def _draw_study_figures(tmp_path) -> dict[str, Drawn]:
    """The figures of the target and exploitability studies, on rows shaped as their tables'."""
    from fsmarena.figures.exploitability import exploitability_curve_figure, exploitability_figure
    from fsmarena.figures.target import table_figure, versus_reference_figure

    champions = [[(0.6, 0.5, 0.7)] * 4, [(0.4, 0.3, 0.5)] * 4]
    families = [{"method": m, "confirm_win_rate": 0.6, "confirm_ci_low": 0.5, "confirm_ci_high": 0.7} for m in "AB"]
    summary = [{"group": g, "rate": 0.4, "rate_low": 0.3, "rate_high": 0.5} for g in ("A", "greedy")]
    entrants = [{"group": "A", "win_rate": 0.4}] * 4 + [{"group": "greedy", "win_rate": 0.35}]
    rows = [{"group": "A", "player": f"A{k}", "games": 1000 * (k + 1), "exploitability": 0.2} for k in range(4)]
    rows += [{"group": "builtin", "player": "greedy", "games": 0, "exploitability": 0.5}]
    curve = [{"reward": "wdl", "family": "A", "games": g, "median": 0.3, "min": 0.2, "max": 0.4} for g in (1e3, 1e4)]
    return {
        "versus": versus_reference_figure(champions, families, "greedy", 0.75, tmp_path / "v"),
        "table": table_figure(summary, entrants, 3, ["greedy", "greedy"], tmp_path / "t"),
        "exploit": exploitability_figure(rows, tmp_path / "ex"),
        "exploit_curve": exploitability_curve_figure(curve, ["wdl"], {}, tmp_path / "ec", {"wdl": "win/draw/loss"}),
    }


def test_every_figure_function_returns_its_caption(monkeypatch, tmp_path):
    _no_files(monkeypatch)
    drawn = _draw_each(tmp_path)
    for name, result in drawn.items():
        assert isinstance(result, Drawn) and isinstance(result, list), name
        assert len(result.caption.split()) >= 20, name
    for name in ("net", "boxes", "ecdf", "policy", "exact", "gaps", "curves"):
        assert "4 replicates" in drawn[name].caption, name  # how many replicates each group holds
    for name in ("versus", "exploit"):
        assert "4 champions" in drawn[name].caption, name
    for name in ("net", "win", "versus", "table"):
        assert "95%" in drawn[name].caption, name  # what the interval is
    for name in ("exact", "curves"):
        assert "inter-quartile" in drawn[name].caption, name  # what the band is


@pytest.mark.parametrize("kind", ["table-fsm", "bda"])
def test_a_studys_machine_drawing_comes_with_its_caption(tmp_path, kind):
    from fsmarena.evo.genome import genome_spec
    from fsmarena.games.dtd.game import DivideTheDollar
    from fsmarena.studies.analysis import draw_machine

    game = DivideTheDollar()
    spec = genome_spec(game, "fsm" if kind == "table-fsm" else "bda", 4)
    machine = spec.player(spec.random(np.random.default_rng(4), 1), label="best")
    drawn = draw_machine(machine, game, tmp_path / "best", title="best FSM")
    assert [p.suffix for p in drawn] == [".png", ".pdf"] and all(p.exists() for p in drawn)
    assert isinstance(drawn, Drawn) and "Minimised from the player file's 4 states" in drawn.caption
    assert "games against the game's builtins" in drawn.caption
