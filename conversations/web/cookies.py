"""The chat's conversation cookie, in one place: its name, how it is set, cleared and read.

The cookie carries only the bearer token (HttpOnly, SameSite=Strict); the API also accepts the
token as a header, for clients that are not the chat page.
"""

from __future__ import annotations

from collections.abc import Iterable
from http.cookies import CookieError, SimpleCookie
from typing import Final

from django.conf import settings
from django.http import HttpRequest, HttpResponseBase
from rest_framework.request import Request

TOKEN_COOKIE: Final = "pathways_token"  # noqa: S105 - a cookie name, not a secret


def token_cookie_set(response: HttpResponseBase, request: HttpRequest | Request, token: str) -> None:
    """Put the conversation token in the HttpOnly cookie (Secure whenever the request came over TLS)."""
    response.set_cookie(
        TOKEN_COOKIE,
        token,
        httponly=True,
        samesite="Strict",
        secure=not settings.DEBUG and request.is_secure(),
        # The browser forgets it when the server would refuse it anyway (the server-side check is what counts).
        max_age=60 * 60 * 24 * settings.CHAT_TOKEN_DAYS,
    )


def token_cookie_clear(response: HttpResponseBase) -> None:
    response.delete_cookie(TOKEN_COOKIE, samesite="Strict")


def request_token(request: HttpRequest | Request) -> str | None:
    """The conversation token from the Authorization header, X-Conversation-Token or the chat cookie."""
    header = request.headers.get("Authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip() or None
    return request.headers.get("X-Conversation-Token") or request.COOKIES.get(TOKEN_COOKIE)


def scope_token(headers: Iterable[tuple[bytes, bytes]]) -> str | None:
    """The token from the Cookie header of an ASGI scope (the WebSocket handshake has no Django request)."""
    for name, value in headers:
        if name == b"cookie":
            try:
                morsel = SimpleCookie(value.decode("latin-1")).get(TOKEN_COOKIE)
            except CookieError:
                return None
            return morsel.value if morsel else None
    return None
