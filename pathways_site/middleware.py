"""Middleware of the site itself."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse


class SyncChainMiddleware:
    """Innermost and sync-only: under ASGI the whole middleware chain then runs in one worker thread.

    Below an async handler Django runs each MiddlewareMixin middleware in async mode and calls its
    process_request/process_response through sync_to_async: about 18 thread hops per request, which
    were 14 of a webhook's 17 ms here. A sync-only middleware at the bottom makes every middleware
    above it sync, so a request crosses between the event loop and a thread about three times.
    """

    sync_capable = True
    async_capable = False

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)
