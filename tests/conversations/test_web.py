"""The web chat's page, PWA files and session endpoints: notice, history, start over, delete, rate limits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.conf import settings
from django.core.cache import cache
from django.test import Client
from django.utils import translation

from audit.log import AuditEvent
from conversations.models import Contact, Conversation, NodeRun, Turn
from conversations.web import views as web
from conversations.web.services import NOTICE_VERSION

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True)
def _fresh_limits() -> None:
    cache.clear()


def start(client: Client, language: str = "en") -> dict:
    created = client.post("/api/v1/conversations/", {"language": language}, content_type="application/json").json()
    consent = client.post(
        f"/api/v1/conversations/{created['conversation_id']}/consent",
        {"version": NOTICE_VERSION},
        content_type="application/json",
    )
    assert consent.status_code == 200
    return created


def post(client: Client, conversation: dict, text: str, key: str, **extra: object) -> object:
    return client.post(
        f"/api/v1/conversations/{conversation['conversation_id']}/turns/",
        {"text": text, "client_message_id": key},
        content_type="application/json",
        **extra,
    )


def test_the_page_has_the_crisis_line_the_notice_and_its_version(client: Client) -> None:
    html = client.get("/").content.decode()
    assert 'href="tel:988"' in html and 'href="sms:988"' in html
    assert NOTICE_VERSION in html
    assert f"{settings.RETENTION_DAYS} days" in html
    assert "This is not a lawyer." in html
    config = json.loads(html.split('id="pathways-config" type="application/json">')[1].split("</script>")[0])
    assert config["tile_url"] == settings.MAP_TILE_URL
    assert "leaflet" not in html.split('id="pathways-i18n"')[0]  # the map code is loaded only when a reply needs it


def test_switching_to_spanish_keeps_the_choice_and_translates_the_page(client: Client) -> None:
    switch = client.get("/?lang=es")
    assert switch.status_code == 302 and switch.cookies[settings.LANGUAGE_COOKIE_NAME].value == "es"
    html = client.get("/").content.decode()
    assert '<html lang="es">' in html
    assert "Antes de empezar" in html and "Llame al 988" in html
    assert f"Guardamos sus mensajes durante {settings.RETENTION_DAYS} días" in html


def test_every_script_string_has_a_spanish_translation() -> None:
    with translation.override("en"):
        english = web._catalog()
    with translation.override("es"):
        spanish = web._catalog()
    same = {key for key in english if english[key] == spanish[key]}
    assert same <= {"navigator"}, same  # "Pathways" is a name


def test_the_compiled_catalog_matches_the_po_file() -> None:
    po = (ROOT / "locale/es/LC_MESSAGES/django.po").stat().st_mtime
    mo = (ROOT / "locale/es/LC_MESSAGES/django.mo").stat().st_mtime
    assert mo >= po - 1, "run msgfmt (or compilemessages) after editing the .po file"


def test_without_a_cookie_there_is_no_current_conversation(client: Client) -> None:
    response = client.get("/api/v1/conversations/current/")
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "no_conversation"


def test_accepting_the_notice_records_its_version_on_the_contact(client: Client) -> None:
    conversation = start(client)
    contact = Conversation.objects.get(pk=conversation["conversation_id"]).contact
    assert contact.consent_version == NOTICE_VERSION and contact.consent_at is not None
    stale = client.post(
        f"/api/v1/conversations/{conversation['conversation_id']}/consent",
        {"version": "1999-old"},
        content_type="application/json",
    )
    assert stale.status_code == 409


def test_the_cookie_brings_back_the_history_after_a_reload(client: Client) -> None:
    conversation = start(client)
    reply = post(client, conversation, "need a state ID in Houston", "h1").json()
    current = client.get("/api/v1/conversations/current/").json()
    assert current["conversation_id"] == conversation["conversation_id"]
    assert current["consent_version"] == NOTICE_VERSION
    assert [turn["turn_id"] for turn in current["turns"]] == [reply["turn_id"]]
    assert current["turns"][0]["reply"] == reply["reply"]


def test_start_over_opens_a_new_empty_conversation_for_the_same_person(client: Client) -> None:
    conversation = start(client)
    post(client, conversation, "food bank in austin", "s1")
    restarted = client.post("/api/v1/conversations/current/restart").json()
    assert restarted["conversation_id"] != conversation["conversation_id"]
    assert restarted["consent_version"] == NOTICE_VERSION
    current = client.get("/api/v1/conversations/current/").json()
    assert current["conversation_id"] == restarted["conversation_id"] and current["turns"] == []
    old = Conversation.objects.get(pk=conversation["conversation_id"])
    assert old.contact_id == Conversation.objects.get(pk=restarted["conversation_id"]).contact_id


def test_delete_erases_turns_and_node_runs_and_logs_only_counts(client: Client) -> None:
    keep = start(Client())
    post(Client(), keep, "a job in dallas", "k1", HTTP_AUTHORIZATION=f"Bearer {keep['token']}")
    conversation = start(client)
    post(client, conversation, "my number is 512-555-0199, need housing in Austin", "d1")
    turn_ids = list(Turn.objects.filter(conversation_id=conversation["conversation_id"]).values_list("pk", flat=True))
    response = client.delete(f"/api/v1/conversations/{conversation['conversation_id']}/")
    assert response.status_code == 200
    assert response.json()["deleted"]["conversations"] == 1 and response.json()["deleted"]["turns"] == 1
    assert response.cookies["pathways_token"].value == ""
    assert not Conversation.objects.filter(pk=conversation["conversation_id"]).exists()
    assert not Turn.objects.filter(pk__in=turn_ids).exists()
    assert not NodeRun.objects.filter(turn_id__in=turn_ids).exists()
    assert Turn.objects.filter(conversation_id=keep["conversation_id"]).count() == 1
    event = AuditEvent.objects.get(action="conversation.deleted", object_id=conversation["conversation_id"])
    assert event.data["turns"] == 1 and event.data["node_runs"] >= 1
    assert "housing" not in json.dumps(event.data) and "Austin" not in json.dumps(event.data)
    assert client.get("/api/v1/conversations/current/").status_code == 404
    # The old token, replayed from a copy (a shared computer's history), opens nothing and starts nothing.
    replay = Client(HTTP_AUTHORIZATION=f"Bearer {conversation['token']}")
    assert replay.get("/api/v1/conversations/current/").status_code in (401, 403, 404)
    assert post(replay, conversation, "still there?", "d2").status_code in (401, 403, 404)
    assert not Conversation.objects.filter(pk=conversation["conversation_id"]).exists()


def test_chat_tokens_expire_after_thirty_idle_days_by_default() -> None:
    from django.conf import settings

    assert settings.CHAT_TOKEN_DAYS == 30


def test_another_session_cannot_delete_a_conversation(client: Client) -> None:
    conversation = start(client)
    other = start(Client())
    response = Client().delete(
        f"/api/v1/conversations/{conversation['conversation_id']}/", HTTP_AUTHORIZATION=f"Bearer {other['token']}"
    )
    assert response.status_code == 403
    assert Conversation.objects.filter(pk=conversation["conversation_id"]).exists()


def test_the_session_limit_refuses_in_the_persons_language_and_records_nothing(
    client: Client, settings: object
) -> None:
    settings.CHAT_RATE_LIMIT_SESSION = 2
    settings.CHAT_RATE_LIMIT_WINDOW_SECONDS = 3600  # one fixed window for the whole test (turns are slow under load)
    client.cookies[settings.LANGUAGE_COOKIE_NAME] = "es"
    conversation = start(client, "es")
    assert post(client, conversation, "comida en austin", "r1").status_code == 201
    assert post(client, conversation, "trabajo en austin", "r2").status_code == 201
    refused = post(client, conversation, "vivienda en austin", "r3")
    assert refused.status_code == 429
    assert refused.json()["error"]["code"] == "rate_limited"
    assert "Espere un minuto" in refused.json()["error"]["message"]
    assert not Turn.objects.filter(idempotency_key="r3").exists()


def test_the_ip_limit_covers_every_conversation_from_one_address(settings: object) -> None:
    settings.CHAT_RATE_LIMIT_IP = 3
    settings.CHAT_RATE_LIMIT_WINDOW_SECONDS = 3600  # a 60 s window could roll over between four slow turns
    statuses = []
    for n in range(4):
        client = Client(REMOTE_ADDR="203.0.113.9")
        conversation = start(client)
        statuses.append(post(client, conversation, "food bank in austin", f"ip{n}").status_code)
    assert statuses == [201, 201, 201, 429]
    other = Client(REMOTE_ADDR="198.51.100.7")
    assert post(other, start(other), "food bank in austin", "other").status_code == 201


def test_the_service_worker_is_served_from_the_root_with_the_shell_assets(client: Client) -> None:
    response = client.get("/sw.js")
    assert response["Content-Type"].startswith("text/javascript")
    body = response.content.decode()
    assert '"/static/chat/chat.js"' in body and "__SHELL_ASSETS__" not in body and "__CACHE_VERSION__" not in body


def test_the_manifest_points_at_icons_that_exist(client: Client) -> None:
    manifest = json.loads(client.get("/manifest.webmanifest").content)
    assert manifest["start_url"] == "/" and manifest["display"] == "standalone"
    for icon in manifest["icons"]:
        path = ROOT / "static" / icon["src"].removeprefix("/static/")
        assert path.exists(), icon["src"]
    assert (ROOT / "static/vendor/leaflet/LICENSE").exists()


def test_a_web_contact_keeps_no_phone(client: Client) -> None:
    conversation = start(client)
    contact = Contact.objects.get(conversations__pk=conversation["conversation_id"])
    assert contact.channel == "web" and contact.phone_encrypted == ""


def _old_token_refused_everywhere(client: Client, conversation: dict, turn_id: str) -> None:
    """A revoked token opens nothing: not /current/, not turns, not a turn, not its SSE stream."""
    bearer = {"HTTP_AUTHORIZATION": f"Bearer {conversation['token']}"}
    assert Client().get("/api/v1/conversations/current/", **bearer).status_code == 404
    assert post(Client(), conversation, "still there?", "again", **bearer).status_code == 403
    assert Client().get(f"/api/v1/turns/{turn_id}/", **bearer).status_code == 403
    assert Client().get(f"/api/v1/turns/{turn_id}/events", **bearer).status_code == 403


@pytest.mark.django_db(transaction=True)  # the SSE view closes its connection
def test_start_over_revokes_the_old_token_on_the_server(client: Client) -> None:
    conversation = start(client)
    turn = post(client, conversation, "food bank in austin", "r1").json()
    restarted = client.post("/api/v1/conversations/current/restart").json()
    _old_token_refused_everywhere(client, conversation, turn["turn_id"])
    assert Conversation.objects.get(pk=conversation["conversation_id"]).token_hash == ""
    new = {"HTTP_AUTHORIZATION": f"Bearer {restarted['token']}"}
    assert (
        Client().get("/api/v1/conversations/current/", **new).json()["conversation_id"] == restarted["conversation_id"]
    )


def test_delete_erases_every_conversation_of_the_device_and_says_so(client: Client) -> None:
    first = start(client)
    post(client, first, "food bank in austin", "e1")
    client.post("/api/v1/conversations/current/restart")
    second = client.get("/api/v1/conversations/current/").json()
    post(client, {"conversation_id": second["conversation_id"]}, "a job in dallas", "e2")
    contact_id = Conversation.objects.get(pk=second["conversation_id"]).contact_id
    response = client.delete(f"/api/v1/conversations/{second['conversation_id']}/")
    assert response.status_code == 200
    assert response.json()["deleted"]["conversations"] == 2 and response.json()["deleted"]["turns"] == 2
    assert not Conversation.objects.filter(contact_id=contact_id).exists()
    assert not Turn.objects.filter(conversation__contact_id=contact_id).exists()
    assert AuditEvent.objects.filter(action="conversation.deleted", object_id=first["conversation_id"]).exists()
    with translation.override("en"):
        catalog = web._catalog()
    assert "all your conversations on this device" in catalog["confirm_delete"].lower()
    assert "{n}" in catalog["deleted"]


@pytest.mark.django_db(transaction=True)  # the SSE view closes its connection
def test_a_token_idle_past_chat_token_days_is_refused_and_revoked(client: Client, settings: object) -> None:
    from datetime import timedelta

    from django.utils import timezone

    settings.CHAT_TOKEN_DAYS = 30
    conversation = start(client)
    assert client.cookies["pathways_token"]["max-age"] == 30 * 24 * 3600
    turn = post(client, conversation, "food bank in austin", "x1").json()
    Conversation.objects.filter(pk=conversation["conversation_id"]).update(
        token_used_at=timezone.now() - timedelta(days=29)
    )
    assert client.get("/api/v1/conversations/current/").status_code == 200  # a use resets the idle clock
    stamped = Conversation.objects.get(pk=conversation["conversation_id"]).token_used_at
    assert stamped > timezone.now() - timedelta(minutes=1)
    Conversation.objects.filter(pk=conversation["conversation_id"]).update(
        token_used_at=timezone.now() - timedelta(days=31)
    )
    assert client.get("/api/v1/conversations/current/").status_code == 404
    assert Conversation.objects.get(pk=conversation["conversation_id"]).token_hash == ""
    _old_token_refused_everywhere(client, conversation, turn["turn_id"])


def test_the_server_refuses_a_turn_before_the_notice_is_accepted_and_stores_nothing(client: Client) -> None:
    created = client.post("/api/v1/conversations/", {"language": "en"}, content_type="application/json").json()
    assert created["notice_version"] == NOTICE_VERSION
    refused = post(client, created, "my name is Maria, need housing in Austin", "c1")
    assert refused.status_code == 403
    assert refused.json()["error"]["code"] == "consent_required"
    assert "notice" in refused.json()["error"]["message"]
    assert not Turn.objects.filter(conversation_id=created["conversation_id"]).exists()
    Contact.objects.filter(conversations__pk=created["conversation_id"]).update(consent_version="1999-old")
    stale = post(client, created, "need housing in Austin", "c2")
    assert stale.status_code == 403 and stale.json()["error"]["code"] == "consent_required"
    client.post(
        f"/api/v1/conversations/{created['conversation_id']}/consent",
        {"version": NOTICE_VERSION},
        content_type="application/json",
    )
    assert post(client, created, "need housing in Austin", "c3").status_code == 201


def test_the_houston_id_message_gets_its_cited_answer_on_the_web_chat(client: Client) -> None:
    """#22's example: the corpus has the TDCJ and DPS ID rules, so the gate must not answer 'not certain'."""
    conversation = start(client)
    response = post(client, conversation, "just got out last week, need to get my ID back, im in houston", "h1")
    assert response.status_code == 201, response.content
    turn = Turn.objects.filter(conversation_id=conversation["conversation_id"]).latest("created_at")
    assert turn.state["retrieval"]["gated"] is False
    cited = {hit["slug"] for hit in turn.state["evidence"]}
    assert cited & {"tx-gov-501-0165", "tx-transp-521-101", "tx-tac-25-181-28", "tx-transp-521-142"}
    assert "not certain" not in turn.reply
    assert "[Tex." in turn.reply  # the answer carries its citations
