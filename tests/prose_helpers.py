"""What a page written for people must not contain (tests/test_report_prose.py): phrasings that
read as generated, "cannot be separated" beside an interval that excludes zero with no word on
which test decides, and sentences over :data:`MAX_WORDS` words."""

from __future__ import annotations

import re

MAX_WORDS = 60
#: phrasings no page may contain (issue 45: "p = < 0.0001", "ahead of no other family")
#: a bullet that names its subject and says nothing (``- MC: .``)
EMPTY_STATEMENT = re.compile(r"^\s*- [^\n]*?:\s*\.\s*$", re.M)
FORBIDDEN = ("p = <", "p = >", "ahead of no other family", "ahead of no family", "of no family")
#: an interval of one sign: both ends positive or both negative (an end printed as 0.0 touches
#: zero: the report words it from the unrounded ends)
ONE_SIGNED = re.compile(r"\[\+(?!0\.0 )[\d.]+ pp, \+[\d.]+ pp\]|\[−?-[\d.]+ pp, -(?!0\.0 )[\d.]+ pp\]")


def prose(text: str) -> str:
    """The running text of a Markdown page: no tables, headings, images, HTML, code or math."""
    kept, fenced = [], False
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("```"):
            fenced = not fenced
            continue
        if fenced or stripped.startswith(("|", "#", "!", "<", "$$")):
            continue
        kept.append(re.sub(r"`[^`]*`", "code", stripped))
    return "\n".join(kept)


def sentences(text: str) -> list[str]:
    """Sentences of the page's prose (bullets end a sentence; numbers such as 0.05 do not)."""
    parts = []
    for paragraph in re.split(r"\n\s*\n|\n(?=\s*[-*] )|\n(?=\s*\d+\. )", prose(text)):
        parts += re.split(r"(?<=[.!?;:])\s+(?=[A-Z*(\[])", " ".join(paragraph.split()))
    return [p for p in parts if p]


def prose_defects(text: str) -> list[str]:
    """Every defect of the page's prose (module docstring)."""
    body = prose(text)
    defects = [f"forbidden phrasing {phrase!r}" for phrase in FORBIDDEN if phrase in body]
    defects += [f"a statement with nothing said: {line.strip()!r}" for line in EMPTY_STATEMENT.findall(text)]
    for sentence in sentences(text):
        words = len(sentence.split())
        if words > MAX_WORDS:
            defects.append(f"{words}-word sentence: {sentence[:80]}...")
        for clause in re.split(r";\s+", sentence):
            if "cannot be separated" in clause and ONE_SIGNED.search(clause) and "decides" not in clause:
                defects.append(f"'cannot be separated' beside an interval excluding zero: {clause[:80]}...")
    return defects
