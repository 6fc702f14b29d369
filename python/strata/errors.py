"""The one exception type strata raises for mistakes a user can fix.

Tools catch `StrataError` at their entry point and print its message as a one-line error with a
non-zero exit code; anything else escaping is a bug in strata and keeps its traceback.
"""


class StrataError(Exception):
    """A user-facing error: the message is complete, one line, and needs no traceback."""

    def __init__(self, message: str, *, notes: tuple[str, ...] = ()):
        super().__init__(message)
        self.message = message
        self.notes = tuple(notes)

    def __str__(self) -> str:
        return self.message
