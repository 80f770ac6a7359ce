"""The documentation keeps up with the code: links resolve, the command-line reference lists
every option the parsers define, every ``fsmarena ...`` command shown in the docs parses, the
tutorial's study file is a valid study, every rules page names its game's parameters and
builtins, and (slow) the site builds with ``mkdocs build --strict``."""

from __future__ import annotations

import importlib.util
import re
import shlex
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

import mkdocs_hooks
from fsmarena.cli import build_parser
from fsmarena.commands._common import game_from_args
from fsmarena.games import get_game
from fsmarena.games.registry import game_folder, game_names

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
PAGES = sorted(DOCS.rglob("*.md"))
#: the rules pages, each in its game's folder: the site shows them as docs/rules/<game>.md
RULES_PAGES = {source: DOCS / site for site, source in mkdocs_hooks.rules_pages().items()}
MARKDOWN = [ROOT / "README.md", ROOT / "CHANGELOG.md", *PAGES, *RULES_PAGES]
#: pages whose code blocks are examples to copy: their ``fsmarena`` commands must parse
EXAMPLE_PAGES = [ROOT / "README.md", *(p for p in PAGES if not p.is_relative_to(DOCS / "api")), *RULES_PAGES]

_FENCE = re.compile(r"^```.*?^```", re.S | re.M)
_LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")
_CODE_BLOCK = re.compile(r"^```(bash|sh|console|text|)\n(.*?)^```", re.S | re.M)


def _rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


# ---- links --------------------------------------------------------------------------------------


def slugify(heading: str) -> str:
    """A heading's anchor, as the site's table of contents (Python-Markdown's ``toc``) makes it."""
    text = unicodedata.normalize("NFKD", re.sub(r"[`*]", "", heading)).encode("ascii", "ignore").decode()
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", text).strip().lower())


def anchors(text: str) -> set[str]:
    """The anchors of a page's headings, as the site's table of contents makes them."""
    headings = re.findall(r"^#{1,6} +(.+?) *$", _FENCE.sub("", text), re.M)
    return {slugify(h) for h in headings}


def broken_links(path: Path, text: str) -> list[str]:
    """Relative links of ``text`` (the page at ``path`` on the site) to a missing file or
    heading; a link to a rules page on the site reads the file in its game's folder."""
    problems = []
    for target in _LINK.findall(_FENCE.sub("", text)):
        if re.match(r"^[a-z]+:", target):
            continue  # http:, https:, mailto:
        file_part, _, anchor = target.partition("#")
        linked = mkdocs_hooks.site_source(path.parent / file_part, DOCS).resolve() if file_part else path
        if not linked.exists():
            problems.append(f"{target}: no file {linked}")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text(encoding="utf-8")):
            problems.append(f"{target}: no heading for #{anchor} in {linked.name}")
    return problems


def test_the_link_checker_finds_a_missing_file_and_a_missing_heading(tmp_path):
    page = tmp_path / "page.md"
    page.write_text("# Title\n\n## A `code` heading\n", encoding="utf-8")
    text = "[ok](page.md#a-code-heading) [ok](#title) [gone](nowhere.md) [bad](page.md#nope) [web](https://x.org/y)"
    assert broken_links(page, text) == [
        f"nowhere.md: no file {tmp_path / 'nowhere.md'}",
        "page.md#nope: no heading for #nope in page.md",
    ]
    assert broken_links(page, "```\n[in code](nowhere.md)\n```\n") == []


@pytest.mark.parametrize("path", MARKDOWN, ids=_rel)
def test_every_relative_link_points_at_an_existing_file(path):
    """Checked where the page is on the site (a rules page at docs/rules/<game>.md)."""
    assert broken_links(RULES_PAGES.get(path, path), path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize("path", sorted((DOCS / "results").glob("*.md")), ids=_rel)
def test_a_results_page_holds_each_section_once(path):
    """A page written from generated blocks must not hold a section twice (a "##" block takes
    every "###" section up to the next "##"; a template that also names one of those repeats it)."""
    text = re.sub(r"```.*?```", "", path.read_text(encoding="utf-8"), flags=re.S)
    path_of: list[str] = []  # the headings above the current one, one per level
    seen = []
    for heading in re.findall(r"^#{1,4} .+$", text, flags=re.M):
        level = len(heading) - len(heading.lstrip("#"))
        path_of = path_of[: level - 1] + [""] * max(0, level - 1 - len(path_of)) + [heading]
        seen.append(tuple(path_of))  # the same "###" under two "##" (or "####" under two "###") is two sections
    assert sorted({s for s in seen if seen.count(s) > 1}) == []


def test_readme_is_a_front_page_of_100_to_250_lines_without_a_list_of_runs():
    """A front door: what it is, two commands, one result, where next; timings belong in
    docs/performance.md, not a journal of runs on the first page."""
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 100 <= text.count("\n") <= 250
    assert len(re.findall(r"\d+ min \d+ s|\d+(?:\.\d+)? CPU-min", text)) == 0


def nav_pages(nav: object) -> list[str]:
    """Every page file named in a mkdocs ``nav`` (nested lists of ``{title: page}``)."""
    if isinstance(nav, str):
        return [nav]
    if isinstance(nav, dict):
        return [page for value in nav.values() for page in nav_pages(value)]
    if isinstance(nav, list):
        return [page for item in nav for page in nav_pages(item)]
    return []


def test_every_page_is_in_the_site_navigation():
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with mkdocs (pip install -e '.[docs]')")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    listed = nav_pages(config["nav"])
    assert nav_pages([{"A": "a.md"}, {"B": [{"C": "b/c.md"}, "d.md"]}]) == ["a.md", "b/c.md", "d.md"]
    assert len(listed) == len(set(listed))
    pages = {str(p.relative_to(DOCS)) for p in PAGES if not p.is_relative_to(DOCS / "examples")}
    assert sorted(pages - set(listed)) == [], "add these pages to the nav of mkdocs.yml"
    assert sorted(set(listed) - pages) == [], "the nav of mkdocs.yml names missing pages"


def test_the_rules_section_lists_every_game_from_its_own_folder():
    """The hook fills the empty ``Rules`` section with one page per registered game, each a
    file in the game's folder shown as ``rules/<game>.md``; no rules page is left in docs/."""
    yaml = pytest.importorskip("yaml", reason="PyYAML comes with mkdocs (pip install -e '.[docs]')")
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    assert {"Rules": []} in config["nav"]
    filled = mkdocs_hooks.on_config(config)
    (rules,) = [item["Rules"] for item in filled["nav"] if isinstance(item, dict) and "Rules" in item]
    assert [site for item in rules for site in item.values()] == [f"rules/{name}.md" for name in game_names()]
    assert {"Deck-based divide-the-dollar", "421", "Goofspiel"} <= {title for item in rules for title in item}
    assert list(RULES_PAGES) == [game_folder(name) / "rules.md" for name in game_names()]
    assert all(source.is_file() for source in RULES_PAGES)
    assert not (DOCS / "rules").exists()
    with pytest.raises(ValueError, match="no nav section 'Rules'"):
        mkdocs_hooks.on_config({"nav": [{"Home": "index.md"}]})
    assert mkdocs_hooks.site_source(DOCS / "rules" / "dtd.md", DOCS) == game_folder("dtd") / "rules.md"
    assert mkdocs_hooks.site_source(DOCS / "cli.md", DOCS) == DOCS / "cli.md"


# ---- the command-line reference -----------------------------------------------------------------


def _sections(page: str) -> dict[str, str]:
    """The reference's text per command, from its ``## `fsmarena NAME` `` headings."""
    parts = re.split(r"^## `fsmarena ([a-z0-9-]+)`$", mkdocs_hooks.generated_part(page), flags=re.M)
    return dict(zip(parts[1::2], parts[2::2]))


def test_the_cli_reference_is_the_one_the_parsers_give():
    page = mkdocs_hooks.CLI_PAGE.read_text(encoding="utf-8")
    assert mkdocs_hooks.generated_part(page) == mkdocs_hooks.cli_reference(), (
        "docs/cli.md is stale: run `python mkdocs_hooks.py`"
    )


def test_the_cli_reference_documents_every_command_and_every_option():
    from fsmarena.cli import _command_modules

    sections = _sections(mkdocs_hooks.CLI_PAGE.read_text(encoding="utf-8"))
    assert set(sections) == {module.NAME for module in _command_modules()}
    for name, parser in mkdocs_hooks.commands(build_parser()).items():
        for action in mkdocs_hooks.documented_actions(parser):
            if action.option_strings:
                for flag in action.option_strings:
                    assert f"`{flag}`" in sections[name], f"fsmarena {name} {flag}"
            else:
                assert f"`{action.metavar or action.dest}`" in sections[name], f"fsmarena {name} {action.dest}"
            if action.help and action.help != "==SUPPRESS==" and "%(" not in action.help:
                assert " ".join(action.help.split()).replace("|", "\\|") in sections[name]


def test_a_missing_option_is_noticed():
    page = mkdocs_hooks.CLI_PAGE.read_text(encoding="utf-8")
    play = _sections(page)["play"]
    assert "`--games`" in play
    damaged = mkdocs_hooks.with_reference(page, mkdocs_hooks.generated_part(page).replace("| `--games`", "| `--gamez`"))
    assert "`--games`" not in _sections(damaged)["play"]
    assert mkdocs_hooks.generated_part(damaged) != mkdocs_hooks.cli_reference()


# ---- commands in the examples -------------------------------------------------------------------


def shown_commands(text: str) -> list[str]:
    """Every ``fsmarena ...`` command of the page's code blocks (continuations joined, ``&&``
    chains split).  In ``text`` blocks (output, usage synopses) only lines after a ``$ ``
    prompt are commands."""
    found = []
    for language, block in _CODE_BLOCK.findall(text):
        for line in re.sub(r"\s*\\\n\s*", " ", block).splitlines():
            if language == "text" and not line.startswith("$ "):
                continue
            for part in line.removeprefix("$ ").split("&&"):
                if part.strip().startswith("fsmarena "):
                    found.append(part.strip())
    return found


EXAMPLES = [(path, command) for path in EXAMPLE_PAGES for command in shown_commands(path.read_text(encoding="utf-8"))]


def test_the_examples_show_many_commands():
    assert len(EXAMPLES) > 60
    shown = "```bash\nfsmarena play dtd \\\n    random && fsmarena games # x\n```\n```text\nfsmarena solve GAME\n$ fsmarena bench\n```\n"
    assert shown_commands(shown) == ["fsmarena play dtd random", "fsmarena games # x", "fsmarena bench"]


@pytest.mark.parametrize(("path", "command"), EXAMPLES, ids=[f"{_rel(p)}: {c}" for p, c in EXAMPLES])
def test_every_command_shown_parses(path, command):
    args = build_parser().parse_args(shlex.split(command, comments=True)[1:])
    assert args.command is not None
    if getattr(args, "game", None) is not None:
        assert args.game in game_names()
        game_from_args(args)  # the rule parameters shown exist and are valid


def test_a_wrong_option_does_not_parse():
    from fsmarena.errors import FsmarenaError

    with pytest.raises(FsmarenaError):
        build_parser().parse_args(["play", "dtd", "random", "--gamez", "10"])


# ---- the study of the study tutorial ------------------------------------------------------------


def tutorial_study_text() -> str:
    page = (DOCS / "tutorials" / "study-toml.md").read_text(encoding="utf-8")
    (block,) = re.findall(r"^```toml\n(.*?)^```", page, re.S | re.M)
    return block


def test_the_tutorial_study_is_a_valid_study(tmp_path):
    """Checked as `fsmarena study` checks a study before it writes anything, at every scale."""
    from fsmarena.games.players import resolve_player
    from fsmarena.methods.base import MethodContext, check_method
    from fsmarena.studies.catalogue import load_study_toml

    path = tmp_path / "my_study.toml"
    path.write_text(tutorial_study_text(), encoding="utf-8")
    study = load_study_toml(path)
    game = get_game(study.game, study.game_params)
    assert [c.method for c in study.competitors] == ["evolve", "train", "train", "random-search", "builtin"]
    for name in (*study.panel, study.curve_opponent):
        resolve_player(name, game)
    for scale in study.scales:
        plan = study.plan(scale)
        for c in plan.competitors:
            check_method(c.method, MethodContext(game, dict(c.params), 0, c.name, [], study.curve_opponent, c.needs))


@pytest.mark.slow
def test_the_tutorial_study_runs_at_the_test_scale(tmp_path):
    from fsmarena.cli import main

    (tmp_path / "my_study.toml").write_text(tutorial_study_text(), encoding="utf-8")
    out = tmp_path / "out"
    assert main(["study", str(tmp_path / "my_study.toml"), "--scale", "test", "--quiet", "--out", str(out)]) == 0
    report = (out / "report.md").read_text(encoding="utf-8")
    for label in ("FSM", "Q-learning (vs FSM)", "random tables", "always-large"):
        assert label in report


# ---- rules pages --------------------------------------------------------------------------------


def shown_default(value: object) -> str:
    """A default as a rules page shows it: ``--param`` spelling, ``unset`` for None."""
    if value is None:
        return "unset"
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ",".join(shown_default(v) for v in value)
    return str(value)


def parameter_table(page: str) -> dict[str, str]:
    """The rows ``| `key` | `default` | ... |`` of a rules page's parameter table."""
    rows = re.findall(r"^\| `(\w+)` \| (?:`([^`]*)`|(unset)) \|", page, re.M)
    return {key: code or unset for key, code, unset in rows}


def test_shown_defaults():
    assert [shown_default(v) for v in (None, True, 1.0, [0.25, 0.5], "seed", -3)] == [
        "unset",
        "true",
        "1",
        "0.25,0.5",
        "seed",
        "-3",
    ]
    assert parameter_table("| `a` | `1,2` | x |\n| `b` | unset | y |\n| c | `3` | z |\n") == {"a": "1,2", "b": "unset"}


@pytest.mark.parametrize("name", game_names())
def test_every_rules_page_lists_the_parameters_defaults_and_builtins_of_its_game(name):
    page = (game_folder(name) / "rules.md").read_text(encoding="utf-8")
    info = get_game(name).describe()
    assert parameter_table(page) == {key: shown_default(value) for key, value in info["parameters"].items()}
    for builtin in info["builtin_players"]:
        assert f"`{builtin}`" in page, f"{name}: builtin {builtin}"


# ---- the site -----------------------------------------------------------------------------------


@pytest.mark.slow
def test_the_site_builds_with_warnings_as_errors(tmp_path):
    if importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("mkdocstrings") is None:
        pytest.skip("mkdocs and mkdocstrings are not installed (pip install -e '.[docs]')")
    site = tmp_path / "site"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "mkdocs",
            "build",
            "--strict",
            "--quiet",
            "-f",
            str(ROOT / "mkdocs.yml"),
            "-d",
            str(site),
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "GameEntry" in (site / "api" / "games" / "index.html").read_text(encoding="utf-8")
    assert "--games-per-pair" in (site / "cli" / "index.html").read_text(encoding="utf-8")
