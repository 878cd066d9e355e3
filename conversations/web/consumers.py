"""WebSocket progress for one conversation: join its group, forward node events; the page then fetches."""

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


class ConversationProgressConsumer(AsyncJsonWebsocketConsumer):
    """Notify-only: events carry ids and node names, never message content."""

    group: str | None = None

    async def connect(self) -> None:
        conversation_id = self.scope["url_route"]["kwargs"]["conversation_id"]
        query = parse_qs(self.scope.get("query_string", b"").decode())
        token = (query.get("token") or [None])[0] or scope_token(self.scope.get("headers", []))
        try:
            await database_sync_to_async(selectors.conversation_get_authorized)(
                conversation_id=conversation_id, token=token
            )
        except ConversationError:
            await self.close(code=4403)
            return
        self.group = conversation_group(str(conversation_id))
        server_loop_register(asyncio.get_running_loop())
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        if isinstance(content, dict) and content.get("type") == "ping":
            await self.send_json({"type": "pong"})

    async def turn_progress(self, event: dict[str, Any]) -> None:
        await self.send_json({key: value for key, value in event.items() if key != "type"} | {"type": "progress"})
