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

from conversations.routing import websocket_urlpatterns  # noqa: E402


def _warm_embeddings() -> None:
    """Load the embedding model in the background so the first person's turn does not pay for it."""
    from corpus.embeddings import get_model

    get_model()


threading.Thread(target=_warm_embeddings, name="warm-embeddings", daemon=True).start()

application = ProtocolTypeRouter(
    {
        "http": django_asgi_app,
        "websocket": AllowedHostsOriginValidator(URLRouter(websocket_urlpatterns)),
    }
)
