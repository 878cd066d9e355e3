"""`GET /api/v1/conversations/{id}/messages/`: the conversation's timeline for the person (conversation token)."""

from __future__ import annotations

import uuid
from typing import Any

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from conversations import selectors
from conversations.web.api import ERROR_SCHEMA
from conversations.web.cookies import request_token

MESSAGE_SCHEMA = inline_serializer(
    "TimelineMessage",
    fields={
        "author": serializers.ChoiceField(choices=["person", "pathways", "staff"]),
        "text": serializers.CharField(),
        "created_at": serializers.DateTimeField(),
        "turn_id": serializers.UUIDField(allow_null=True),
        "from_name": serializers.CharField(required=False, help_text="staff only: the case manager's first name"),
    },
    many=True,
)


class ConversationMessagesView(APIView):
    """Person, Pathways and case-manager messages, oldest first (the chat page reads staff replies from here)."""

    authentication_classes: list[Any] = []

    @extend_schema(responses={200: MESSAGE_SCHEMA, 403: ERROR_SCHEMA, 404: ERROR_SCHEMA})
    def get(self, request: Request, conversation_id: uuid.UUID) -> Response:
        conversation = selectors.conversation_get_authorized(
            conversation_id=conversation_id, token=request_token(request)
        )
        response = Response(selectors.conversation_timeline(conversation=conversation))
        response["Cache-Control"] = "no-store"
        return response
