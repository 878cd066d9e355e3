"""`manage.py caseload seed|roles|notice`: demo caseload, role sync, preview of the human-request notice."""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction
from django.utils import timezone

DEMO_CASE_MANAGER = "demo-casemanager"
# Numbers in the 555-0100..0199 block are reserved for fiction: they never reach a real person.
DEMO_CLIENTS: tuple[dict[str, Any], ...] = (
    {
        "name": "Demo client — Alvarez",
        "days": 3,
        "supervision": "parole",
        "phone": "+15125550101",
        "messages": ["I got out Monday and need a state ID, what documents do I need?"],
    },
    {
        "name": "Demo client — Brooks",
        "days": 12,
        "supervision": "mandatory_supervision",
        "phone": "+12145550102",
        "messages": ["I missed my appointment with my parole officer yesterday, what happens now?"],
    },
    {
        "name": "Demo client — Chen",
        "days": 45,
        "supervision": "probation",
        "phone": "+17135550103",
        "messages": ["Can I vote in Texas after a felony?", "talk to a person"],
    },
    {
        "name": "Demo client — Diaz",
        "days": 120,
        "supervision": "none",
        "phone": "+12105550104",
        "messages": ["¿Dónde puedo encontrar comida en San Antonio?"],
    },
    {"name": "Demo client — Evans", "days": None, "supervision": "unknown", "phone": "+19155550105", "messages": []},
)
UNASSIGNED = {
    "name": "Demo client — unassigned (on-call)",
    "days": 6,
    "supervision": "parole",
    "phone": "+18065550106",
    "messages": ["AGENT"],
}


class Command(BaseCommand):
    help = "Caseload tools: `seed` (idempotent demo clients for demo-casemanager), `roles` (sync role permissions), `notice`."

    def add_arguments(self, parser: Any) -> None:
        parser.add_argument("action", choices=["seed", "roles", "notice"])
        parser.add_argument(
            "--no-turns", action="store_true", help="seed: do not run demo messages through the workflow"
        )
        parser.add_argument("--language", default="en", help="notice: en or es")

    def handle(self, *args: Any, **options: Any) -> None:
        action = options["action"]
        if action == "roles":
            from caseload.roles import roles_sync

            counts = roles_sync(verbosity=options["verbosity"])
            for role, count in counts.items():
                self.stdout.write(f"{role:<16} {count} permissions")
        elif action == "notice":
            from caseload.office_hours import human_request_notice_now

            self.stdout.write(human_request_notice_now(options["language"], timezone.now()))
        else:
            self._seed(with_turns=not options["no_turns"], verbosity=options["verbosity"])

    def _seed(self, *, with_turns: bool, verbosity: int) -> None:
        from caseload.models import Client, ClientContact
        from conversations.services import contact_for_phone

        manager = get_user_model().objects.filter(username=DEMO_CASE_MANAGER).first()
        if manager is None:
            raise CommandError(
                f"{DEMO_CASE_MANAGER} does not exist: run `manage.py seed_demo` (it calls this command)."
            )
        today = timezone.localdate()
        created = 0
        for spec, owner in [*((spec, manager) for spec in DEMO_CLIENTS), (UNASSIGNED, None)]:
            with transaction.atomic():
                client, was_created = Client.objects.get_or_create(
                    name=spec["name"],
                    defaults={
                        "case_manager": owner,
                        "release_date": today - timedelta(days=spec["days"]) if spec["days"] is not None else None,
                        "supervision_type": spec["supervision"],
                        "notes": "Demo record (fictional).",
                    },
                )
                created += was_created
                contact, _ = contact_for_phone(phone=spec["phone"])
                ClientContact.objects.get_or_create(contact=contact, defaults={"client": client, "linked_by": "seed"})
            if with_turns and spec["messages"]:
                self._messages(contact, spec, verbosity)
        self.stdout.write(f"caseload: {created} demo clients created, {len(DEMO_CLIENTS) + 1 - created} already there.")

    def _messages(self, contact: Any, spec: dict[str, Any], verbosity: int) -> None:
        """Run the demo messages through the real workflow once (idempotency keys make re-runs no-ops)."""
        from conversations.models import Conversation
        from conversations.services import conversation_create, turn_run, turn_start

        conversation = Conversation.objects.filter(contact=contact, channel="sms").first()
        if conversation is None:
            conversation, _ = conversation_create(channel="sms", contact=contact)
        for index, text in enumerate(spec["messages"]):
            try:
                turn, was_created = turn_start(conversation=conversation, text=text, idempotency_key=f"seed-{index}")
                if was_created or not turn.is_finished:
                    turn_run(turn_id=turn.pk)
            except Exception as exc:  # noqa: BLE001 - demo data is best effort; the caseload itself is seeded
                self.stderr.write(f"caseload seed: demo message for {spec['name']} not run ({type(exc).__name__})")
                return
