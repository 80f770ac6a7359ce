"""The seeds section: seed files that parse and name only real study settings, verdicts that follow
from the replicates' interval (hand-worked and simulated cases with a known answer), and the stale
figures of earlier runs gone from docs/."""

from __future__ import annotations

import re
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from fsmarena.errors import FsmarenaError
from fsmarena.studies import seeds_section
from fsmarena.studies.seeds_section import compare, comparisons, read_seed, section, settings_table
from fsmarena.studies.store import load_store, stores

ROOT = Path(__file__).resolve().parent.parent
SEED_FILES = sorted((ROOT / "fsmarena" / "games").glob("*/seed.toml"))
#: 421's optimal expected score (backward induction; fsmarena/games/dice421/421.toml)
OPTIMUM_421 = float(Fraction(553679, 139968))


def test_hand_worked_interval_decides_the_verdict():
    # replicates 0.6 and 0.8: mean 0.7, sd 0.1414, t(0.975, 1) = 12.706, half-width 12.706 * 0.1 = 1.2706
    assert compare("x", 1.9, 0.0, [0.6, 0.8]).verdict == "agrees"
    assert compare("x", 2.0, 0.0, [0.6, 0.8]).verdict == "differs"
    assert compare("x", 2.0, 0.05, [0.6, 0.8]).verdict == "agrees"  # the seed's tolerance widens it
    one = compare("x", 0.5, 0.1, [0.65])
    assert (one.low, one.high, one.verdict) == (0.65, 0.65, "differs")
    assert compare("x", 0.56, 0.1, [0.65]).verdict == "agrees"


def test_simulated_replicates_agree_with_their_own_mean_and_differ_from_another():
    rng = np.random.default_rng(45)
    hits = 0
    for _ in range(400):
        samples = list(rng.normal(0.7, 0.02, size=20))
        hits += compare("x", 0.7, 0.0, samples).verdict == "agrees"
        assert compare("x", 0.75, 0.0, samples).verdict == "differs"  # 11 standard errors away
    assert 0.92 <= hits / 400 <= 0.98  # a 95% interval covers the true mean about 95% of the time


def test_not_comparable_keeps_its_reason_and_no_replicate_is_not_comparable():
    c = compare("x", 0.7, 0.0, [0.7, 0.71], "another table")
    assert (c.verdict, c.why) == ("not comparable", "another table")
    assert compare("x", 0.7, 0.0, []).verdict == "not comparable"


#: published studies no seed document speaks of: the iterated prisoner's dilemma came after them,
#: and vautour-deep asks a question no seed asked (deep families at budgets they can afford)
SEEDLESS = {"ipd", "vautour-deep"}


def test_every_published_study_has_a_seed_file_naming_only_real_settings():
    covered = {}
    for path in SEED_FILES:
        for study in read_seed(path)["studies"]:
            covered[study] = path
    published = {folder.name: folder for folder in stores(ROOT) if folder.name not in SEEDLESS}
    assert set(published) <= set(covered) and SEEDLESS.isdisjoint(covered)
    for name, folder in published.items():
        results = load_store(folder)
        seed = read_seed(covered[name])
        assert settings_table(results, seed)  # every 'study' key resolves, else FsmarenaError
        assert len(comparisons(results, seed)) == len(seed.get("reported", []))
        text = section(results, False)
        assert text.startswith("## The seed")


def test_421_value_iteration_differs_from_the_seed_and_agrees_with_the_optimum(tmp_path, monkeypatch):
    results = load_store(ROOT / "published" / "421")
    rows = {c.what: c for c in comparisons(results, read_seed(ROOT / "fsmarena/games/dice421/seed.toml"))}
    assert rows["value iteration's mean score"].verdict == "differs"  # 3.314 + 0.341 < 3.956
    assert rows["value iteration's mean score"].mean == pytest.approx(OPTIMUM_421)
    seed = tmp_path / "seed.toml"
    seed.write_text(
        'seed = "999"\nstudies = ["421"]\nsummary = "s"\n'
        + "".join(
            f'[[reported]]\nwhat = "{what}"\nvalue = {value}\nquote = "q"\nwhere = "w"\n'
            f'competitor = "value-iteration"\nmeasure = "exact_value"\ntolerance = 1e-9\n'
            for what, value in (("same", OPTIMUM_421), ("lower", 3.9))
        )
    )
    monkeypatch.setattr(seeds_section, "seed_path", lambda _: seed)
    text = section(results, False)
    assert re.search(r"\| same \|.*\| agrees \|", text) and re.search(r"\| lower \|.*\| differs \|", text)


def test_vautour_page_names_its_field_as_the_studys_not_the_seeds():
    text = section(load_store(ROOT / "published" / "vautour"), False)
    assert "adds prize-rank, so it is this study's field, not the seed's" in text


def test_a_setting_the_study_lacks_or_a_broken_seed_file_is_one_clear_error(tmp_path):
    results = load_store(ROOT / "published" / "421")
    bad = {"settings": [{"name": "n", "seed_value": 1, "quote": "q", "study": "mc.no-such-setting"}]}
    with pytest.raises(FsmarenaError, match="not a setting"):
        settings_table(results, bad)
    broken = tmp_path / "seed.toml"
    broken.write_text('seed = "1"\nstudies = ["421"]\n[[reported]]\nwhat = "w"\n')
    with pytest.raises(FsmarenaError, match="lacks"):
        read_seed(broken)


def test_stale_figures_are_gone_and_every_page_image_exists():
    for name in ("thirtyone-versus-greedy", "thirtyone-table-3p", "vautour-league-2p", "paper-learning-curves"):
        assert not (ROOT / "docs" / f"{name}.png").exists()
    for page in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]:
        for target in re.findall(r"!\[[^\]]*\]\(([^)\s]+\.png)\)", page.read_text()):
            assert (page.parent / target).is_file(), f"{page}: {target}"
