"""Signal receivers: role sync after migrate, sign-in events in the audit log, the human-request notice."""

from __future__ import annotations

import logging
from typing import Any

from audit.services import audit_event_record

logger = logging.getLogger(__name__)


def roles_sync_after_migrate(sender: Any, apps: Any = None, verbosity: int = 0, **kwargs: Any) -> None:
    """Re-apply the role permissions once every app's permissions exist (post_migrate of caseload)."""
    # post_migrate runs before auth's permission creation for apps later in INSTALLED_APPS; create them first.
    from django.apps import apps as live_apps
    from django.contrib.auth.management import create_permissions

    from caseload.roles import roles_sync

    using = kwargs.get("using", "default")
    for app_config in live_apps.get_app_configs():
        create_permissions(app_config, verbosity=0, using=using)
    roles_sync(verbosity=verbosity)


def _actor(user: Any) -> str:
    return f"user:{user.pk}" if user is not None and getattr(user, "pk", None) is not None else "anonymous"


def login_recorded(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    audit_event_record(action="auth.login", actor=_actor(user), object_type="user", object_id=getattr(user, "pk", ""))


def logout_recorded(sender: Any, request: Any = None, user: Any = None, **kwargs: Any) -> None:
    audit_event_record(action="auth.logout", actor=_actor(user), object_type="user", object_id=getattr(user, "pk", ""))


def login_failure_recorded(sender: Any, credentials: Any = None, request: Any = None, **kwargs: Any) -> None:
    # The attempted username is not recorded: it may be a mistyped password or an e-mail (axes keeps its own record).
    audit_event_record(action="auth.login_failed", actor="anonymous", object_type="user")


def register_human_request_notice() -> None:
    """Give the workflow the office-hours notice for "I want a person" (when it offers the hook).

    conversations must not import caseload, so it exposes a registration point and caseload fills it.
    """
    try:
        from conversations.workflow import extensions
    except ImportError:
        logger.debug("conversations.workflow.extensions not available: the human-request notice is not registered")
        return
    from caseload.office_hours import human_request_notice_now

    extensions.register_human_request_notice(human_request_notice_now)


def register_office_hours() -> None:
    """Give the workflow the configured office hours (the acknowledgement says when to expect an answer)."""
    from caseload.office_hours import configured_office_hours
    from conversations.workflow import approval

    approval.register_office_hours(configured_office_hours)
