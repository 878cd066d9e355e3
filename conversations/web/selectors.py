"""Reads behind the web chat: the conversation a session cookie opens, and its history."""

from __future__ import annotations

from typing import Any

from conversations import crypto, selectors
from conversations.errors import UnknownConversation
from conversations.models import Conversation

HISTORY_TURNS = 50


def conversation_for_token(*, token: str | None) -> Conversation:
    """Return the conversation a bearer token opens (the cookie carries no id, only the token)."""
    if not token:
        raise UnknownConversation("No conversation in this session.", code="no_conversation")
    conversation = Conversation.objects.select_related("contact").filter(token_hash=crypto.token_hash(token)).first()
    if conversation is None or not selectors.token_live(conversation):
        raise UnknownConversation("No conversation in this session.", code="no_conversation")
    return conversation


def conversation_history(*, conversation: Conversation) -> list[dict[str, Any]]:
    """The last turns as turn JSON, oldest first (node timings are left out: the page does not show them)."""
    turns = list(conversation.turns.order_by("-seq")[:HISTORY_TURNS])
    return [selectors.turn_payload(turn, node_runs=[]) for turn in reversed(turns)]
