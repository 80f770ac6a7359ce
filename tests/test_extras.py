"""The install hint of every missing optional extra: a command that works from a clone.

fsmarena is not on the package index, so a hint of ``pip install 'fsmarena[deep]'`` installed
nothing; every message now comes from :func:`fsmarena.extras.install_hint`, which names the
source tree the package runs from.
"""

from __future__ import annotations

import configparser
import re
import shlex
from pathlib import Path

import pytest

from fsmarena import extras
from fsmarena.extras import install_hint

ROOT = Path(__file__).resolve().parents[1]


def _declared_extras() -> set[str]:
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    return set(config["options.extras_require"])


def _hinted_extras() -> set[str]:
    found = set()
    for path in (ROOT / "fsmarena").rglob("*.py"):
        found |= set(re.findall(r"install_hint\(\s*[\"'](\w+)[\"']", path.read_text()))
    return found


def test_every_hinted_extra_is_declared():
    hinted = _hinted_extras()
    assert {"deep", "envs", "axelrod", "tune", "pandas", "neural", "distributed"} <= hinted
    assert hinted <= _declared_extras()


@pytest.mark.parametrize("extra", ["deep", "axelrod"])
def test_from_a_clone_the_hint_names_the_clone(extra):
    words = shlex.split(install_hint(extra))
    assert words[:3] == ["pip", "install", "-e"] and len(words) == 4
    target = words[3]
    assert target.endswith(f"[{extra}]")
    folder = Path(target[: -len(f"[{extra}]")])
    assert folder == ROOT and (folder / "setup.cfg").is_file()


def test_an_installed_wheel_says_to_run_it_in_a_clone(monkeypatch, tmp_path):
    monkeypatch.setattr(extras, "SOURCE_ROOT", tmp_path)  # site-packages: no setup.cfg beside the package
    assert extras.source_tree() is None
    assert install_hint("deep") == "pip install -e '.[deep]' in a clone of fsmarena"
    assert install_hint("deep", portable=True) == install_hint("deep")


def test_no_message_or_page_names_the_package_index():
    """``pip install 'fsmarena[...]'`` fetches nothing of this project: no source, page or
    example may give it."""
    pattern = re.compile(r"pip install ['\"]?fsmarena\[")
    paths = [*(ROOT / "fsmarena").rglob("*.py"), *(ROOT / "fsmarena").rglob("*.toml")]
    paths += [*(ROOT / "fsmarena").rglob("*.md"), *(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.py")]
    paths += [ROOT / "README.md"]
    offenders = [str(p.relative_to(ROOT)) for p in paths if pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
