"""Pages written for people: every generated report and every published results page is read
for the forbidden phrasings, "cannot be separated" beside an interval that excludes zero without
the deciding test, and sentences over 60 words (tests/prose_helpers.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import runnable_studies, study_once
from prose_helpers import MAX_WORDS, prose_defects

from fsmarena.studies.report_text import p_is

RESULTS = Path(__file__).resolve().parent.parent / "docs" / "results"


def test_the_checks_catch_each_defect():
    """Each check fails on a page that has the defect and passes once it is fixed."""
    long = " ".join(["word"] * (MAX_WORDS + 1)) + "."
    assert any("word sentence" in d for d in prose_defects(f"Intro.\n\n{long}\n"))
    assert prose_defects("Holm p = < 0.0001 for this.") == ["forbidden phrasing 'p = <'"]
    assert prose_defects("- MC is ahead of no other family.")
    assert prose_defects("Cross-play:\n  - MC (evo): .\n") == ["a statement with nothing said: '- MC (evo): .'"]
    assert not prose_defects("Cross-play:\n  - MC (evo): behind all 7 other families.\n")
    bad = "- **A vs B**: cannot be separated (+5.0 pp [+1.0 pp, +9.0 pp] net)."
    assert prose_defects(bad)
    assert not prose_defects(bad.replace("cannot be separated", "the sign test decides, not separated"))
    assert not prose_defects(bad.replace("[+1.0 pp", "[+0.0 pp"))  # an end that rounds to zero touches it
    assert prose_defects(bad.replace("[+1.0 pp, +9.0 pp]", "[-9.0 pp, -1.0 pp]"))
    table = "| " + " | ".join(["cell"] * 80) + " |"
    assert not prose_defects(f"A short sentence.\n\n{table}\n")  # tables are not prose


def test_p_values_are_written_as_a_reader_writes_them():
    assert p_is(0.00001) == "p < 0.0001"
    assert p_is(0.0312, "Holm p") == "Holm p = 0.0312"


def _pages(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*.md"))


@pytest.mark.slow
@pytest.mark.parametrize("study", runnable_studies())
def test_every_generated_page_reads_as_written(tmp_path_factory, study):
    out, _ = study_once(tmp_path_factory, study)
    pages = _pages(out)
    assert pages
    defects = {str(p.relative_to(out)): prose_defects(p.read_text(encoding="utf-8")) for p in pages}
    assert not {page: found for page, found in defects.items() if found}


@pytest.mark.parametrize("page", sorted(RESULTS.glob("*.md")), ids=lambda p: p.name)
def test_every_published_page_reads_as_written(page):
    assert not prose_defects(page.read_text(encoding="utf-8"))
