"""Shared test settings: hypothesis profile sized for a 2-core CI machine."""

import os

from hypothesis import HealthCheck, settings

settings.register_profile(
    "fsmarena",
    deadline=None,
    max_examples=int(os.environ.get("FSMARENA_HYPOTHESIS_EXAMPLES", "40")),
    suppress_health_check=[HealthCheck.too_slow],
)
settings.load_profile("fsmarena")
