"""Shared test settings: hypothesis profile sized for a 2-core CI machine; runs several test files read."""

import json
import os

import pytest
from cli_helpers import cli
from hypothesis import HealthCheck, settings

settings.register_profile(
    "fsmarena",
    deadline=None,
    max_examples=int(os.environ.get("FSMARENA_HYPOTHESIS_EXAMPLES", "40")),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("fsmarena")


@pytest.fixture(scope="session")
def vautour_run(tmp_path_factory):
    """``fsmarena study vautour --scale test`` without figures (both player counts), run once per
    session: its folder and the summary it printed (tests/test_study_vautour.py and
    tests/test_publish_vautour.py read it; neither changes it)."""
    out = tmp_path_factory.mktemp("vautour") / "study"
    code, text = cli("study", "vautour", "--scale", "test", "--out", str(out), "--json", "--quiet", "--no-figures")
    assert code == 0
    return out, json.loads(text)


@pytest.fixture(scope="session")
def thirtyone_run(tmp_path_factory):
    """``fsmarena study thirtyone --scale test`` without figures, run once per session: its folder
    and the summary it printed (tests/test_study_thirtyone.py and tests/test_publish_thirtyone.py)."""
    pytest.importorskip("sklearn")
    out = tmp_path_factory.mktemp("thirtyone") / "study"
    code, text = cli("study", "thirtyone", "--scale", "test", "--out", str(out), "--json", "--quiet", "--no-figures")
    assert code == 0
    return out, json.loads(text)
