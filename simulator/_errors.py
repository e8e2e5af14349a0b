"""Errors a user can fix: printed as one line, no traceback, with a chosen exit code."""

from __future__ import annotations

INTERRUPTED_EXIT = 130
"""Exit code of any command stopped by Ctrl-C (128 + SIGINT, as a shell reports it)."""


class UserError(Exception):
    """A problem with the user's input or environment; ``exit_code`` 2 by convention."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code
