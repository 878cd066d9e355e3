"""Who needs me now: the ordering of a fixed set of clients is pinned, and every score is explained."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

import pytest
from django.utils import timezone

from caseload import selectors
from caseload.priority import PriorityInputs, priority_explain
from conversations.models import OutboundMessage, Turn
from tests.caseload.factories import OutboundFactory, TurnFactory, UserFactory, client_with_conversation

# Fixed once per run; every fact below is placed relative to it, so the admin (which uses the clock) agrees.
NOW = timezone.now().replace(microsecond=0)


def _turn(conversation: Any, *, hours_ago: float, **fields: Any) -> Turn:
    turn = TurnFactory(conversation=conversation, seq=conversation.turns.count() + 1, **fields)
    Turn.objects.filter(pk=turn.pk).update(created_at=NOW - timedelta(hours=hours_ago))
    return turn


@pytest.fixture
def caseload(db: Any) -> Any:
    cm = UserFactory(username="cm-priority", role="case manager")
    today = timezone.localdate(NOW)
    # crisis yesterday, released long ago
    _crisis, conv = client_with_conversation(
        name="Crisis Carla", case_manager=cm, release_date=today - timedelta(days=400)
    )
    _turn(conv, hours_ago=20, crisis="suicide_self_harm", status=Turn.Status.ESCALATED, reply="988…", channel="web")
    # released 5 days ago, nothing else
    _fresh, _ = client_with_conversation(name="Fresh Felix", case_manager=cm, release_date=today - timedelta(days=5))
    # asked for a person, released 60 days ago
    _asked, conv = client_with_conversation(name="Asking Ana", case_manager=cm, release_date=today - timedelta(days=60))
    conv.needs_human, conv.needs_human_reason = True, "asked_for_human"
    conv.save()
    _turn(
        conv, hours_ago=2, redacted_text="AGENT", status=Turn.Status.ESCALATED, reply="A case manager…", channel="web"
    )
    # two replies waiting for approval (also two unanswered SMS turns), released 200 days ago
    _waiting, conv = client_with_conversation(
        name="Waiting Will", case_manager=cm, release_date=today - timedelta(days=200)
    )
    for hours in (5, 3):
        OutboundFactory(turn=_turn(conv, hours_ago=hours), status=OutboundMessage.Status.PENDING_APPROVAL)
    # missed appointment mentioned 3 days ago (answered), released 20 days ago
    _missed, conv = client_with_conversation(name="Missed Mo", case_manager=cm, release_date=today - timedelta(days=20))
    turn = _turn(
        conv,
        hours_ago=72,
        redacted_text="I missed my appointment with my parole officer",
        status=Turn.Status.COMPLETED,
        reply="…",
        channel="web",
    )
    assert turn.reply
    # quiet: released a year ago, nothing pending
    _quiet, _ = client_with_conversation(name="Quiet Quinn", case_manager=cm, release_date=today - timedelta(days=365))
    # old crisis (10 days ago) does not count any more; release unknown
    _old, conv = client_with_conversation(name="Old Olga", case_manager=cm)
    _turn(conv, hours_ago=240, crisis="immediate_danger", status=Turn.Status.ESCALATED, reply="911…", channel="web")
    return cm


@pytest.mark.django_db
def test_it_pins_the_ordering_of_the_caseload(caseload: Any) -> None:
    ranked = selectors.clients_by_priority(user=caseload, now=NOW)
    assert [(client.name, priority.score) for client, priority in ranked] == [
        ("Crisis Carla", 50),  # crisis 20 h ago
        ("Missed Mo", 20 + 15),  # released 20 days ago + missed appointment
        ("Asking Ana", 25 + 8),  # asked for a person + released 60 days ago
        ("Waiting Will", 2 * 10 + 2 * 5),  # two replies to approve, two SMS without an answer
        ("Fresh Felix", 25),  # released 5 days ago
        ("Quiet Quinn", 0),  # ties: oldest release first
        ("Old Olga", 0),  # a crisis 10 days ago no longer counts; unknown release last
    ]


@pytest.mark.django_db
def test_it_explains_each_score_with_drivers_that_sum_to_it(caseload: Any) -> None:
    ranked = selectors.clients_by_priority(user=caseload, now=NOW)
    for client, priority in ranked:
        assert priority.score == client.priority, client.name  # database and Python agree
        assert priority.score == sum(driver.points for driver in priority.drivers)
    drivers = {client.name: [driver.code for driver in priority.drivers] for client, priority in ranked}
    assert drivers["Crisis Carla"] == ["crisis_72h"]
    assert drivers["Missed Mo"] == ["released_recently", "missed_appointment"]
    assert drivers["Waiting Will"] == ["pending_replies", "unanswered"]
    assert drivers["Quiet Quinn"] == []


def test_the_first_30_days_after_release_weigh_most() -> None:
    today = NOW.date()
    scores = [
        priority_explain(
            PriorityInputs(False, False, False, 0, 0, False, today - timedelta(days=days)), today=today
        ).score
        for days in (0, 14, 15, 30, 31, 90, 91)
    ]
    assert scores == [25, 25, 20, 20, 8, 8, 0]
    future = priority_explain(PriorityInputs(False, False, False, 0, 0, False, today + timedelta(days=3)), today=today)
    assert future.score == 0


@pytest.mark.django_db
def test_it_sorts_the_caseload_list_by_priority_with_its_drivers(client: Any, caseload: Any, settings: Any) -> None:
    client.force_login(caseload)
    page = client.get("/admin/caseload/client/").content.decode()
    assert page.index("Crisis Carla") < page.index("Fresh Felix") < page.index("Quiet Quinn")
    assert "crisis in the last 72 hours" in page
    # A case manager has no bulk actions, so there is no checkbox column: column 1 is the priority.
    ascending = client.get("/admin/caseload/client/?o=1").content.decode()
    assert ascending.index("Quiet Quinn") < ascending.index("Crisis Carla")
