"""Urgent alerts and closures: live at once on cards and in matching, reviewed afterwards, audited."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.core.exceptions import ValidationError
from django.test import Client

from audit.models import AuditEvent
from resources.errors import NotPermitted
from resources.hours import local_now
from resources.models import ServiceNotice
from resources.notices import notice_confirm, notice_set, notice_undo
from resources.selectors import match, service_cards

pytestmark = pytest.mark.django_db


def _ids(cards: list[Any]) -> set[str]:
    return {card.id for card in cards}


def test_a_closure_for_today_leaves_the_service_out_of_the_next_match_at_once(cast: dict[str, Any]) -> None:
    service = cast["service_a"]
    assert str(service.pk) in _ids(match(category="housing", region="houston"))
    notice = notice_set(
        user=cast["partner_a"],
        service_id=service.pk,
        kind="closure",
        text="Water leak",
        text_es="Fuga de agua",
        ends_on=local_now().date(),
    )
    assert str(service.pk) not in _ids(match(category="housing", region="houston"))
    # It comes back when the closure ends (tomorrow) …
    tomorrow = local_now() + dt.timedelta(days=1)
    assert str(service.pk) in _ids(match(category="housing", region="houston", now=tomorrow))
    # … and at once when a supervisor undoes it.
    notice_undo(notice_id=notice.pk, reviewer=cast["supervisor"], note="Fixed already")
    assert str(service.pk) in _ids(match(category="housing", region="houston"))
    actions = list(AuditEvent.objects.filter(object_type="service_notice").values_list("action", flat=True))
    assert sorted(actions) == ["resources.notice.set", "resources.notice.undone"]


def test_a_card_carries_the_alert_in_the_persons_language(cast: dict[str, Any]) -> None:
    service = cast["service_a"]
    notice_set(
        user=cast["partner_a"],
        service_id=service.pk,
        kind="alert",
        text="Enter by the side door",
        text_es="Entre por la puerta lateral",
        ends_on=local_now().date() + dt.timedelta(days=3),
    )
    [english] = service_cards([service.pk])
    [spanish] = service_cards([service.pk], language="es")
    assert english.alert == "Enter by the side door"
    assert spanish.alert == "Entre por la puerta lateral" and "alert" not in spanish.untranslated
    [matched] = match(category="housing", region="houston")
    assert matched.alert == "Enter by the side door"  # an alert does not take the service out


def test_a_closure_card_says_until_when_and_an_english_only_notice_is_marked(cast: dict[str, Any]) -> None:
    service = cast["service_a"]
    last = local_now().date() + dt.timedelta(days=2)
    notice_set(user=cast["partner_a"], service_id=service.pk, kind="closure", text="Renovation", ends_on=last)
    [card] = service_cards([service.pk], language="es")
    assert card.alert == f"Cerrado hasta el {last.day}/{last.month}: Renovation"
    assert "alert" in card.untranslated


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"ends_on": dt.date(2020, 1, 1)}, "ends_on"),
        ({"ends_on": None}, "ends_on"),
        ({"text": "  "}, "text"),
        ({"kind": "party"}, "kind"),
        ({"ends_on": "far"}, "ends_on"),
    ],
)
def test_a_bad_notice_is_a_field_error_and_nothing_is_stored(
    cast: dict[str, Any], kwargs: dict[str, Any], field: str
) -> None:
    values = {"kind": "closure", "text": "Closed", "ends_on": local_now().date(), **kwargs}
    if values["ends_on"] == "far":
        values["ends_on"] = local_now().date() + dt.timedelta(days=365)
    with pytest.raises(ValidationError) as caught:
        notice_set(user=cast["partner_a"], service_id=cast["service_a"].pk, **values)
    assert field in caught.value.message_dict
    assert not ServiceNotice.objects.exists()


def test_a_partner_cannot_put_a_notice_on_another_organizations_service(cast: dict[str, Any]) -> None:
    with pytest.raises(NotPermitted):
        notice_set(
            user=cast["partner_a"],
            service_id=cast["service_b"].pk,
            kind="closure",
            text="x",
            ends_on=local_now().date(),
        )
    assert not ServiceNotice.objects.exists()


def test_only_supervisors_review_notices_and_confirming_keeps_it_live(cast: dict[str, Any]) -> None:
    notice = notice_set(
        user=cast["partner_a"], service_id=cast["service_a"].pk, kind="closure", text="x", ends_on=local_now().date()
    )
    with pytest.raises(NotPermitted):
        notice_undo(notice_id=notice.pk, reviewer=cast["partner_a"])
    notice_confirm(notice_id=notice.pk, reviewer=cast["supervisor"])
    assert ServiceNotice.objects.get().review_status == "confirmed"
    assert not match(category="housing", region="houston")


def test_the_partner_page_posts_a_closure_and_supervisors_undo_it_in_admin(cast: dict[str, Any]) -> None:
    partner = Client()
    partner.force_login(cast["partner_a"])
    service = cast["service_a"]
    response = partner.post(
        f"/partners/services/{service.pk}/notice/",
        {"kind": "closure", "text": "Closed today - water leak", "ends_on": local_now().date().isoformat()},
    )
    assert response.status_code == 302
    assert not match(category="housing", region="houston")
    past = partner.post(
        f"/partners/services/{service.pk}/notice/", {"kind": "closure", "text": "x", "ends_on": "2020-01-01"}
    )
    assert past.status_code == 200 and past.context["form"].errors["ends_on"]
    supervisor = Client()
    supervisor.force_login(cast["supervisor"])
    notice = ServiceNotice.objects.get()
    response = supervisor.post(
        "/admin/resources/servicenotice/",
        {"action": "undo", "_selected_action": [notice.pk], "note": "checked", "index": 0},
    )
    assert response.status_code == 302
    assert ServiceNotice.objects.get().review_status == "undone"
    assert match(category="housing", region="houston")
