"""Seed demo data idempotently: one account per role, then each app's fixtures."""

from __future__ import annotations

import secrets
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.core.management import call_command, get_commands
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from pathways_site.env import env_str
from resources.models import Organization, PartnerMembership
from vocab import ADMIN, CASE_MANAGER, PARTNER_EDITOR, SUPERVISOR

ROLES: tuple[tuple[str, str, bool], ...] = (
    # (username, group, is_superuser)
    ("demo-admin", ADMIN, True),
    ("demo-supervisor", SUPERVISOR, False),
    ("demo-casemanager", CASE_MANAGER, False),
    ("demo-partner", PARTNER_EDITOR, False),
)

DEMO_PARTNER_ORGANIZATION = "harris-center"

# Each app's loader, run when the app provides it; all of them are idempotent upserts.
APP_LOADERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("corpus", ("load",)),
    ("resources", ("load",)),
    ("caseload", ("seed",)),
)


class Command(BaseCommand):
    help = "Create demo accounts (one per role) and load fixtures; safe to run again."

    def handle(self, *args: Any, **options: Any) -> None:
        if getattr(settings, "PRODUCTION", False):
            # It creates a superuser with a printed password: never on a real deployment.
            raise CommandError("seed_demo refuses to run when DJANGO_ENV=production (it creates demo superusers)")
        created = self._accounts()
        commands = get_commands()
        for name, arguments in APP_LOADERS:
            if name in commands:
                call_command(name, *arguments, verbosity=options.get("verbosity", 1))
        self._partner_membership()
        if created:
            path = settings.VAR_DIR / "demo-accounts.txt"
            lines = [f"{username}\t{password}" for username, password in created]
            with path.open("a") as handle:
                handle.write("\n".join(lines) + "\n")
            path.chmod(0o600)
            self.stdout.write(
                self.style.WARNING("Demo accounts created (shown once; also appended to var/demo-accounts.txt):")
            )
            for username, password in created:
                self.stdout.write(f"  {username:<18} {password}")
        else:
            self.stdout.write("Demo accounts already exist.")

    def _partner_membership(self) -> None:
        """Link the demo partner editor to one organization, so the partner view has something to edit."""
        user = get_user_model().objects.filter(username="demo-partner").first()
        organization = Organization.objects.filter(slug=DEMO_PARTNER_ORGANIZATION).first()
        if user and organization and not PartnerMembership.objects.filter(user=user).exists():
            PartnerMembership.objects.create(user=user, organization=organization)

    @transaction.atomic
    def _accounts(self) -> list[tuple[str, str]]:
        user_model = get_user_model()
        created: list[tuple[str, str]] = []
        for username, group_name, superuser in ROLES:
            group, _ = Group.objects.get_or_create(name=group_name)
            user = user_model.objects.filter(username=username).first()
            if user is None:
                env_name = "DEMO_PASSWORD_" + group_name.upper().replace(" ", "_")
                password = env_str(env_name) or secrets.token_urlsafe(12)
                user = user_model.objects.create_user(
                    username=username, password=password, is_staff=True, is_superuser=superuser
                )
                created.append((username, password))
            user.groups.add(group)
        return created
