"""WebSocket progress for one conversation: join its group, forward node events; the page then fetches.

The token comes from the chat's HttpOnly cookie on the handshake or, for other clients, from the
first frame (`{"type": "auth", "token": "..."}`) — never from the URL, which lands in access logs:
a handshake with `?token=` is refused even when the token is right.
"""

from __future__ import annotations

import asyncio
from typing import Any
from urllib.parse import parse_qs

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from conversations import selectors
from conversations.errors import ConversationError
from conversations.web.cookies import scope_token
from conversations.web.events import conversation_group, server_loop_register

AUTH_FRAME_SECONDS = 10  # a socket that neither had the cookie nor sends the auth frame by then is closed
CLOSE_REFUSED = 4403
CLOSE_TOKEN_IN_URL = 4400


class ConversationProgressConsumer(AsyncJsonWebsocketConsumer):
    """Notify-only: events carry ids and node names, never message content."""

    group: str | None = None
    _auth_timer: asyncio.TimerHandle | None = None

    async def connect(self) -> None:
        if "token" in parse_qs(self.scope.get("query_string", b"").decode()):
            await self.close(code=CLOSE_TOKEN_IN_URL)
            return
        token = scope_token(self.scope.get("headers", []))
        if token:
            if await self._authorize(token):
                await self.accept()
                await self._join()
            else:
                await self.close(code=CLOSE_REFUSED)
            return
        await self.accept()  # no cookie: the first frame must carry the token
        loop = asyncio.get_running_loop()
        self._auth_timer = loop.call_later(AUTH_FRAME_SECONDS, lambda: loop.create_task(self._auth_timeout()))

    async def _authorize(self, token: object) -> bool:
        if not isinstance(token, str) or not token:
            return False
        try:
            await database_sync_to_async(selectors.conversation_get_authorized)(
                conversation_id=self.scope["url_route"]["kwargs"]["conversation_id"], token=token
            )
        except ConversationError:
            return False
        return True

    async def _join(self) -> None:
        self.group = conversation_group(str(self.scope["url_route"]["kwargs"]["conversation_id"]))
        server_loop_register(asyncio.get_running_loop())
        await self.channel_layer.group_add(self.group, self.channel_name)

    async def _auth_timeout(self) -> None:
        if self.group is None:
            await self.close(code=CLOSE_REFUSED)

    async def disconnect(self, code: int) -> None:
        if self._auth_timer is not None:
            self._auth_timer.cancel()
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if self.group is None:  # not yet authorized: only the auth frame is accepted
            if self._auth_timer is not None:
                self._auth_timer.cancel()
                self._auth_timer = None
            is_auth = isinstance(content, dict) and content.get("type") == "auth"
            if is_auth and await self._authorize(content.get("token")):
                await self._join()
                await self.send_json({"type": "ready"})
            else:
                await self.close(code=CLOSE_REFUSED)
            return
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def turn_progress(self, event: dict[str, Any]) -> None:
        if self.group is None:
            return
        await self.send_json({key: value for key, value in event.items() if key != "type"} | {"type": "progress"})
