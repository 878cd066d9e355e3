"""Roles come from the data migration; admin sign-in is throttled, passwords strong, cookies secure in production."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import Any

import pytest
from django.contrib.auth.models import Group
from django.contrib.auth.password_validation import validate_password
from django.core.exceptions import ValidationError
from django.core.management import call_command

from audit.models import AuditEvent
from caseload import roles


@pytest.mark.django_db
def test_the_migration_created_the_four_roles_with_their_permissions() -> None:
    groups = {group.name: group for group in Group.objects.prefetch_related("permissions__content_type")}
    assert set(roles.ROLE_NAMES) <= set(groups)
    held = {
        name: {f"{p.content_type.app_label}.{p.codename}" for p in groups[name].permissions.all()}
        for name in roles.ROLE_NAMES
    }
    assert {"caseload.approve_outbound", "caseload.take_over_conversation", "conversations.view_turn"} <= held[
        roles.CASE_MANAGER
    ]
    assert "caseload.view_all_clients" not in held[roles.CASE_MANAGER]
    assert not any(perm.startswith(("caseload.delete", "conversations.delete")) for perm in held[roles.CASE_MANAGER])
    assert {"caseload.view_all_clients", "caseload.view_dashboard"} <= held[roles.SUPERVISOR]
    assert not any(perm.startswith(("caseload.", "conversations.")) for perm in held[roles.PARTNER_EDITOR])
    assert "resources.change_service" in held[roles.PARTNER_EDITOR]
    assert len(held[roles.ADMIN]) > len(held[roles.SUPERVISOR])


@pytest.mark.django_db
def test_syncing_roles_is_idempotent_and_restores_removed_permissions() -> None:
    first = roles.roles_sync()
    Group.objects.get(name=roles.CASE_MANAGER).permissions.clear()
    assert roles.roles_sync() == first


def test_weak_passwords_are_refused() -> None:
    for weak in ("password123", "12345678901234", "short1!"):
        with pytest.raises(ValidationError):
            validate_password(weak)
    validate_password("correct-horse-battery-staple-7")


@pytest.mark.django_db
def test_admin_sign_in_is_throttled_after_repeated_failures_and_logged(client: Any, cast: Any, settings: Any) -> None:
    settings.AXES_FAILURE_LIMIT = 3
    for _ in range(3):
        client.post("/admin/login/?next=/admin/", {"username": "cara-cm", "password": "wrong-password-xx"})
    locked = client.post("/admin/login/?next=/admin/", {"username": "cara-cm", "password": "a-long-test-password-42"})
    assert locked.status_code == 429
    assert AuditEvent.objects.filter(action="auth.login_failed").count() >= 3
    assert not AuditEvent.objects.filter(action="auth.login").exists()


@pytest.mark.django_db
def test_a_successful_sign_in_is_logged(client: Any, cast: Any) -> None:
    response = client.post("/admin/login/?next=/admin/", {"username": "cara-cm", "password": "a-long-test-password-42"})
    assert response.status_code == 302
    assert AuditEvent.objects.filter(action="auth.login", actor=f"user:{cast.cm_a.pk}").exists()


def test_production_mode_sets_secure_cookies() -> None:
    env = {
        **os.environ,
        "DJANGO_ENV": "production",
        "DEBUG": "0",
        "SECRET_KEY": "x" * 20 + "abcdefghijklmnopqrstuvwxyz0123456789",
        "FIELD_ENCRYPTION_KEY": "A" * 43 + "=",
        "DATABASE_URL": "postgres://u:p@127.0.0.1:1/db",
        "ALLOWED_HOSTS": "pathways.example.org",
        "PHONE_HASH_KEY": "phone-hash-key-for-this-test-0123456789",
        "AUDIT_ANCHOR_KEY": "audit-anchor-key-for-this-test-0123456789",
    }
    code = "from django.conf import settings as s; print(s.SESSION_COOKIE_SECURE, s.CSRF_COOKIE_SECURE, s.SESSION_COOKIE_HTTPONLY)"
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            f"import django, os; os.environ.setdefault('DJANGO_SETTINGS_MODULE','pathways_site.settings'); django.setup(); {code}",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert out.stdout.split() == ["True", "True", "True"]


@pytest.mark.django_db
def test_caseload_seed_is_idempotent(cast: Any) -> None:
    from caseload.models import Client
    from tests.caseload.factories import UserFactory

    UserFactory(username="demo-casemanager", role=roles.CASE_MANAGER)
    call_command("caseload", "seed", "--no-turns", verbosity=0)
    count = Client.objects.count()
    call_command("caseload", "seed", "--no-turns", verbosity=0)
    assert Client.objects.count() == count
    assert Client.objects.filter(case_manager__username="demo-casemanager").count() == 5
    assert Client.objects.filter(name__contains="on-call", case_manager__isnull=True).exists()
