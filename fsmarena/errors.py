"""The one error type the command line turns into a single clear line and a non-zero exit."""


class FsmarenaError(Exception):
    """A problem with the user's input or files, worded for the user (no traceback shown)."""
