"""Hostile labels (control characters, surrogates, escape sequences, TeX) reach neither the
terminal nor files raw: players, tournaments, studies, figures, machine drawings and error lines.

Every case ends as the README promises (:mod:`hostile_helpers` says how).
"""

from __future__ import annotations

import csv
import json
import unicodedata
from pathlib import Path

import pytest
from cli_helpers import run_cli
from hostile_helpers import (
    EVOLVE,
    STUDY_TOML,
    assert_one_clear_line,
    files,
    hostile,
)
from hypothesis import given
from hypothesis import strategies as st

from fsmarena.text import clean_text

# ---- labels -------------------------------------------------------------------------------------


@hostile
@given(
    label=st.text(st.characters(codec=None, exclude_categories=()), max_size=40)
    | st.sampled_from(["\x1b[31mred\x1b[0m", "\ud800", "a\nb\rc", "\x1b]0;title\x07", "\x9b2J"])
)
def test_sanitised_text_has_no_control_characters_or_surrogates(label):
    clean = clean_text(label)
    clean.encode("utf-8")  # raises on a lone surrogate
    assert not any(ord(c) < 32 or 0x7F <= ord(c) <= 0x9F for c in clean)
    assert len(clean) <= 200


def test_hostile_labels_reach_neither_terminal_nor_files_raw(tmp_path, capsys):
    assert run_cli(capsys, *EVOLVE, "--out", tmp_path / "evo")[0] == 0
    data = json.loads((tmp_path / "evo" / "best.json").read_text())
    data["label"] = "\x1b[2J\x1b[31mevil\ud800\nline"
    player = tmp_path / "evil.json"
    player.write_text(json.dumps(data))
    code, out, err = run_cli(capsys, "play", "dtd", player, "random", "--games", "10")
    assert code == 0, err
    assert "\x1b" not in out and "\ud800" not in out and "?[31mevil" in out
    code, out, err = run_cli(
        capsys, "tournament", "dtd", player, "random", "--games", "10", "--quiet", "--out", tmp_path / "t"
    )
    assert code == 0, err
    for path in (tmp_path / "t").iterdir():
        if path.suffix in (".csv", ".json"):
            text = path.read_text(encoding="utf-8")
            assert "\x1b" not in text and "\\u001b" not in text
    code, out, err = run_cli(capsys, "draw", player, "--out", tmp_path / "m.dot")
    assert code == 0, err
    assert "\x1b" not in (tmp_path / "m.dot").read_text()


#: labels and titles that each broke draw, the tournament heat map or a study figure, or reached
#: a terminal or a spreadsheet raw (issue #27): mathtext, format, bidi and separator characters,
#: a lone surrogate, formula-leading cells, and sizes
HOSTILE_TEXTS = {
    "dollars": "$$",
    "macro": "$\\undefinedmacro$",
    "deep-braces": "${" + "{" * 400 + "$",
    "zero-width": "a\u200bb\ufeff",
    "bidi-separator": "\u202eabc\u2028d\u2029",
    "surrogate": "x\ud800y",
    "private-unassigned": "\ue000\u0378\U000e0001",
    "formula-equals": '=HYPERLINK("http://x","y")',
    "formula-plus": "+1+1",
    "formula-minus": "-2+3",
    "formula-at": "@SUM(A1:A9)",
    "huge": "W" * 30_000,
}


def hostile_player(folder: Path, name: str, label: str) -> Path:
    """A 1-state table FSM for dtd labelled ``label`` (written as raw JSON: the label uncleaned)."""
    from fsmarena.evo.table_fsm import TableFSM
    from fsmarena.games.dtd.game import DivideTheDollar
    from fsmarena.games.players import player_to_json

    data = player_to_json(TableFSM([[0, 0, 0, 0]], [[0, 1, 2, 0]], inputs="opp_last"), DivideTheDollar())
    data["label"] = label
    path = folder / f"{name}.json"
    path.write_text(json.dumps(data))  # json escapes a lone surrogate as \ud800
    return path


def assert_clean_output(text: str) -> None:
    """Nothing of a forbidden Unicode category (line breaks aside) and no line of megabytes."""
    from fsmarena.text import FORBIDDEN_CATEGORIES

    assert not [c for c in text.replace("\n", "") if unicodedata.category(c) in FORBIDDEN_CATEGORIES]


@pytest.mark.parametrize("name", list(HOSTILE_TEXTS))
def test_draw_takes_any_label_and_title(tmp_path, capsys, name):
    text = HOSTILE_TEXTS[name]
    player = hostile_player(tmp_path, name, text)
    for fmt in ("png", "pdf", "svg"):
        out = tmp_path / f"m.{fmt}"
        code, stdout, err = run_cli(capsys, "draw", player, "--out", out, "--games", "0", f"--title={text}")
        assert (code, err) == (0, ""), err
        assert out.stat().st_size > 0
        assert_clean_output(stdout)
    svg = (tmp_path / "m.svg").read_text(encoding="utf-8")
    assert "\u200b" not in svg and "\u202e" not in svg and "W" * 300 not in svg


def csv_cells(path: Path) -> list[str]:
    with open(path, newline="", encoding="utf-8") as handle:
        return [cell for row in csv.reader(handle) for cell in row]


def test_tournament_heat_map_tables_and_terminal_take_any_label(tmp_path, capsys):
    """Every hostile label in one round robin: the heat maps are drawn, the terminal and the
    CSV files get no forbidden character, and no CSV cell is a formula (a leading ' defuses it)."""
    players = [hostile_player(tmp_path, name, text) for name, text in HOSTILE_TEXTS.items()]
    out = tmp_path / "t"
    code, stdout, err = run_cli(capsys, "tournament", "dtd", *players, "random", "--games", "4", "--out", out)
    assert (code, err) == (0, ""), err
    assert_clean_output(stdout)
    assert (out / "heatmap.png").stat().st_size and (out / "heatmap.pdf").stat().st_size
    for table in ("matrix.csv", "results.csv"):
        cells = csv_cells(out / table)
        assert_clean_output("".join(cells))
        for cell in cells:
            if cell.startswith(("=", "+", "-", "@")):
                float(cell)  # only numbers may start like a formula
        assert '\'=HYPERLINK("http://x","y")' in cells and "'-2+3" in cells and "'@SUM(A1:A9)" in cells
    assert_clean_output((out / "tournament.json").read_text(encoding="utf-8"))


def test_study_figures_and_tables_take_hostile_competitor_labels(tmp_path, capsys):
    """Competitor labels with mathtext, format and bidi characters and a formula reach the
    study's figures (heat map, boxes, curves) and tables cleaned and defused."""
    labels = ["$$", "=1+1", "a\\u200bb\\ufeff\\u202e\\u2028"]
    competitors = "".join(
        f'[[competitors]]\nname = "c{i}"\nlabel = "{label}"\nmethod = "train"\n'
        'params = { algo = "q-learning", episodes = 1000, eval_games = 50 }\n\n'
        for i, label in enumerate(labels)
    )
    text = STUDY_TOML.format(panel_games=50, halfwidth=0.3, extra="").split("[[competitors]]")[0]
    text += competitors + "[scales.test]\nreplicates = 1\npanel_games = 50\ncrossplay_halfwidth = 0.3\n"
    study = tmp_path / "hostile.toml"
    study.write_text(text)
    out = tmp_path / "out"
    code, _, err = run_cli(capsys, "study", study, "--scale", "test", "--out", out, "--quiet")
    assert (code, err) == (0, ""), err
    written = files(out)
    assert any(name.startswith("figures/") and name.endswith(".pdf") for name in written)
    for name, content in written.items():
        if name.endswith((".csv", ".md", ".json")):
            assert_clean_output(content.decode("utf-8"))
        if name.endswith(".csv"):
            for cell in csv_cells(out / name):
                assert not cell.startswith("=1+1"), name


def test_error_lines_are_sanitised_too(tmp_path, capsys):
    code, _, err = run_cli(capsys, "play", "dtd", str(tmp_path / "\x1b[31mmissing.json"), "random")
    assert_one_clear_line(code, err)
    assert "\x1b" not in err
