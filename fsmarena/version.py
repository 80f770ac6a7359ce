"""The version of the fsmarena distribution (recorded in every result file and report)."""

__version__ = "0.1.0"
