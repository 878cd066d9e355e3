"""The four staff roles as Groups, and the permissions each one holds.

The data migration 0002_roles creates the groups from ROLE_PERMISSIONS; `roles_sync` runs again
after every `migrate` (post_migrate) so permissions of models added later by other apps (e.g. a new
resources model) reach the roles without another hand-written migration. Syncing only adds and
removes permissions listed here — it is idempotent and leaves users' memberships alone.
"""

from __future__ import annotations

import logging
from typing import Any, Final

# The role names are the project's vocabulary (resources checks them too); this module gives them permissions.
from vocab import ADMIN, CASE_MANAGER, PARTNER_EDITOR, ROLE_NAMES, SUPERVISOR

__all__ = [
    "ADMIN",
    "ALL_PERMISSIONS",
    "CASE_MANAGER",
    "PARTNER_EDITOR",
    "ROLE_NAMES",
    "ROLE_PERMISSIONS",
    "SUPERVISOR",
    "roles_sync",
]

logger = logging.getLogger(__name__)

_CONVERSATION_MODELS = ("contact", "conversation", "turn", "noderun", "outboundmessage")
_DIRECTORY_OBJECTS = ("organization", "service", "location", "phone", "schedule")
_RESOURCES_ALL = (
    "taxonomy",
    "taxonomyterm",
    "organization",
    "service",
    "location",
    "serviceatlocation",
    "phone",
    "schedule",
    "requireddocument",
    "attribute",
    "partnermembership",
    "feedrefresh",
    "changerequest",
)


def _view(app: str, models: tuple[str, ...]) -> list[str]:
    return [f"{app}.view_{model}" for model in models]


# "app_label.codename". Case managers never delete anything: transcripts and outbox rows are records.
ROLE_PERMISSIONS: Final[dict[str, tuple[str, ...]]] = {
    CASE_MANAGER: (
        "caseload.view_client",
        "caseload.add_client",
        "caseload.change_client",
        "caseload.view_clientcontact",
        "caseload.add_clientcontact",
        "caseload.change_clientcontact",
        "caseload.approve_outbound",
        "caseload.take_over_conversation",
        *_view("conversations", _CONVERSATION_MODELS),
    ),
    SUPERVISOR: (
        "caseload.view_client",
        "caseload.add_client",
        "caseload.change_client",
        "caseload.view_clientcontact",
        "caseload.add_clientcontact",
        "caseload.change_clientcontact",
        "caseload.delete_clientcontact",
        # Erasure on request (docs/operations.md): "Erase selected people" needs the delete permission.
        "caseload.delete_client",
        "caseload.view_phonelinkrequest",
        "caseload.view_all_clients",
        "caseload.approve_outbound",
        "caseload.take_over_conversation",
        "caseload.view_oncall_queue",
        "caseload.view_dashboard",
        *_view("conversations", _CONVERSATION_MODELS),
        *_view("resources", _RESOURCES_ALL),
        "resources.change_changerequest",
        "corpus.view_corpusentry",
        "corpus.view_corpusentryversion",
        "audit.view_auditevent",
    ),
    # Partners propose edits for their own organization only; the resources admin scopes them and
    # turns a "change" into a ChangeRequest. They see nothing of caseload or conversations.
    PARTNER_EDITOR: (
        *_view("resources", _DIRECTORY_OBJECTS),
        *[f"resources.change_{model}" for model in _DIRECTORY_OBJECTS],
        "resources.view_changerequest",
        "resources.add_changerequest",
    ),
}
# The admin group holds every permission (its members are also superusers in the demo seed).
ALL_PERMISSIONS: Final = ADMIN


def roles_sync(*, apps: Any = None, verbosity: int = 0) -> dict[str, int]:
    """Create the role groups and set exactly their listed permissions; returns permissions per role.

    `apps` is a migration's historical registry when called from a migration; the live registry otherwise.
    Permissions of models that do not exist (yet) are skipped, and picked up by a later sync.
    """
    if apps is None:
        from django.apps import apps as live_apps

        apps = live_apps
    group_model = apps.get_model("auth", "Group")
    permission_model = apps.get_model("auth", "Permission")
    counts: dict[str, int] = {}
    every = permission_model.objects.all()
    for role in ROLE_NAMES:
        group, _ = group_model.objects.get_or_create(name=role)
        if role == ALL_PERMISSIONS:
            wanted = list(every)
        else:
            wanted = []
            missing = []
            for label in ROLE_PERMISSIONS[role]:
                app_label, codename = label.split(".", 1)
                found = every.filter(content_type__app_label=app_label, codename=codename).first()
                if found is None:
                    missing.append(label)
                else:
                    wanted.append(found)
            if missing and verbosity:
                logger.info("role %s: %d permissions not available yet: %s", role, len(missing), ", ".join(missing))
        group.permissions.set(wanted)
        counts[role] = len(wanted)
    return counts
