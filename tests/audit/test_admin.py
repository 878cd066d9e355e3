import pytest
from django.contrib import admin
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import RequestFactory
from django.urls import reverse

from audit.admin_mixins import AuditedModelAdmin
from audit.log import AuditEvent
from audit.services import audit_event_record

pytestmark = pytest.mark.urls("tests.audit.urls")  # admin only: no dependency on other apps' routes


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", "root@example.org", "a-long-test-password-2")


@pytest.fixture
def events(db):
    return [
        audit_event_record(action="turn.finished", actor="system", object_type="turn", object_id="abc-1"),
        audit_event_record(action="sms.sent", actor="twilio", object_type="outbound", object_id="abc-2"),
    ]


@pytest.mark.django_db
def test_nobody_may_add_change_or_delete_events_in_admin(client, superuser, events):
    client.force_login(superuser)
    model_admin = admin.site._registry[AuditEvent]
    request = RequestFactory().get("/")
    request.user = superuser
    assert not model_admin.has_add_permission(request)
    assert not model_admin.has_change_permission(request, events[0])
    assert not model_admin.has_delete_permission(request, events[0])
    assert client.get(reverse("admin:audit_auditevent_add")).status_code == 403
    assert client.get(reverse("admin:audit_auditevent_delete", args=[events[0].pk])).status_code == 403
    response = client.post(reverse("admin:audit_auditevent_change", args=[events[0].pk]), {"action": "forged"})
    assert response.status_code == 403
    assert AuditEvent.objects.get(pk=events[0].pk).action == "turn.finished"


@pytest.mark.django_db
def test_the_changelist_filters_and_searches_by_object_id(client, superuser, events):
    client.force_login(superuser)
    url = reverse("admin:audit_auditevent_changelist")
    page = client.get(url)
    assert page.status_code == 200
    for filter_name in ("action", "object_type", "actor"):
        assert f"?{filter_name}=" in page.content.decode()
    assert list(client.get(url, {"q": "abc-2"}).context["cl"].result_list) == [events[1]]
    assert list(client.get(url, {"q": "abc"}).context["cl"].result_list) == []  # exact ids only
    assert list(client.get(url, {"action": "turn.finished"}).context["cl"].result_list) == [events[0]]
    assert client.get(reverse("admin:audit_auditevent_change", args=[events[0].pk])).status_code == 200  # view only


@pytest.mark.django_db
def test_the_audited_admin_records_changed_field_names_never_values(superuser):
    model_admin = AuditedModelAdmin(Group, admin.site)
    request = RequestFactory().post("/")
    request.user = superuser
    form = model_admin.get_form(request)(data={"name": "Case managers - Houston"})
    assert form.is_valid(), form.errors
    group = form.save(commit=False)
    model_admin.save_model(request, group, form, change=False)
    added = AuditEvent.objects.get(action="admin.add")
    assert added.actor == f"user:{superuser.pk}"
    assert added.object_type == "auth.group" and added.object_id == str(group.pk)
    assert added.data == {"fields": ["name"]}
    assert "Houston" not in str(added.data)

    form = model_admin.get_form(request, group)(data={"name": "Renamed"}, instance=group)
    assert form.is_valid()
    model_admin.save_model(request, form.save(commit=False), form, change=True)
    assert AuditEvent.objects.get(action="admin.change").data == {"fields": ["name"]}

    pk = group.pk
    model_admin.delete_model(request, group)
    deleted = AuditEvent.objects.get(action="admin.delete")
    assert deleted.object_id == str(pk)


@pytest.mark.django_db
def test_the_audited_admin_records_bulk_deletes(superuser):
    groups = [Group.objects.create(name=f"g{i}") for i in range(3)]
    model_admin = AuditedModelAdmin(Group, admin.site)
    request = RequestFactory().post("/")
    request.user = superuser
    model_admin.delete_queryset(request, Group.objects.filter(pk__in=[g.pk for g in groups]))
    assert sorted(AuditEvent.objects.filter(action="admin.delete").values_list("object_id", flat=True)) == sorted(
        str(g.pk) for g in groups
    )
