import pytest
from django.contrib.auth import get_user_model

from audit.log import AuditEvent
from audit.signals import username_hash

pytestmark = pytest.mark.urls("tests.audit.urls")  # admin only: no dependency on other apps' routes


@pytest.fixture
def staff(db):
    return get_user_model().objects.create_user("casey", password="a-long-test-password-1", is_staff=True)


@pytest.mark.django_db
def test_an_admin_login_is_recorded(client, staff):
    response = client.post("/admin/login/?next=/admin/", {"username": "casey", "password": "a-long-test-password-1"})
    assert response.status_code == 302
    event = AuditEvent.objects.get(action="admin.login")
    assert event.actor == f"user:{staff.pk}"
    assert event.object_id == str(staff.pk)


@pytest.mark.django_db
def test_a_failed_login_is_recorded_with_the_username_hashed(client, staff):
    client.post("/admin/login/?next=/admin/", {"username": "Casey", "password": "wrong-password"})
    event = AuditEvent.objects.get(action="admin.login_failed")
    assert event.actor == "anonymous"
    assert event.data == {"username_hash": username_hash("casey")}
    stored = str(event.data) + event.object_id + event.actor
    assert "casey" not in stored.lower()
    assert "wrong-password" not in stored


def test_the_username_hash_is_stable_keyed_and_case_insensitive():
    assert username_hash("Casey ") == username_hash("casey")
    assert username_hash("casey") != username_hash("casey2")
    assert len(username_hash("casey")) == 32
