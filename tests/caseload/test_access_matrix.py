"""Every role x every caseload admin page and action: allowed, forbidden, or hidden (URL-guessing).

"hidden" means the object is outside the user's caseload: the admin answers 404 or sends them back
to the admin index, and nothing of the object (its name or text) appears in the response.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from django.urls import reverse

from tests.caseload.conftest import Cast

ROLES = ("admin", "supervisor", "case_manager", "partner_editor")
OK, DENIED, HIDDEN, LOGIN = "ok", "denied", "hidden", "login"


def url(name: str, *args: Any) -> Callable[[Cast], str]:
    return lambda cast: reverse(name, args=[arg(cast) if callable(arg) else arg for arg in args])


def expect(admin: str, supervisor: str, case_manager: str, partner_editor: str) -> dict[str, str]:
    return {"admin": admin, "supervisor": supervisor, "case_manager": case_manager, "partner_editor": partner_editor}


ALL_STAFF = expect(OK, OK, OK, OK)
CASELOAD = expect(OK, OK, OK, DENIED)
OTHERS = expect(OK, OK, HIDDEN, DENIED)
SUPERVISION = expect(OK, OK, DENIED, DENIED)
ADMIN_ONLY = expect(OK, DENIED, DENIED, DENIED)

# (page or action, method, url, POST data, expected per role, text that must not leak when hidden)
MATRIX: list[
    tuple[
        str,
        str,
        Callable[[Cast], str],
        Callable[[Cast], dict[str, Any]] | None,
        dict[str, str],
        Callable[[Cast], str] | None,
    ]
] = [
    ("admin index", "get", url("admin:index"), None, ALL_STAFF, None),
    ("client list", "get", url("admin:caseload_client_changelist"), None, CASELOAD, None),
    ("client add", "get", url("admin:caseload_client_add"), None, CASELOAD, None),
    ("own client", "get", url("admin:caseload_client_change", lambda c: c.alice.pk), None, CASELOAD, None),
    (
        "other's client",
        "get",
        url("admin:caseload_client_change", lambda c: c.bob.pk),
        None,
        OTHERS,
        lambda c: c.bob.name,
    ),
    (
        "other's client edit",
        "post",
        url("admin:caseload_client_change", lambda c: c.bob.pk),
        lambda c: {"name": "renamed", "status": "active", "supervision_type": "parole"},
        expect(OK, OK, HIDDEN, DENIED),
        None,
    ),
    ("own client summary", "get", url("admin:caseload_client_summary", lambda c: c.alice.pk), None, CASELOAD, None),
    (
        "other's client summary",
        "get",
        url("admin:caseload_client_summary", lambda c: c.bob.pk),
        None,
        OTHERS,
        lambda c: c.bob.name,
    ),
    # Supervisors erase on request (docs/operations.md); deleting a client erases them (caseload.erasure).
    ("client delete", "get", url("admin:caseload_client_delete", lambda c: c.alice.pk), None, SUPERVISION, None),
    ("approval queue", "get", url("admin:caseload_queue_changelist"), None, CASELOAD, None),
    (
        "approve other's reply",
        "post",
        url("admin:caseload_queue_changelist"),
        lambda c: {"action": "approve", "message_id": str(c.msg_b.pk), "body": ""},
        OTHERS,
        None,
    ),
    (
        "reject other's reply",
        "post",
        url("admin:caseload_queue_changelist"),
        lambda c: {"action": "reject", "message_id": str(c.msg_b.pk), "reason": "no"},
        OTHERS,
        None,
    ),
    ("dashboard", "get", url("admin:caseload_dashboard_changelist"), None, SUPERVISION, None),
    (
        "evaluation report",
        "get",
        url("admin:caseload_dashboard_eval"),
        None,
        expect(HIDDEN, HIDDEN, DENIED, DENIED),
        None,
    ),
    ("conversation list", "get", url("admin:conversations_conversation_changelist"), None, CASELOAD, None),
    (
        "own conversation",
        "get",
        url("admin:conversations_conversation_change", lambda c: c.conv_a.pk),
        None,
        CASELOAD,
        None,
    ),
    (
        "other's conversation",
        "get",
        url("admin:conversations_conversation_change", lambda c: c.conv_b.pk),
        None,
        OTHERS,
        lambda c: c.turn_b.redacted_text,
    ),
    (
        "on-call conversation",
        "get",
        url("admin:conversations_conversation_change", lambda c: c.oncall_conv.pk),
        None,
        OTHERS,
        None,
    ),
    (
        "take over own",
        "post",
        url("admin:caseload_conversation_take_over", lambda c: c.conv_a.pk),
        None,
        CASELOAD,
        None,
    ),
    (
        "take over other's",
        "post",
        url("admin:caseload_conversation_take_over", lambda c: c.conv_b.pk),
        None,
        OTHERS,
        None,
    ),
    (
        "hand back other's",
        "post",
        url("admin:caseload_conversation_hand_back", lambda c: c.conv_b.pk),
        None,
        expect(OK, OK, HIDDEN, DENIED),
        None,
    ),
    (
        "clear flag other's",
        "post",
        url("admin:caseload_conversation_clear_flag", lambda c: c.conv_b.pk),
        None,
        OTHERS,
        None,
    ),
    (
        "text other's client",
        "post",
        url("admin:caseload_conversation_reply", lambda c: c.conv_b.pk),
        lambda c: {"body": "hi"},
        OTHERS,
        None,
    ),
    (
        "take over by GET",
        "get",
        url("admin:caseload_conversation_take_over", lambda c: c.conv_a.pk),
        None,
        expect("405", "405", "405", "405"),
        None,
    ),
    ("own turn trace", "get", url("admin:conversations_turn_change", lambda c: c.turn_a.pk), None, CASELOAD, None),
    (
        "other's turn trace",
        "get",
        url("admin:conversations_turn_change", lambda c: c.turn_b.pk),
        None,
        OTHERS,
        lambda c: c.turn_b.redacted_text,
    ),
    ("turn list", "get", url("admin:conversations_turn_changelist"), None, CASELOAD, None),
    ("outbox list", "get", url("admin:conversations_outboundmessage_changelist"), None, CASELOAD, None),
    (
        "own outbox row",
        "get",
        url("admin:conversations_outboundmessage_change", lambda c: c.msg_a.pk),
        None,
        CASELOAD,
        None,
    ),
    (
        "other's outbox row",
        "get",
        url("admin:conversations_outboundmessage_change", lambda c: c.msg_b.pk),
        None,
        OTHERS,
        None,
    ),
    (
        "turn delete",
        "get",
        url("admin:conversations_turn_delete", lambda c: c.turn_a.pk),
        None,
        expect(DENIED, DENIED, DENIED, DENIED),
        None,
    ),
    ("users", "get", url("admin:auth_user_changelist"), None, ADMIN_ONLY, None),
    ("groups", "get", url("admin:auth_group_changelist"), None, ADMIN_ONLY, None),
]


def _outcome(response: Any) -> str:
    if response.status_code == 200:
        return OK
    if response.status_code == 403:
        return DENIED
    if response.status_code == 404:
        return HIDDEN
    if response.status_code == 302:
        location = response["Location"]
        if "/login/" in location:
            return LOGIN
        # The admin's answer to an id outside the queryset: back to the index, "doesn't exist".
        return HIDDEN if location.rstrip("/") == reverse("admin:index").rstrip("/") else OK
    return str(response.status_code)


@pytest.mark.django_db
@pytest.mark.parametrize("role", ROLES)
@pytest.mark.parametrize(
    ("name", "method", "make_url", "make_data", "expected", "secret"), MATRIX, ids=[row[0] for row in MATRIX]
)
def test_it_allows_forbids_or_hides_each_page_per_role(  # noqa: PLR0917 - pytest passes fixtures and parameters by position
    client: Any,
    cast: Cast,
    role: str,
    name: str,
    method: str,
    make_url: Any,
    make_data: Any,
    expected: dict[str, str],
    secret: Any,
    settings: Any,
    tmp_path: Any,
) -> None:
    settings.VAR_DIR = tmp_path  # no evaluation report here, whatever an earlier run left in var/
    client.force_login(cast.user(role))
    target = make_url(cast)
    response = client.get(target) if method == "get" else client.post(target, make_data(cast) if make_data else {})
    assert _outcome(response) == expected[role], (
        f"{name} as {role}: {response.status_code} {response.get('Location', '')}"
    )
    if expected[role] == HIDDEN and secret is not None:
        followed = client.get(response["Location"]) if response.status_code == 302 else response
        assert secret(cast) not in followed.content.decode()


@pytest.mark.django_db
def test_it_lists_only_the_case_managers_own_clients_and_conversations(client: Any, cast: Cast) -> None:
    client.force_login(cast.cm_a)
    clients = client.get(reverse("admin:caseload_client_changelist")).content.decode()
    assert cast.alice.name in clients
    assert cast.bob.name not in clients
    conversations = client.get(reverse("admin:conversations_conversation_changelist")).content.decode()
    assert str(cast.conv_a.pk)[:8] in conversations
    assert str(cast.conv_b.pk)[:8] not in conversations
    queue = client.get(reverse("admin:caseload_queue_changelist")).content.decode()
    assert cast.turn_a.redacted_text in queue
    assert cast.turn_b.redacted_text not in queue


@pytest.mark.django_db
def test_it_shows_supervisors_every_client_and_the_oncall_queue(client: Any, cast: Cast) -> None:
    client.force_login(cast.supervisor)
    clients = client.get(reverse("admin:caseload_client_changelist")).content.decode()
    assert cast.alice.name in clients and cast.bob.name in clients
    queue = client.get(reverse("admin:caseload_queue_changelist")).content.decode()
    assert "On-call queue" in queue
    assert str(cast.oncall_conv.pk)[:8] in queue


@pytest.mark.django_db
def test_it_leaves_a_case_manager_out_of_another_caseload_when_bob_has_a_pending_edit(client: Any, cast: Cast) -> None:
    client.force_login(cast.cm_a)
    response = client.post(
        reverse("admin:caseload_client_change", args=[cast.bob.pk]),
        {"name": "taken", "status": "active", "supervision_type": "parole"},
    )
    assert _outcome(response) == HIDDEN
    cast.bob.refresh_from_db()
    assert cast.bob.name == "Bob Bobolink"


@pytest.mark.django_db
def test_it_makes_a_case_managers_new_client_their_own(client: Any, cast: Cast) -> None:
    client.force_login(cast.cm_a)
    response = client.post(
        reverse("admin:caseload_client_add"),
        {
            "name": "Carol New",
            "status": "active",
            "supervision_type": "probation",
            "case_manager": cast.cm_b.pk,
            "client_contacts-TOTAL_FORMS": "0",
            "client_contacts-INITIAL_FORMS": "0",
        },
    )
    assert response.status_code == 302, response.content.decode()[:2000]
    from caseload.models import Client

    assert Client.objects.get(name="Carol New").case_manager == cast.cm_a
