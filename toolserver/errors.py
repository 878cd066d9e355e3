"""Errors of the MCP tool server."""

from __future__ import annotations


class TokenError(ValueError):
    """A token could not be issued (the account is not active staff)."""
