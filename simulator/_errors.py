"""Errors a user can fix: printed as one line, no traceback, with a chosen exit code."""

from __future__ import annotations


class UserError(Exception):
    """A problem with the user's input or environment; ``exit_code`` 2 by convention."""

    def __init__(self, message: str, exit_code: int = 2):
        super().__init__(message)
        self.exit_code = exit_code
