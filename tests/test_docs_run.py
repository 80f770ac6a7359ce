"""Docs that run: every shell command of README.md, docs/getting-started.md and every
docs/tutorials/*.md page runs, in the page's order, each page in a fresh temporary folder, and
fails the test on a non-zero exit.  The Python snippets of docs/tutorials/python-api.md run the
same way as those of docs/python-api.md (tests/test_python_api.py's extraction).

The conventions a page follows (docs/testing.md, "Docs that run"):

- the commands are the lines of fenced ``bash`` or ``console`` blocks (a ``\\`` continues a line;
  a ``$`` prompt is dropped);
- an HTML comment right before a block, invisible on the site, says what the test does with it:
  ``<!-- docs-run: skip, REASON -->`` leaves the block out (rare: say why),
  ``<!-- docs-run: needs MODULE -->`` leaves it out when an optional extra's module is missing,
  ``<!-- docs-run: file NAME -->`` before any other block writes its text to NAME in the folder,
  so a command after it can read the file;
- installation is what the test's own environment already did: the ``python3 -m venv``,
  ``. .venv/bin/activate`` and ``pip install`` steps of a ``&&`` chain are left out, and so is
  ``python -m pytest`` (the suite, which does not run itself);
- long runs are cut to a test size, unless ``FSMARENA_DOCS_RUN=full`` (read by this test only,
  never by fsmarena): the caps of ``REDUCED_CAPS`` and ``--scale test`` for every other scale.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from dataclasses import dataclass
from importlib.util import find_spec
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
TUTORIAL_API = ROOT / "docs" / "tutorials" / "python-api.md"
TUTORIALS = sorted(set((ROOT / "docs" / "tutorials").glob("*.md")) - {TUTORIAL_API})
PAGES = [ROOT / "README.md", ROOT / "docs" / "getting-started.md", *TUTORIALS]
MARKER = re.compile(r"<!--\s*docs-run:\s*(skip|needs|file)\b[,:]?\s*(.*?)\s*-->")
FENCE = re.compile(r"^```(\w*)\s*$")
SHELL_LANGUAGES = {"bash", "console", "sh", "shell"}

#: the largest value each option keeps in a reduced run (a value at or below it is kept as written)
REDUCED_CAPS = {
    "--episodes": 20_000,
    "--eval-every": 5_000,
    "--self-play-every": 5_000,
    "--eval-games": 1_000,
    "--games": 2_000,
    "--generations": 3,
}
#: the options a reduced evolve run adds when the page leaves them at a long default
REDUCED_DEFAULTS = {"evolve": {"--generations": "3"}}
#: the steps of a ``&&`` chain that install (the test's environment is installed already)
INSTALL_STEP = re.compile(r"^(python3? -m venv\b|\. \S*activate$|source \S*activate$|pip install\b|python -m pytest\b)")


@dataclass(frozen=True)
class Step:
    """One thing a page does, in order: run a shell command, or write a file."""

    kind: str  # "run" or "file"
    text: str
    name: str = ""


def page_steps(page: Path) -> list[Step]:
    """The page's commands and files in order, after its markers' skips."""
    lines = page.read_text(encoding="utf-8").splitlines()
    steps: list[Step] = []
    marker: tuple[str, str] | None = None
    index = 0
    while index < len(lines):
        found = MARKER.search(lines[index])
        fence = FENCE.match(lines[index])
        if found:
            marker = (found.group(1), found.group(2))
        elif fence and fence.group(1):
            end = next(i for i in range(index + 1, len(lines)) if lines[i].startswith("```"))
            steps += _block_steps(fence.group(1), lines[index + 1 : end], marker)
            marker, index = None, end
        elif lines[index].strip():
            marker = None
        index += 1
    return steps


def _block_steps(language: str, body: list[str], marker: tuple[str, str] | None) -> list[Step]:
    """The steps of one fenced block, given the marker before it."""
    kind, argument = marker or ("", "")
    if kind == "file":
        return [Step("file", "\n".join(body) + "\n", argument.split()[0])]
    if (
        language not in SHELL_LANGUAGES
        or kind == "skip"
        or (kind == "needs" and find_spec(argument.split()[0]) is None)
    ):
        return []
    joined = re.sub(r"\s*\\\n\s*", " ", "\n".join(body))
    commands = [line.strip().removeprefix("$ ") for line in joined.splitlines()]
    runs = [_without_install(command) for command in commands if command and not command.startswith("#")]
    return [Step("run", command) for command in runs if command]


def _without_install(command: str) -> str:
    """The command without the installation steps of its ``&&`` chain."""
    return " && ".join(part.strip() for part in command.split("&&") if not INSTALL_STEP.match(part.strip()))


def reduced(command: str) -> str:
    """The command at test size: each capped option at most its cap, every scale ``test``."""
    if os.environ.get("FSMARENA_DOCS_RUN") == "full":
        return command
    body, hash_, comment = command.partition(" #")
    words = shlex.split(body)
    for i, word in enumerate(words[:-1]):
        if word in REDUCED_CAPS and words[i + 1].isdigit():
            words[i + 1] = str(min(int(words[i + 1]), REDUCED_CAPS[word]))
        if word == "--scale":
            words[i + 1] = "test"
    if len(words) > 1 and words[0] == "fsmarena":
        for option, value in REDUCED_DEFAULTS.get(words[1], {}).items():
            if option not in words:
                words += [option, value]
    return shlex.join(words)


def run_page(page: Path, folder: Path) -> None:
    """Run the page's steps in ``folder``; fail naming the first command that exits non-zero."""
    shims = folder / ".bin"
    shims.mkdir()
    (shims / "fsmarena").write_text(f'#!/bin/sh\nexec "{sys.executable}" -m fsmarena "$@"\n', encoding="utf-8")
    (shims / "fsmarena").chmod(0o755)
    env = {**os.environ, "PATH": f"{shims}{os.pathsep}{os.environ['PATH']}", "PYTHONPATH": str(ROOT)}
    for step in page_steps(page):
        if step.kind == "file":
            (folder / step.name).write_text(step.text, encoding="utf-8")
            continue
        command = reduced(step.text)
        done = subprocess.run(["bash", "-c", command], cwd=folder, env=env, capture_output=True, text=True)
        assert done.returncode == 0, f"{page.name}: `{command}` exited {done.returncode}:\n{done.stderr[-2000:]}"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=lambda page: page.name)
def test_every_command_of_the_page_runs_in_order(page: Path, tmp_path: Path) -> None:
    run_page(page, tmp_path)


def test_the_pages_follow_the_conventions(tmp_path: Path) -> None:
    """Every page has commands, the markers parse, and a reduced command keeps its meaning:
    each cap applied, a value under its cap kept, comments dropped, the command otherwise the same."""
    for page in PAGES:
        assert any(step.kind == "run" for step in page_steps(page)), page.name
    assert (
        reduced("fsmarena train dtd --episodes 2000000 --eval-every 100 --out runs/q  # thesis")
        == ("fsmarena train dtd --episodes 20000 --eval-every 100 --out runs/q")
        or os.environ.get("FSMARENA_DOCS_RUN") == "full"
    )
    page = tmp_path / "page.md"
    page.write_text(
        "<!-- docs-run: skip, installs -->\n```bash\npip install x\n```\n"
        "<!-- docs-run: file a.toml -->\n```toml\nx = 1\n```\n"
        "<!-- docs-run: needs no_such_module_here -->\n```bash\nfsmarena games\n```\n"
        "```bash\npython3 -m venv .venv && pip install -e . && fsmarena play dtd \\\n    random random\n$ fsmarena games\n```\n",
        encoding="utf-8",
    )
    assert page_steps(page) == [
        Step("file", "x = 1\n", "a.toml"),
        Step("run", "fsmarena play dtd random random"),
        Step("run", "fsmarena games"),
    ]


def python_snippets(page: Path) -> list[str]:
    """The page's ``python`` blocks, extracted as tests/test_python_api.py extracts its page's."""
    return re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)


@pytest.mark.slow
def test_the_python_api_tutorial_snippets_run_in_order(tmp_path: Path) -> None:
    """The snippets of the Python-API tutorial run as one script, in a fresh folder."""
    script = "\n\n".join(python_snippets(TUTORIAL_API))
    assert script.strip(), "the tutorial has no Python snippets"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr[-2000:]
