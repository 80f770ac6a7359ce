"""The documentation site's own code: a mkdocs hook and the command-line reference.

* :func:`on_page_content` is the hook ``mkdocs.yml`` names: the docstrings use Sphinx roles
  (``:class:`Game```), which the API reference would otherwise show literally; the hook keeps
  the code and drops the role.
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

CLI_PAGE = Path(__file__).parent / "docs" / "cli.md"
BEGIN = "<!-- begin: generated from the argument parsers by `python mkdocs_hooks.py` -->"
END = "<!-- end: generated -->"
#: the width usage lines are wrapped at, fixed so that the page does not depend on the terminal
USAGE_WIDTH = 100

_ROLE = re.compile(r":(?:class|mod|func|meth|attr|data|exc|obj|const):(?=<code>)")


def on_page_content(html: str, **kwargs: Any) -> str:
    """Drop the Sphinx role in front of inline code (``:class:<code>X</code>`` -> ``<code>X</code>``)."""
    return _ROLE.sub("", html)


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
