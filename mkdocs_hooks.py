"""The documentation site's own code: the mkdocs hooks, the rules pages and the command-line reference.

* :func:`on_page_content`: the docstrings use Sphinx roles (``:class:`Game```), which the API
  reference would otherwise show literally; the hook keeps the code and drops the role.
* :func:`on_config` and :func:`on_files`: every registered game's rules page lives in its own
  folder (``fsmarena/games/<name>/rules.md``, next to its code); the site shows it as
  ``rules/<game>.md`` (so other pages link to ``rules/dtd.md``) and lists it under the ``Rules``
  section of the navigation, which ``mkdocs.yml`` leaves empty.  A new game's page is on the
  site with no edit here or in ``mkdocs.yml`` (:func:`rules_pages`).
* :func:`cli_reference` writes the options of every ``fsmarena`` command as Markdown, from the
  real argument parsers.  ``docs/cli.md`` holds its output between two markers, and
  ``tests/test_docs.py`` fails when that copy differs from a fresh one, so the page cannot go
  stale.  ``python mkdocs_hooks.py`` rewrites the copy.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path
from typing import Any

from fsmarena.games.registry import game_folder, game_names

CLI_PAGE = Path(__file__).parent / "docs" / "cli.md"
BEGIN = "<!-- begin: generated from the argument parsers by `python mkdocs_hooks.py` -->"
END = "<!-- end: generated -->"
#: the width usage lines are wrapped at, fixed so that the page does not depend on the terminal
USAGE_WIDTH = 100

#: the navigation section the hook fills with the rules pages (empty in ``mkdocs.yml``)
RULES_SECTION = "Rules"
#: where a rules page is on the site (``rules/<game>.md``) and in the game's folder
RULES_FOLDER = "rules"
RULES_FILE = "rules.md"

_ROLE = re.compile(r":(?:class|mod|func|meth|attr|data|exc|obj|const):(?=<code>)")


def on_page_content(html: str, **kwargs: Any) -> str:
    """Drop the Sphinx role in front of inline code (``:class:<code>X</code>`` -> ``<code>X</code>``)."""
    return _ROLE.sub("", html)


def rules_pages() -> dict[str, Path]:
    """Every registered game's rules page: its path on the site (``rules/<game>.md``) -> the
    file in the game's folder, in registration order."""
    return {f"{RULES_FOLDER}/{name}.md": game_folder(name) / RULES_FILE for name in game_names()}


def site_source(path: Path, docs: Path) -> Path:
    """The file behind ``path``, a path on the site under the docs folder ``docs``: a rules
    page's file in its game's folder, any other page itself."""
    try:
        relative = path.resolve().relative_to(docs.resolve()).as_posix()
    except ValueError:
        return path
    return rules_pages().get(relative, path)


def rules_title(page: Path) -> str:
    """A rules page's title in the navigation: its first heading up to `` (`` (``# 421
    (`421`, seed 002)`` -> ``421``)."""
    for line in page.read_text(encoding="utf-8").splitlines():
        if line.startswith("# "):
            return line[2:].split(" (", 1)[0].strip()
    raise ValueError(f"{page} has no '# ' heading")


def rules_nav() -> list[dict[str, str]]:
    """The ``Rules`` section of the navigation: one entry per registered game."""
    return [{rules_title(source): site} for site, source in rules_pages().items()]


def on_config(config: Any, **kwargs: Any) -> Any:
    """Fill the ``Rules`` section of the navigation with every registered game's page."""
    for item in config["nav"] or []:
        if isinstance(item, dict) and RULES_SECTION in item:
            item[RULES_SECTION] = rules_nav()
            return config
    raise ValueError(f"mkdocs.yml has no nav section '{RULES_SECTION}' for the rules pages")


def on_files(files: Any, config: Any, **kwargs: Any) -> Any:
    """Add every registered game's rules page (``fsmarena/games/<name>/rules.md``) as ``rules/<game>.md``."""
    from mkdocs.structure.files import File

    for site, source in rules_pages().items():
        files.append(File.generated(config, site, abs_src_path=str(source)))
    return files


def on_serve(server: Any, config: Any, builder: Any, **kwargs: Any) -> Any:
    """``mkdocs serve`` rebuilds when a rules page in a game's folder changes."""
    for source in rules_pages().values():
        server.watch(str(source))
    return server


def commands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    """The sub-command parsers of ``parser``, by name, in the order ``fsmarena --help`` lists them."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def documented_actions(parser: argparse.ArgumentParser) -> list[argparse.Action]:
    """The arguments of one command that the reference lists (all but ``--help``)."""
    return [a for a in parser._actions if not isinstance(a, argparse._HelpAction)]


def _name(action: argparse.Action) -> str:
    if not action.option_strings:
        return f"`{action.metavar or action.dest}`"
    flags = ", ".join(f"`{flag}`" for flag in action.option_strings)
    if action.nargs == 0:
        return flags
    if action.choices is not None:
        return f"{flags} `{{{','.join(str(c) for c in action.choices)}}}`"
    metavar = action.metavar or action.dest.upper()
    return f"{flags} `{metavar if isinstance(metavar, str) else ' '.join(metavar)}`"


def _default(action: argparse.Action) -> str:
    value = action.default
    if action.nargs == 0 or value is None or value in ([], "") or value is argparse.SUPPRESS:
        return ""
    if isinstance(value, (list, tuple)):
        value = " ".join(str(v) for v in value)
    return f"`{value}`"


def _help(parser: argparse.ArgumentParser, action: argparse.Action) -> str:
    text = parser._get_formatter()._expand_help(action) if action.help else ""
    if action.required and action.option_strings:
        text = f"required; {text}"
    return " ".join(text.split()).replace("|", "\\|")


def _usage(parser: argparse.ArgumentParser) -> str:
    formatter = argparse.HelpFormatter(parser.prog, width=USAGE_WIDTH)
    formatter.add_usage(parser.usage, parser._actions, parser._mutually_exclusive_groups, prefix="")
    return formatter.format_help().strip()


def command_section(name: str, parser: argparse.ArgumentParser) -> str:
    """One command: its description, usage line and a table of every argument."""
    rows = ["| argument | default | meaning |", "|---|---|---|"]
    rows += [f"| {_name(a)} | {_default(a)} | {_help(parser, a)} |" for a in documented_actions(parser)]
    return "\n".join(
        [f"## `fsmarena {name}`", "", parser.description or "", "", "```text", _usage(parser), "```", "", *rows]
    )


def cli_reference() -> str:
    """Every command's section, generated from ``fsmarena.cli.build_parser()``."""
    from fsmarena.cli import build_parser

    sections = [command_section(name, sub) for name, sub in commands(build_parser()).items()]
    return "\n\n".join(sections) + "\n"


def with_reference(page: str, reference: str) -> str:
    """``page`` with the text between its two markers replaced by ``reference``."""
    head, rest = page.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n\n{reference}\n{END}{tail}"


def generated_part(page: str) -> str:
    """The text between the markers of ``page``, as :func:`with_reference` wrote it."""
    return page.split(BEGIN, 1)[1].split(END, 1)[0].strip("\n") + "\n"


if __name__ == "__main__":
    from fsmarena.fileio import write_text

    write_text(CLI_PAGE, with_reference(CLI_PAGE.read_text(encoding="utf-8"), cli_reference()))
    print(f"wrote {CLI_PAGE}", file=sys.stderr)
