"""The one error the browser table's code raises for a refused request."""

from __future__ import annotations

from typing import Any


class WebError(Exception):
    """A refused request: ``status`` is the HTTP status, the message says what and why."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message

    def __reduce__(self) -> tuple[Any, tuple[int, str]]:  # raised in the worker process too
        return (WebError, (self.status, self.message))
