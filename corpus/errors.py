"""Errors a caller (and, through the API error handler, a user) may see from the corpus."""

from __future__ import annotations


class QueryError(ValueError):
    """A search request that cannot be run as given (empty query, unknown category or language)."""

    http_status: int = 400

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
