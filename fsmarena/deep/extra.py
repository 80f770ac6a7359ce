"""Whether the ``[deep]`` extra is installed, asked without importing it.

Checking a study's parameters runs in the main process of every ``fsmarena study``: importing
torch there would cost seconds, so the packages are only looked up.  Reading, planning and
publishing a study with deep families needs none of them; training does, and a missing one is
then one FsmarenaError with the install command, before anything runs.  The versions found are
part of a family's resolved settings, so results trained under other versions are recognised
as stale.
"""

from __future__ import annotations

from importlib.metadata import PackageNotFoundError, version
from importlib.util import find_spec

from fsmarena.errors import FsmarenaError
from fsmarena.extras import install_hint

#: import name -> distribution name of every package the deep families use
PACKAGES = {
    "torch": "torch",
    "stable_baselines3": "stable-baselines3",
    "sb3_contrib": "sb3-contrib",
    "gymnasium": "gymnasium",
}


def require_deep(what: str = "the deep RL families") -> dict[str, str]:
    """The installed version of every package of the extra; FsmarenaError naming the first one
    missing and the install command."""
    missing = [name for name in PACKAGES if find_spec(name) is None]
    if missing:
        raise FsmarenaError(
            f"{what} need PyTorch and Stable-Baselines3 ({missing[0]} is not installed): {install_hint('deep')}"
        )
    return installed_versions()


def installed_versions() -> dict[str, str]:
    """The version of every package of the extra, "not installed" for a missing one (a study
    file is read, planned and published without the extra; only training needs it)."""
    versions = {}
    for module, distribution in PACKAGES.items():
        if find_spec(module) is None:
            versions[distribution] = "not installed"
            continue
        try:
            versions[distribution] = version(distribution)
        except PackageNotFoundError:  # importable but not installed as a distribution (a source tree)
            versions[distribution] = "unknown"
    return versions
