"""WebSocket for the admin inbox: notify-only `changed` events, filtered by the signed-in user's scope.

Every conversation change is published to one group (conversations.staff.INBOX_GROUP); each
listener re-checks, through caseload.selectors, that its user may see the conversation before it
forwards the id. The page then fetches the fresh fragment over HTTP: the database is the truth.
"""

from __future__ import annotations

import asyncio
from typing import Any

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from caseload import selectors
from conversations.staff import INBOX_GROUP
from conversations.web.events import server_loop_register


def _may_use_inbox(user: Any) -> bool:
    return bool(
        user
        and user.is_authenticated
        and user.is_active
        and user.is_staff
        and user.has_perm("conversations.view_conversation")
    )


def _in_scope(user: Any, conversation_id: str) -> bool:
    return selectors.conversation_queryset(user=user).filter(pk=conversation_id).exists()


class InboxConsumer(AsyncJsonWebsocketConsumer):
    """Joins the staff inbox group when the session user may use the inbox; closes with 4403 otherwise."""

    joined = False

    async def connect(self) -> None:
        user = self.scope.get("user")
        if not await database_sync_to_async(_may_use_inbox)(user):
            await self.close(code=4403)
            return
        # Publishers on worker threads hand events to this loop (the in-memory layer's queues live here).
        server_loop_register(asyncio.get_running_loop())
        await self.channel_layer.group_add(INBOX_GROUP, self.channel_name)
        self.joined = True
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.joined:
            await self.channel_layer.group_discard(INBOX_GROUP, self.channel_name)

    async def inbox_changed(self, event: dict[str, Any]) -> None:
        conversation_id = str(event.get("conversation_id") or "")
        if conversation_id and await database_sync_to_async(_in_scope)(self.scope["user"], conversation_id):
            await self.send_json({"type": "changed", "conversation_id": conversation_id, "reason": event.get("reason")})
