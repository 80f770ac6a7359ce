"""Pages written from the published runs: ``fsmarena publish`` and ``fsmarena publish --check``.

Every number the documentation quotes from a published run (:mod:`fsmarena.studies.store`) sits between
two markers naming where it comes from, and this module writes it again from the store:

* a value, inside a line and never at its start (Markdown would take the line for an HTML
  block): ``<!-- value 421:q-learning.fraction_median .2% -->99.94%<!-- /value -->``
  (the key, then an optional Python format specification; without one an integer is written with
  thousands separators, a float with 4 significant digits);
* a generated block, markers on lines of their own: ``<!-- generated 421:report -->`` ...
  ``<!-- /generated -->`` (the run's whole report, or one of its sections).  A section only some
  runs write (one a scale or a stored run's settings call for) is opened with
  ``<!-- generated KEY if-written -->``: it is left empty when the study's report has no such
  section, and is still an error when the study itself is not published.

Keys are ``<study>:<name>``; :func:`published_keys` lists them: ``<study>:report`` and
``<study>:section.<heading>`` (blocks); ``<study>:run.<field>`` (the manifest: command, scale,
seed, tasks, CPU and wall time, versions); ``<study>:<competitor>.<column>`` and
``<study>:<name>`` (every row and scalar of the summary the study's report builder returns).
A key that is not published, a marker left open or a malformed format is one clear error naming
the file and line.  Fenced code outside generated blocks is left alone (a page may show markers).

The pages are ``README.md`` and every ``docs/**/*.md`` of the checkout; a published study without
its results page ``docs/results/<study>.md`` gets one holding its report.  A study's results page
may have a template beside it, ``docs/results/<study>.md.template`` (hand-written text around
markers): once ``published/<study>/`` exists, the page is written from the template (whatever
the page held); until then the template is not read and the page stays as it is, so a page can
be prepared before its run is published.
"""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fsmarena.errors import FsmarenaError
from fsmarena.fileio import read_text, write_text
from fsmarena.games import get_game
from fsmarena.games.registry import entries
from fsmarena.publish.figures import figure_blocks
from fsmarena.studies.report import write_report
from fsmarena.studies.results import StudyResults
from fsmarena.studies.store import add_run as add_run
from fsmarena.studies.store import load_store, stores
from fsmarena.text import clean_text

_VALUE = re.compile(r"<!-- value (\S+?)(?: (\S+?))? -->(.*?)<!-- /value -->")
_BLOCK_OPEN = re.compile(r"^<!-- generated (\S+)( if-written)? -->$")
_BLOCK_CLOSE = "<!-- /generated -->"
#: beside a results page: the text the page is written from once its study is published
TEMPLATE_SUFFIX = ".template"
_FORMAT = re.compile(r"^[ +\-]?#?0?\d{0,3}[,_]?(\.\d{1,2})?[dfegs%]?$")


@dataclass
class Published:
    """What the pages may quote: generated blocks and values, by key."""

    blocks: dict[str, str]
    values: dict[str, Any]

    def keys(self) -> list[str]:
        return sorted([*self.blocks, *self.values])


def published(root: str | Path) -> Published:
    """The blocks and values of every store under ``root/published``, and the blocks written from
    the registries (:func:`registry_blocks`) and the published figures
    (:func:`fsmarena.publish.figures.figure_blocks`)."""
    found = Published({**registry_blocks(root), **figure_blocks(root)}, {})
    for folder in stores(root):
        results = load_store(folder)
        report, summary = report_of(results)
        found.blocks.update(_blocks(results.name, report))
        found.values.update(_values(results, summary))
    return found


def registry_blocks(root: str | Path) -> dict[str, str]:
    """``fsmarena:games``: the table of every registered game (players, what it is, its rules
    page, its named studies with their results pages where ``root`` has them), so that a page's
    list of games is the registry's."""
    rows = []
    for item in entries():
        game = get_game(item.name)
        folder = item.game.split(":")[0].rsplit(".", 1)[0].replace(".", "/")
        studies = ", ".join(
            f"[{name}](docs/results/{name}.md)"
            if (Path(root) / "docs" / "results" / f"{name}.md").is_file()
            else f"`{name}`"
            for name in item.studies
        )
        rows.append(f"| `{item.name}` | {game.title} | [rules]({folder}/rules.md) | {studies or '–'} |")
    return {"fsmarena:games": "\n".join(["| game | what it is | rules | studies |", "|---|---|---|---|", *rows])}


def published_keys(root: str | Path) -> list[str]:
    return published(root).keys()


def report_of(results: StudyResults) -> tuple[str, dict[str, Any]]:
    """The report the study's own layout writes from a store (in a scratch folder: nothing is
    written beside the store), and the summary it returns."""
    with tempfile.TemporaryDirectory(prefix="fsmarena-publish-") as scratch:
        out = Path(scratch)
        summary = write_report(results.moved(out), figures=False)
        text = read_text(out / "report.md", "generated report")
    return text, summary


def _blocks(study: str, report: str) -> dict[str, str]:
    """``<study>:report``: the report without its title line; ``<study>:section.<slug>``: each
    of its ``##`` sections (heading included, up to the next ``##``) and each ``###`` section
    (up to the next ``##`` or ``###``; a ``##`` section of the same name wins)."""
    body = report.split("\n", 1)[1].strip() if report.startswith("# ") else report.strip()
    blocks = {f"{study}:report": body}
    for level, starts in (("## ", r"^(?=## )"), ("### ", r"^(?=###? )")):
        for section in re.split(starts, body, flags=re.M):
            heading = re.match(re.escape(level) + "(.+)", section)
            if heading:
                blocks.setdefault(f"{study}:section.{slug(heading.group(1))}", section.strip())
    return blocks


def slug(heading: str) -> str:
    """A heading as a key: lower case, words joined by '-'."""
    return "-".join(re.findall(r"[a-z0-9]+", heading.lower()))


def _values(results: StudyResults, summary: dict[str, Any]) -> dict[str, Any]:
    study, m = results.name, results.manifest
    assert m is not None  # a published run
    values: dict[str, Any] = {f"{study}:run.{k}": v for k, v in m.items() if k != "environment" and v is not None}
    values[f"{study}:run.cpu_minutes"] = m["cpu_seconds"] / 60
    if m["wall_seconds"] is not None:
        values[f"{study}:run.wall_minutes"] = m["wall_seconds"] / 60
    values.update({f"{study}:run.{k}": v for k, v in m["environment"].items()})
    for competitor, settings in results.settings.items():
        values.update({f"{study}:{competitor}.setting.{k}": v for k, v in settings.items()})
    for key, item in summary.items():
        if key in ("report", "lines"):
            continue
        if isinstance(item, (int, float, str)):
            values[f"{study}:{key}"] = item
        elif isinstance(item, list):
            for row in item:
                if isinstance(row, dict) and "competitor" in row:
                    values.update({f"{study}:{row['competitor']}.{col}": v for col, v in row.items()})
    return values


# ---- pages --------------------------------------------------------------------------------------


def pages(root: str | Path) -> list[Path]:
    """The pages that may quote published numbers: README.md and docs/**/*.md."""
    root = Path(root)
    found = [root / "README.md"] if (root / "README.md").is_file() else []
    return found + sorted((root / "docs").rglob("*.md"))


def default_page(study: str) -> str:
    """The results page of a newly published study: its report, nothing else."""
    return f"# {study}\n\n<!-- generated {study}:report -->\n<!-- /generated -->\n"


def render(text: str, where: str, found: Published) -> str:
    """``text`` (the page ``where``) with every marked value and block written from ``found``."""
    lines = text.split("\n")
    out: list[str] = []
    fenced = False
    block: tuple[str, int, bool] | None = None
    for number, line in enumerate(lines, 1):
        if block is not None:
            if line.strip() == _BLOCK_CLOSE:
                text = _block(found, block[0], f"{where}:{block[1]}", block[2])
                out += [text, line] if text else [line]
                block = None
            continue
        if line.startswith("```"):
            fenced = not fenced
        if fenced or line.startswith("```"):
            out.append(line)
            continue
        opening = _BLOCK_OPEN.match(line.strip())
        if opening:
            block = (opening.group(1), number, opening.group(2) is not None)
            out.append(line)
            continue
        if _BLOCK_CLOSE in line or "<!-- generated" in line:
            raise FsmarenaError(f"{where}:{number}: a generated-block marker must stand alone on its line, in pairs")
        if line.lstrip().startswith("<!-- value"):
            raise FsmarenaError(
                f"{where}:{number}: a value marker must not begin a line (Markdown would take the line for an HTML "
                "block); put the text before it on the same line"
            )
        line = _values_of_line(line, f"{where}:{number}", found)
        leftover = _VALUE.sub("", line)
        if "<!-- value" in leftover or "<!-- /value" in leftover:
            raise FsmarenaError(f"{where}:{number}: '<!-- value KEY -->' needs its '<!-- /value -->' on the same line")
        out.append(line)
    if block is not None:
        raise FsmarenaError(f"{where}:{block[1]}: '<!-- generated {block[0]} -->' has no '{_BLOCK_CLOSE}' line")
    return "\n".join(out)


def _values_of_line(line: str, where: str, found: Published) -> str:
    return _VALUE.sub(lambda match: _value(found, match, where), line)


def _block(found: Published, key: str, where: str, if_written: bool = False) -> str:
    """The text of block ``key``; empty for an ``if-written`` section its published study's report
    does not have."""
    if if_written and key not in found.blocks and f"{key.split(':', 1)[0]}:report" in found.blocks:
        return ""
    if key not in found.blocks:
        raise FsmarenaError(f"{where}: unknown published block '{clean_text(key, 80)}' ({_known(found.blocks)})")
    text = found.blocks[key]
    if "<!--" in text:
        raise FsmarenaError(f"{where}: the generated text of '{key}' holds an HTML comment (a damaged store?)")
    return text


def _value(found: Published, match: re.Match, where: str) -> str:
    key, spec = match.group(1), match.group(2)
    if key not in found.values:
        raise FsmarenaError(f"{where}: unknown published value '{clean_text(key, 80)}' ({_known(found.values)})")
    value = found.values[key]
    try:
        if spec is not None and not _FORMAT.match(spec):
            raise ValueError
        shown = _shown(value, spec)
    except (ValueError, TypeError):
        raise FsmarenaError(f"{where}: format '{clean_text(spec, 20)}' does not apply to '{key}' ({value!r})") from None
    if "<!--" in shown or "\n" in shown:
        raise FsmarenaError(f"{where}: the value of '{key}' holds an HTML comment or a line break (a damaged store?)")
    return f"<!-- value {key}{'' if spec is None else ' ' + spec} -->{shown}<!-- /value -->"


def _shown(value: Any, spec: str | None) -> str:
    if spec is not None:
        return format(value, spec)
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def _known(keys: dict[str, Any]) -> str:
    studies = sorted({k.split(":", 1)[0] for k in keys})
    return (
        f"published studies: {', '.join(studies)}; `fsmarena publish --keys` lists every key"
        if studies
        else ("nothing is published: `fsmarena publish --add DIR` stores a run")
    )


#: a note to the template's editors (``<!-- The template of ... -->``): not for the page's readers
TEMPLATE_NOTE = re.compile(r"<!-- The template of .*?-->\n*", re.S)


def without_template_notes(text: str) -> str:
    """A template's text without its notes to editors, which the page it writes does not carry."""
    return TEMPLATE_NOTE.sub("", text)


def publish(root: str | Path, check: bool = False) -> list[Path]:
    """Write every page that quotes published numbers (nothing when ``check``); returns the
    pages that changed (or would change)."""
    root = Path(root)
    found = published(root)
    texts: dict[Path, str] = {}
    sources: dict[Path, tuple[str, Path]] = {}  # what a page is written from, and that file
    for page in pages(root):
        texts[page] = read_text(page, "page")
        sources[page] = (texts[page], page)
    for folder in stores(root):
        page = root / "docs" / "results" / f"{folder.name}.md"
        template = page.with_name(page.name + TEMPLATE_SUFFIX)
        texts.setdefault(page, "")
        if template.is_file():
            sources[page] = (without_template_notes(read_text(template, "page template")), template)
        elif not texts[page]:
            sources[page] = (default_page(page.stem), page)
    rendered = {
        page: render(text, source.relative_to(root).as_posix(), found) for page, (text, source) in sources.items()
    }
    changed = [page for page, text in rendered.items() if text != texts[page]]
    if not check:  # every page rendered first: a bad marker anywhere writes nothing
        for page in changed:
            write_text(page, rendered[page])
    return changed
