"""The turn API: tokens, idempotency, size limits and malformed input get clear errors; SSE streams nodes."""

from __future__ import annotations

import json

import pytest
from django.test import AsyncClient, Client

from conversations.models import Turn
from conversations.web.services import NOTICE_VERSION

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(client: Client) -> dict:
    response = client.post("/api/v1/conversations/", {"language": "en"}, content_type="application/json")
    assert response.status_code == 201
    consent = client.post(
        f"/api/v1/conversations/{response.json()['conversation_id']}/consent",
        {"version": NOTICE_VERSION},
        content_type="application/json",
    )
    assert consent.status_code == 200
    return response.json()


def post_turn(
    client: Client,
    conversation: dict,
    body: object,
    *,
    token: str | None = None,
    content_type: str = "application/json",
) -> object:
    data = body if isinstance(body, str) else json.dumps(body)
    headers = {"HTTP_AUTHORIZATION": f"Bearer {token or conversation['token']}"}
    return client.post(
        f"/api/v1/conversations/{conversation['conversation_id']}/turns/", data, content_type=content_type, **headers
    )


def test_a_posted_message_returns_the_finished_turn_json(client: Client, conversation: dict) -> None:
    response = post_turn(client, conversation, {"text": "need a state ID in Houston", "client_message_id": "m1"})
    assert response.status_code == 201
    body = response.json()
    assert set(body) >= {
        "turn_id",
        "conversation_id",
        "status",
        "language",
        "crisis",
        "top_need",
        "region",
        "redacted_text",
        "reply",
        "citations",
        "resources",
        "retrieval",
        "audit",
        "handoff",
        "nodes",
    }
    assert body["status"] == "completed"
    detail = client.get(f"/api/v1/turns/{body['turn_id']}/", HTTP_AUTHORIZATION=f"Bearer {conversation['token']}")
    assert detail.status_code == 200 and detail.json()["reply"] == body["reply"]


def test_the_same_message_id_twice_returns_the_existing_turn(client: Client, conversation: dict) -> None:
    first = post_turn(client, conversation, {"text": "food bank in austin", "client_message_id": "dup"})
    second = post_turn(client, conversation, {"text": "food bank in austin", "client_message_id": "dup"})
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["turn_id"] == second.json()["turn_id"]
    assert Turn.objects.count() == 1


def test_a_replayed_message_id_with_other_text_is_409(client: Client, conversation: dict) -> None:
    post_turn(client, conversation, {"text": "food bank in austin", "client_message_id": "dup"})
    response = post_turn(client, conversation, {"text": "a job in austin", "client_message_id": "dup"})
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "idempotency_conflict"


def test_an_oversized_message_is_413_and_nothing_is_written(client: Client, conversation: dict) -> None:
    response = post_turn(client, conversation, {"text": "a" * 2001, "client_message_id": "big"})
    assert response.status_code == 413
    assert "2000" in response.json()["error"]["message"]
    assert Turn.objects.count() == 0


@pytest.mark.parametrize(
    "body",
    [
        {"client_message_id": "x"},
        {"text": "   ", "client_message_id": "x"},
        {"text": 5, "client_message_id": "x", "wait": "perhaps"},
    ],
)
def test_missing_or_blank_text_is_400(client: Client, conversation: dict, body: dict) -> None:
    response = post_turn(client, conversation, body)
    assert response.status_code == 400
    assert "error" in response.json()
    assert Turn.objects.count() == 0


def test_malformed_json_is_400_with_a_clear_error(client: Client, conversation: dict) -> None:
    response = post_turn(client, conversation, '{"text": "hi",,}')
    assert response.status_code == 400
    assert response.json()["error"]["code"] == "parse_error"


def test_a_wrong_content_type_is_415(client: Client, conversation: dict) -> None:
    response = post_turn(client, conversation, "text=hello", content_type="text/plain")
    assert response.status_code == 415


def test_a_wrong_token_cannot_read_or_write_a_conversation(client: Client, conversation: dict) -> None:
    ok = post_turn(client, conversation, {"text": "need a job in dallas", "client_message_id": "a"})
    other = client.post("/api/v1/conversations/", {}, content_type="application/json").json()
    denied = post_turn(client, conversation, {"text": "hi", "client_message_id": "b"}, token=other["token"])
    assert denied.status_code == 403
    read = Client().get(f"/api/v1/turns/{ok.json()['turn_id']}/", HTTP_AUTHORIZATION=f"Bearer {other['token']}")
    assert read.status_code == 403
    anonymous = Client().get(f"/api/v1/turns/{ok.json()['turn_id']}/")
    assert anonymous.status_code == 403


def test_an_unknown_conversation_is_404(client: Client) -> None:
    response = client.post(
        "/api/v1/conversations/00000000-0000-0000-0000-000000000000/turns/",
        {"text": "hi"},
        content_type="application/json",
        HTTP_AUTHORIZATION="Bearer x",
    )
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "unknown_conversation"


def test_the_chat_cookie_alone_opens_the_conversation(client: Client, conversation: dict) -> None:
    response = client.post(
        f"/api/v1/conversations/{conversation['conversation_id']}/turns/",
        {"text": "need a GED class", "client_message_id": "c"},
        content_type="application/json",
    )
    assert response.status_code == 201


@pytest.mark.django_db(transaction=True)
async def test_sse_streams_one_event_per_node_then_done() -> None:
    from asgiref.sync import sync_to_async

    from conversations import services

    conversation, token = await sync_to_async(services.conversation_create)(channel="web")
    turn, _ = await sync_to_async(services.turn_start)(
        conversation=conversation, text="need a job in houston", idempotency_key="sse"
    )
    await sync_to_async(services.turn_run)(turn_id=turn.pk)
    response = await AsyncClient().get(f"/api/v1/turns/{turn.pk}/events", headers={"Authorization": f"Bearer {token}"})
    assert response.status_code == 200
    assert response["X-Accel-Buffering"] == "no"
    chunks = [chunk.decode() if isinstance(chunk, bytes) else chunk async for chunk in response.streaming_content]
    events = [line.split(": ", 1)[1] for line in "".join(chunks).splitlines() if line.startswith("event: ")]
    assert events == ["node"] * 6 + ["done"]


@pytest.mark.django_db(transaction=True)
async def test_an_sse_stream_gives_its_database_connection_back_before_it_streams() -> None:
    from asgiref.sync import sync_to_async
    from django.db import connection

    from conversations import services

    conversation, token = await sync_to_async(services.conversation_create)(channel="web")
    turn, _ = await sync_to_async(services.turn_start)(
        conversation=conversation, text="need a job in houston", idempotency_key="sse-open"
    )
    holding = sync_to_async(lambda: connection.connection is not None)  # the thread that serves the view's sync work
    assert await holding()  # turn_start left this thread with a connection
    response = await AsyncClient().get(f"/api/v1/turns/{turn.pk}/events", headers={"Authorization": f"Bearer {token}"})
    stream = aiter(response.streaming_content)
    first = await anext(stream)
    assert (first.decode() if isinstance(first, bytes) else first).startswith(": stream open")
    assert not await holding()  # authorised, then released: a turn still running pins no connection
    await stream.aclose()


async def _running_turn(key: str) -> tuple[object, str]:
    from asgiref.sync import sync_to_async

    from conversations import services

    conversation, token = await sync_to_async(services.conversation_create)(channel="web")
    turn, _ = await sync_to_async(services.turn_start)(
        conversation=conversation, text="need a job in houston", idempotency_key=key
    )
    return turn, token


async def _open_stream(turn: object, token: str) -> object:
    return await AsyncClient().get(f"/api/v1/turns/{turn.pk}/events", headers={"Authorization": f"Bearer {token}"})


@pytest.mark.django_db(transaction=True)
async def test_sse_streams_are_capped_per_conversation_and_the_slot_comes_back_when_one_ends(settings) -> None:
    from conversations.web.api import STREAM_SLOTS

    settings.SSE_MAX_STREAMS_PER_CONVERSATION = 1
    turn, token = await _running_turn("cap")  # still running: its stream stays open
    first = await _open_stream(turn, token)
    stream = aiter(first.streaming_content)
    await anext(stream)
    refused = await _open_stream(turn, token)
    assert refused.status_code == 429
    body = json.loads(b"".join(refused.streaming_content))
    assert body["error"]["code"] == "too_many_streams" and "streams" in body["error"]["message"]
    first.close()  # what the server does when the person leaves the page
    await stream.aclose()
    assert STREAM_SLOTS.total == 0 and not STREAM_SLOTS.by_conversation
    again = await _open_stream(turn, token)
    assert again.status_code == 200
    again.close()


@pytest.mark.django_db(transaction=True)
async def test_a_stream_that_runs_to_done_gives_its_slot_back(settings) -> None:
    from asgiref.sync import sync_to_async

    from conversations import services
    from conversations.web.api import STREAM_SLOTS

    settings.SSE_MAX_STREAMS_PER_CONVERSATION = 1
    turn, token = await _running_turn("done")
    await sync_to_async(services.turn_run)(turn_id=turn.pk)
    finished = await _open_stream(turn, token)
    chunks = [chunk.decode() if isinstance(chunk, bytes) else chunk async for chunk in finished.streaming_content]
    assert "event: done" in "".join(chunks)
    assert STREAM_SLOTS.total == 0  # released by the stream itself, before any close()
    again = await _open_stream(turn, token)
    assert again.status_code == 200
    again.close()


@pytest.mark.django_db(transaction=True)
async def test_a_client_that_disconnects_mid_stream_gives_its_slot_back() -> None:
    """Through the real ASGI app: the disconnect cancels the stream, and its slot is released."""
    import asyncio

    from conversations.web.api import STREAM_SLOTS
    from pathways_site.asgi import application

    turn, token = await _running_turn("gone")  # never finishes: only the disconnect ends the stream
    path = f"/api/v1/turns/{turn.pk}/events"
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "headers": [(b"host", b"testserver"), (b"authorization", f"Bearer {token}".encode())],
        "client": ("127.0.0.1", 5000),
        "server": ("testserver", 80),
    }
    inbox: asyncio.Queue[dict] = asyncio.Queue()
    await inbox.put({"type": "http.request", "body": b"", "more_body": False})
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    task = asyncio.create_task(application(scope, inbox.get, send))
    for _ in range(200):
        if any(m["type"] == "http.response.body" and m.get("body") for m in sent):
            break
        await asyncio.sleep(0.05)
    assert sent[0]["status"] == 200 and STREAM_SLOTS.total == 1
    await inbox.put({"type": "http.disconnect"})
    await asyncio.wait_for(task, 10)
    assert STREAM_SLOTS.total == 0 and not STREAM_SLOTS.by_conversation


@pytest.mark.django_db(transaction=True)
async def test_sse_streams_are_capped_per_process_with_a_503(settings) -> None:
    settings.SSE_MAX_STREAMS_PER_PROCESS = 1
    turn, token = await _running_turn("p1")
    other, other_token = await _running_turn("p2")
    first = await _open_stream(turn, token)
    busy = await _open_stream(other, other_token)
    assert busy.status_code == 503
    body = json.loads(b"".join(busy.streaming_content))
    assert body["error"]["code"] == "server_busy"
    first.close()
    second = await _open_stream(other, other_token)
    assert second.status_code == 200
    second.close()


def test_the_openapi_schema_describes_the_turn_api(client: Client) -> None:
    response = client.get("/api/schema/", HTTP_ACCEPT="application/json")
    assert response.status_code == 200
    text = response.content.decode()
    assert "/api/v1/conversations/{conversation_id}/turns/" in text
