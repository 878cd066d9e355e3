"""The MCP tools over Streamable HTTP at /mcp/, behind a staff API token (`Authorization: Bearer …`).

Stateless JSON responses: any ASGI worker can answer any request, so several uvicorn workers need
no session affinity. The SDK's session manager is started on the first request (the project runs
uvicorn with `--lifespan off`) and lives as long as the worker's event loop.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, MutableMapping
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.streamable_http_manager import StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings

from toolserver.selectors import staff_token_user_id
from toolserver.server import build_server

logger = logging.getLogger("toolserver")

PATH = "/mcp/"
Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]


def is_mcp_path(path: str) -> bool:
    """True for /mcp and anything under /mcp/."""
    return path == PATH.rstrip("/") or path.startswith(PATH)


def _security() -> TransportSecuritySettings:
    """DNS-rebinding protection with the site's own host names (Django's ALLOWED_HOSTS)."""
    hosts = [host for host in settings.ALLOWED_HOSTS if host not in ("*", "")]
    if "*" in settings.ALLOWED_HOSTS:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed = [pattern for host in hosts for pattern in (host, f"{host}:*")]
    origins = [f"{scheme}://{pattern}" for scheme in ("http", "https") for pattern in allowed]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=allowed, allowed_origins=origins
    )


class McpHttpApp:
    """ASGI app: checks the bearer token, then hands the request to the SDK's session manager."""

    def __init__(self, server_name: str = "pathways") -> None:
        self._server_name = server_name
        self._manager: StreamableHTTPSessionManager | None = None
        self._started: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None
        self._runner: asyncio.Task[None] | None = None

    async def _ensure_started(self) -> StreamableHTTPSessionManager:
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            if self._manager is None:
                server = build_server(self._server_name)
                # Building the SDK's app creates the session manager; the manager alone is mounted here
                # (the SDK's documented way to serve an MCPServer inside another ASGI application).
                server.streamable_http_app(
                    streamable_http_path=PATH, stateless_http=True, json_response=True, transport_security=_security()
                )
                manager = server.session_manager
                started = asyncio.Event()

                async def run() -> None:
                    async with manager.run():
                        started.set()
                        await asyncio.Event().wait()  # until the worker's loop ends

                self._runner = asyncio.get_running_loop().create_task(run(), name="mcp-session-manager")
                await started.wait()
                self._manager = manager
        return self._manager

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return
        token = _bearer(scope)
        user_id = await sync_to_async(staff_token_user_id)(token=token) if token else None
        if user_id is None:
            await _unauthorized(send)
            return
        manager = await self._ensure_started()
        # The SDK routes on its own path; /mcp and /mcp/ are the same endpoint.
        await manager.handle_request({**scope, "path": PATH}, receive, send)


def _bearer(scope: Scope) -> str:
    for name, value in scope.get("headers", []):
        if name == b"authorization":
            text = value.decode("latin-1")
            if text[:7].lower() == "bearer ":
                return text[7:].strip()
    return ""


async def _unauthorized(send: Send) -> None:
    body = json.dumps(
        {"error": "unauthorized", "message": "A staff API token is required (Authorization: Bearer …)."}
    ).encode()
    await send(
        {
            "type": "http.response.start",
            "status": 401,
            "headers": [(b"content-type", b"application/json"), (b"www-authenticate", b'Bearer realm="pathways-mcp"')],
        }
    )
    await send({"type": "http.response.body", "body": body})
