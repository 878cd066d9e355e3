"""Staff API tokens for the MCP tools over HTTP: only a SHA-256 of the token is stored."""

from __future__ import annotations

from django.conf import settings
from django.db import models


class StaffApiToken(models.Model):
    """A bearer token that lets one staff account call the read-only MCP tools at /mcp/."""

    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="mcp_tokens")
    name = models.CharField(max_length=80, help_text="what the token is for, e.g. 'partner assistant'")
    token_hash = models.CharField(max_length=64, unique=True, help_text="SHA-256 of the token")
    prefix = models.CharField(max_length=8, help_text="first characters of the token, to tell tokens apart")
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = "staff API token"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"
