"""The turn API (DRF): create a conversation, post a turn, read a turn, stream its progress (SSE).

Every call after creation needs the conversation's token (Authorization: Bearer, X-Conversation-Token
or the chat's HttpOnly cookie). Errors are domain exceptions rendered by the project's handler.
"""

from __future__ import annotations

import asyncio
import json
import threading
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.db import close_old_connections, connection
from django.http import HttpRequest, StreamingHttpResponse
from django.utils.translation import gettext
from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers, status
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from conversations import selectors, services
from conversations.background import task_dispatch
from conversations.errors import BadToken, ConsentRequired, ConversationError
from conversations.models import NodeRun, Turn
from conversations.web import ratelimit
from conversations.web import services as web_services
from conversations.web.cookies import request_token, token_cookie_set

SSE_MAX_SECONDS = 90
SSE_POLL_SECONDS = 0.2
DEFAULT_SSE_PER_CONVERSATION = 4  # a page watches one turn at a time; a few tabs are fine, a loop of opens is not
DEFAULT_SSE_PER_PROCESS = 200  # each open stream polls the database: bound the total a process serves


class _StreamSlots:
    """Open SSE streams of this process, in total and per conversation (the caps bound the polling load)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.total = 0
        self.by_conversation: dict[str, int] = {}

    def acquire(self, conversation_id: str) -> _Slot:
        per_conversation = int(getattr(settings, "SSE_MAX_STREAMS_PER_CONVERSATION", DEFAULT_SSE_PER_CONVERSATION))
        per_process = int(getattr(settings, "SSE_MAX_STREAMS_PER_PROCESS", DEFAULT_SSE_PER_PROCESS))
        with self._lock:
            if self.by_conversation.get(conversation_id, 0) >= per_conversation:
                raise StreamLimit(
                    "Too many open progress streams for this conversation. Close other tabs, or wait for the answer.",
                    code="too_many_streams",
                )
            if self.total >= per_process:
                raise ServerBusy("The server is busy. Please try again in a moment.", code="server_busy")
            self.total += 1
            self.by_conversation[conversation_id] = self.by_conversation.get(conversation_id, 0) + 1
        return _Slot(self, conversation_id)

    def release(self, conversation_id: str) -> None:
        with self._lock:
            self.total -= 1
            left = self.by_conversation.get(conversation_id, 1) - 1
            if left > 0:
                self.by_conversation[conversation_id] = left
            else:
                self.by_conversation.pop(conversation_id, None)


class _Slot:
    """One stream's place; released once, whichever comes first: the stream ends, or the response is closed."""

    def __init__(self, slots: _StreamSlots, conversation_id: str) -> None:
        self._slots, self._conversation_id, self._held = slots, conversation_id, True
        self._lock = threading.Lock()

    def release(self) -> None:
        with self._lock:
            if not self._held:
                return
            self._held = False
        self._slots.release(self._conversation_id)


STREAM_SLOTS = _StreamSlots()


class StreamLimit(ConversationError):
    http_status = 429
    code = "too_many_streams"


class ServerBusy(ConversationError):
    http_status = 503
    code = "server_busy"


class _SlotStreamingResponse(StreamingHttpResponse):
    """Gives the stream's slot back on close() too: a response never iterated must not keep its slot."""

    def __init__(self, *args: Any, slot: _Slot, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._slot = slot

    def close(self) -> None:
        self._slot.release()
        super().close()


class ConversationCreateSerializer(serializers.Serializer):
    channel = serializers.ChoiceField(choices=["web"], default="web")
    language = serializers.ChoiceField(choices=["en", "es"], required=False, allow_null=True)


class TurnCreateSerializer(serializers.Serializer):
    text = serializers.CharField(allow_blank=True, trim_whitespace=False)
    client_message_id = serializers.CharField(required=False, max_length=100)
    language = serializers.ChoiceField(choices=["en", "es"], required=False, allow_null=True)
    wait = serializers.BooleanField(default=True)


TURN_SCHEMA = inline_serializer(
    "Turn",
    fields={
        "turn_id": serializers.UUIDField(),
        "conversation_id": serializers.UUIDField(),
        "status": serializers.ChoiceField(choices=[c for c, _ in Turn.Status.choices]),
        "language": serializers.CharField(),
        "crisis": serializers.CharField(),
        "top_need": serializers.CharField(allow_null=True),
        "region": serializers.CharField(allow_null=True),
        "redacted_text": serializers.CharField(),
        "reply": serializers.CharField(),
        "citations": serializers.ListField(child=serializers.DictField()),
        "resources": serializers.ListField(child=serializers.DictField()),
        "retrieval": serializers.DictField(),
        "audit": serializers.DictField(),
        "handoff": serializers.DictField(allow_null=True),
        "nodes": serializers.ListField(child=serializers.DictField()),
    },
)
ERROR_SCHEMA = inline_serializer("Error", fields={"error": serializers.DictField()})


class ConversationCreateView(APIView):
    """Start a conversation; the token in the answer (and cookie) opens it later."""

    authentication_classes: list[Any] = []

    @extend_schema(
        request=ConversationCreateSerializer,
        responses={
            201: inline_serializer(
                "ConversationCreated",
                fields={
                    "conversation_id": serializers.UUIDField(),
                    "token": serializers.CharField(),
                    "language": serializers.CharField(),
                    "notice_version": serializers.CharField(),
                },
            ),
            400: ERROR_SCHEMA,
            429: ERROR_SCHEMA,
        },
    )
    def post(self, request: Request) -> Response:
        data = _valid(ConversationCreateSerializer, request)
        ratelimit.conversation_rate_check(request=request, action="create")
        conversation, token = services.conversation_create(channel="web", language=data.get("language"))
        response = Response(
            {
                "conversation_id": str(conversation.pk),
                "token": token,
                "language": conversation.language,
                # What POST .../consent must name before the first turn is accepted.
                "notice_version": web_services.NOTICE_VERSION,
            },
            status=status.HTTP_201_CREATED,
        )
        token_cookie_set(response, request, token)
        return response


class TurnCreateView(APIView):
    """Post a message; by default waits for the finished turn, or answers 202 at once with `wait: false`."""

    authentication_classes: list[Any] = []

    @extend_schema(
        request=TurnCreateSerializer,
        responses={
            200: TURN_SCHEMA,
            201: TURN_SCHEMA,
            202: TURN_SCHEMA,
            400: ERROR_SCHEMA,
            403: ERROR_SCHEMA,
            404: ERROR_SCHEMA,
            409: ERROR_SCHEMA,
            413: ERROR_SCHEMA,
            429: ERROR_SCHEMA,
        },
    )
    def post(self, request: Request, conversation_id: uuid.UUID) -> Response:
        conversation = selectors.conversation_get_authorized(
            conversation_id=conversation_id, token=request_token(request)
        )
        # Before anything is recorded: a refused message is not lost, the page keeps it in the input box.
        if conversation.contact.consent_version != web_services.NOTICE_VERSION:
            # Enforced here, not only in the page's script: no message is stored before the notice is accepted.
            raise ConsentRequired(
                gettext("Please read and accept the privacy notice first. Your message was not sent."),
            )
        ratelimit.turn_rate_check(request=request, conversation_id=conversation.pk)
        data = _valid(TurnCreateSerializer, request)
        key = data.get("client_message_id") or request.headers.get("Idempotency-Key") or uuid.uuid4().hex
        turn, created = services.turn_start(
            conversation=conversation, text=data["text"], idempotency_key=key, language=data.get("language")
        )
        if created:
            if data["wait"]:
                turn = services.turn_run(turn_id=turn.pk)
            else:
                task_dispatch("conversations.run_turn", str(turn.pk))
                return Response(selectors.turn_payload(turn), status=status.HTTP_202_ACCEPTED)
        return Response(selectors.turn_payload(turn), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class TurnDetailView(APIView):
    """Read a turn (the source of truth: progress events only say when to read it)."""

    authentication_classes: list[Any] = []

    @extend_schema(responses={200: TURN_SCHEMA, 403: ERROR_SCHEMA, 404: ERROR_SCHEMA})
    def get(self, request: Request, turn_id: uuid.UUID) -> Response:
        turn = selectors.turn_get_authorized(turn_id=turn_id, token=request_token(request))
        return Response(selectors.turn_payload(turn))


def _valid(serializer_class: type[serializers.Serializer], request: Request) -> dict[str, Any]:
    if not isinstance(request.data, dict):
        raise ConversationError("The request body must be a JSON object.", code="bad_body")
    serializer = serializer_class(data=request.data)
    serializer.is_valid(raise_exception=True)
    return dict(serializer.validated_data)


# --- SSE --------------------------------------------------------------------------------------


def _sse(event: str, data: Mapping[str, Any]) -> str:
    return f"event: {event}\ndata: {json.dumps(data)}\n\n"


def _authorize_and_release(turn_id: str, token: str | None) -> str:
    """Authorize the stream and return the turn's conversation id; the connection is closed either way."""
    try:
        return str(selectors.turn_get_authorized(turn_id=turn_id, token=token).conversation_id)
    finally:
        # Release the connection before streaming: a long stream must not pin a database connection.
        close_old_connections()
        connection.close()


def _poll(turn_id: str, after_step: int) -> tuple[Sequence[Mapping[str, Any]], str]:
    try:
        runs = list(
            NodeRun.objects.filter(turn_id=turn_id, step__gt=after_step)
            .order_by("step")
            .values("step", "node", "ms", "transition", "outcome")
        )
        turn_status = Turn.objects.values_list("status", flat=True).get(pk=turn_id)
        return runs, turn_status
    finally:
        connection.close()


async def turn_events(request: HttpRequest, turn_id: uuid.UUID) -> StreamingHttpResponse:
    """Server-sent events, one per finished node, then `done`; read from the database, so nothing is lost."""
    token = request_token(request)
    try:
        conversation_id = await sync_to_async(_authorize_and_release)(str(turn_id), token)
        # Over a cap: 429 for this conversation, 503 for the process; the page falls back to polling.
        slot = STREAM_SLOTS.acquire(conversation_id)
    except (ConversationError, BadToken) as exc:
        body = json.dumps({"error": {"code": exc.code, "message": exc.message}})
        response = StreamingHttpResponse(iter([body]), status=exc.http_status, content_type="application/json")
        return response

    async def stream() -> AsyncIterator[str]:
        try:
            after = 0
            loop = asyncio.get_running_loop()
            started = loop.time()
            yield ": stream open\n\n"
            while loop.time() - started < SSE_MAX_SECONDS:
                runs, turn_status = await sync_to_async(_poll)(str(turn_id), after)
                for run in runs:
                    after = run["step"]
                    yield _sse("node", run)
                if turn_status != Turn.Status.RUNNING:
                    yield _sse("done", {"turn_id": str(turn_id), "status": turn_status})
                    return
                await asyncio.sleep(SSE_POLL_SECONDS)
            yield _sse("timeout", {"turn_id": str(turn_id)})
        finally:  # ended, timed out, or cancelled by a client disconnect
            slot.release()

    response = _SlotStreamingResponse(stream(), content_type="text/event-stream", slot=slot)
    response["Cache-Control"] = "no-cache"
    response["X-Accel-Buffering"] = "no"
    return response
