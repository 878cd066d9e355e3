"""One ASGI application for HTTP (Django) and WebSocket (Channels) routes."""

from __future__ import annotations

import os
import threading

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "pathways_site.settings")

# Django must be set up before anything imports models (consumers do).
django_asgi_app = get_asgi_application()

from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from channels.security.websocket import AllowedHostsOriginValidator  # noqa: E402

from caseload.inbox.routing import websocket_urlpatterns as inbox_websocket_urlpatterns  # noqa: E402
from conversations.web.routing import websocket_urlpatterns  # noqa: E402
from toolserver.http import McpHttpApp, is_mcp_path  # noqa: E402


def _warm_embeddings() -> None:
    """Load the embedding model in the background so the first person's turn does not pay for it."""
    from corpus.embeddings import get_model  # noqa: PLC0415 - after Django is set up, in the warm-up thread

    get_model()


threading.Thread(target=_warm_embeddings, name="warm-embeddings", daemon=True).start()

_mcp_app = McpHttpApp()


async def http_app(scope: dict, receive: object, send: object) -> None:
    """/mcp/ goes to the MCP tools (Streamable HTTP, staff token); everything else to Django."""
    if is_mcp_path(scope.get("path", "")):
        await _mcp_app(scope, receive, send)  # type: ignore[arg-type]
    else:
        await django_asgi_app(scope, receive, send)  # type: ignore[arg-type]


application = ProtocolTypeRouter(
    {
        "http": http_app,
        # The staff inbox socket authenticates by the admin session; the chat's socket by its conversation token.
        "websocket": AllowedHostsOriginValidator(URLRouter([*websocket_urlpatterns, *inbox_websocket_urlpatterns])),
    }
)
