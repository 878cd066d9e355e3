"""Writes of the directory. Every live change goes through here: validated, versioned, audited.

Partners and feeds never write live rows: they create ChangeRequests (field-level diffs) that a
staff reviewer approves (applied here, atomically, with a conflict check) or rejects.
"""

from __future__ import annotations

import functools
import json
import logging
import uuid
from pathlib import Path
from typing import Any, TypedDict, cast

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import ValidationError
from django.core.mail import send_mail
from django.db import models, transaction
from django.utils import timezone
from django.utils.text import slugify

from audit.services import audit_event_record
from resources import places
from resources.errors import ChangeRequestConflict, ChangeRequestNotPending, NotPermitted
from resources.matchindex import match_index_deferred, match_index_refresh
from resources.models import (
    Attribute,
    ChangeRequest,
    EntryVersion,
    FeedRefresh,
    Location,
    Organization,
    PartnerMembership,
    Phone,
    RequiredDocument,
    Schedule,
    Service,
    ServiceAtLocation,
    Taxonomy,
    TaxonomyTerm,
    field_payload,
)
from resources.taxonomy import (
    ATTRIBUTES_TAXONOMY,
    NEED_CATEGORIES,
    NEED_CATEGORY_LABELS,
    NEEDS_TAXONOMY,
    REENTRY_ATTRIBUTES,
    stable_id,
)
from vocab import ADMIN, PARTNER_EDITOR, SUPERVISOR

logger = logging.getLogger(__name__)


class NothingChanged(ValidationError):
    """A proposal equal to the live entry: nothing to review (a form row left as it was)."""


STAFF_GROUPS = frozenset({SUPERVISOR, ADMIN})
PARTNER_GROUP = PARTNER_EDITOR

# What a partner or a feed may change, per object type. Flags such as is_statewide, the source
# fields and last_verified_at stay with staff.
# None of these models declares a manager of its own: `_default_manager` (typed for type[Model]) is `objects`.
TARGETS: dict[str, tuple[type[models.Model], tuple[str, ...]]] = {
    "organization": (Organization, ("name", "description", "url", "email")),
    "service": (
        Service,
        (
            "name",
            "description",
            "url",
            "email",
            "categories",
            "languages",
            "eligibility",
            "fees",
            "application_process",
            "status",
            "alert",
            "description_es",
            "eligibility_es",
            "alert_es",
        ),
    ),
    "location": (
        Location,
        (
            "name",
            "location_type",
            "address_1",
            "address_2",
            "city",
            "postal_code",
            "region",
            "latitude",
            "longitude",
            "geo_precision",
        ),
    ),
    "phone": (Phone, ("service", "location", "number", "extension", "type", "description", "languages", "rank")),
    "schedule": (Schedule, ("service", "location", "byday", "opens_at", "closes_at", "description", "description_es")),
    "document": (RequiredDocument, ("service", "document", "document_es", "uri")),
    "attribute": (Attribute, ("service", "taxonomy_term", "value")),
    "service_at_location": (ServiceAtLocation, ("service", "location")),
}
# A removed service is kept (status defunct) so its history and cards already shown stay readable.
RETIRED_STATUS = "defunct"
ENTITY_TYPES: dict[type[models.Model], str] = {model: name for name, (model, _) in TARGETS.items()}


def actor_label(user: AbstractBaseUser | AnonymousUser | None) -> str:
    return f"user:{user.pk}" if user is not None and user.pk is not None else "system"


def is_reviewer(user: Any) -> bool:
    """Staff who may approve changes and edit live entries: superusers, supervisors, admins."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return False
    return bool(user.is_superuser or user.groups.filter(name__in=STAFF_GROUPS).exists())


def partner_organization(user: Any) -> Organization | None:
    """The organization a partner editor may propose changes for (None for anyone else)."""
    if not getattr(user, "is_authenticated", False) or not getattr(user, "is_active", False):
        return None
    membership = PartnerMembership.objects.select_related("organization").filter(user=user).first()
    if membership is None or not user.groups.filter(name=PARTNER_GROUP).exists():
        return None
    return membership.organization


def organization_id_of(instance: models.Model) -> uuid.UUID | None:
    """The owning organization of any directory object (what partner scoping keys on)."""
    if isinstance(instance, Organization):
        return instance.pk
    if isinstance(instance, (Schedule, RequiredDocument, Attribute, ServiceAtLocation)):
        return instance.service.organization_id if instance.service_id else None
    return getattr(instance, "organization_id", None)


# --- taxonomy --------------------------------------------------------------------------------


def taxonomies_ensure() -> None:
    """Create the need-category and reentry-attribute taxonomies and their terms (idempotent)."""
    specs = (
        (NEEDS_TAXONOMY, "Pathways need categories (what a person needs help with).", NEED_CATEGORY_LABELS),
        (ATTRIBUTES_TAXONOMY, "Pathways reentry attributes (who a service accepts).", REENTRY_ATTRIBUTES),
    )
    for name, description, terms in specs:
        taxonomy, _ = Taxonomy.objects.get_or_create(
            id=stable_id("taxonomy", name), defaults={"name": name, "description": description, "version": "1"}
        )
        for code, label in terms.items():
            TaxonomyTerm.objects.get_or_create(
                id=stable_id("term", name, code),
                defaults={"taxonomy": taxonomy, "code": code, "name": label, "description": label},
            )


def attribute_term(code: str) -> TaxonomyTerm:
    if code not in REENTRY_ATTRIBUTES:
        raise ValidationError(f"Unknown reentry attribute {code!r}.")
    term = TaxonomyTerm.objects.filter(id=stable_id("term", ATTRIBUTES_TAXONOMY, code)).first()
    if term is None:
        taxonomies_ensure()
        term = TaxonomyTerm.objects.get(id=stable_id("term", ATTRIBUTES_TAXONOMY, code))
    return term


# --- live writes -------------------------------------------------------------------------------


def version_record(*, instance: models.Model, actor: str, reason: str) -> EntryVersion:
    """Snapshot an object after a change (the directory's history)."""
    entity_type = ENTITY_TYPES.get(type(instance), type(instance).__name__.lower())
    names = tuple(field.name for field in instance._meta.concrete_fields if field.name not in {"updated_at"})
    return EntryVersion.objects.create(
        entity_type=entity_type,
        entity_id=instance.pk,
        snapshot=field_payload(instance, names),
        actor=actor,
        reason=reason,
    )


def entry_save(
    *,
    instance: models.Model,
    actor: AbstractBaseUser | AnonymousUser | None,
    reason: str = "staff_edit",
    changed_fields: list[str] | None = None,
) -> models.Model:
    """Validate and save a live object directly (staff and loaders only), with history and audit."""
    with transaction.atomic():
        instance.full_clean()
        instance.save()
        version_record(instance=instance, actor=actor_label(actor), reason=reason)
        audit_event_record(
            action="resources.entry.saved",
            actor=actor_label(actor),
            object_type=ENTITY_TYPES.get(type(instance), type(instance).__name__.lower()),
            object_id=str(instance.pk),
            data={"reason": reason, "fields": sorted(changed_fields or [])},
        )
    return instance


def _assign(instance: models.Model, name: str, value: Any) -> None:
    field = instance._meta.get_field(name)
    if not isinstance(field, models.Field):
        raise TypeError(f"{name} is the reverse side of a relation, not an editable field")
    setattr(instance, field.attname, None if value is None else field.to_python(value))


def _check_related_ownership(
    instance: models.Model, organization_id: uuid.UUID | None, pending: frozenset[uuid.UUID] = frozenset()
) -> None:
    """A partner may only point their objects at their own services and locations."""
    for name in ("service", "location"):
        if not any(field.name == name for field in instance._meta.concrete_fields):
            continue
        related_id = getattr(instance, f"{name}_id")
        if related_id is None or related_id in pending:
            continue
        model = Service if name == "service" else Location
        owner = model.objects.filter(pk=related_id).values_list("organization_id", flat=True).first()
        if owner != organization_id:
            raise ValidationError({name: f"That {name} does not belong to this organization."})


def new_instance(target_type: str, organization_id: uuid.UUID, target_id: uuid.UUID | str | None = None) -> Any:
    """An unsaved object of `target_type` for `organization_id`, with the id it will keep once approved."""
    model, _ = TARGETS[target_type]
    instance: Any = model(pk=uuid.UUID(str(target_id)) if target_id else uuid.uuid4())  # any of TARGETS' models
    if any(field.name == "organization" for field in model._meta.concrete_fields):
        instance.organization_id = organization_id
    return instance


def _service_slug(instance: models.Model) -> None:
    """A new service gets a unique slug from its name (partners never type slugs)."""
    if isinstance(instance, Service) and not instance.slug:
        instance.slug = f"{slugify(instance.name)[:60] or 'service'}-{str(instance.pk)[:8]}"


def change_diff(
    *,
    instance: models.Model,
    target_type: str,
    changes: dict[str, Any],
    parents: dict[uuid.UUID, models.Model] | None = None,
    organization_id: uuid.UUID | None = None,
) -> dict[str, dict[str, Any]]:
    """Validate proposed values against a copy of `instance`; return {field: {old, new}} for real changes.

    `parents` are unsaved objects proposed in the same request (a new service for its new phone):
    a reference to one of them is checked against it instead of the database.
    """
    _, editable = TARGETS[target_type]
    unknown = sorted(set(changes) - set(editable))
    if unknown:
        raise ValidationError(f"These fields cannot be changed here: {', '.join(unknown)}.")
    parents = parents or {}
    adding = instance._state.adding
    old = field_payload(instance, tuple(changes))
    candidate = instance if adding else type(instance)._default_manager.get(pk=instance.pk)
    expected = organization_id if organization_id is not None else (None if adding else organization_id_of(instance))
    for name, value in changes.items():
        try:
            _assign(candidate, name, value)
        except ValidationError as exc:
            raise ValidationError({name: exc.messages}) from exc
    excluded = []
    for name in ("service", "location"):
        if any(field.name == name for field in candidate._meta.concrete_fields):
            related_id = getattr(candidate, f"{name}_id")
            if related_id in parents:
                setattr(candidate, name, parents[related_id])
                excluded.append(name)
    _service_slug(candidate)
    candidate.full_clean(exclude=excluded or None)
    if expected is None:
        expected = organization_id_of(candidate)
    if expected is not None:
        _check_related_ownership(candidate, expected, frozenset(parents))
    new = field_payload(candidate, tuple(changes))
    if adding:
        # A new object: every given value is part of the request, even one equal to a default.
        return {name: {"old": None, "new": new[name]} for name in changes}
    return {name: {"old": old[name], "new": new[name]} for name in changes if old[name] != new[name]}


def removal_diff(*, instance: models.Model, target_type: str) -> dict[str, dict[str, Any]]:
    """The diff of removing `instance`: its live values as "old" (a service: status → defunct)."""
    if isinstance(instance, Service):
        if instance.status == RETIRED_STATUS:
            raise ValidationError("This service is already removed.")
        return {"status": {"old": instance.status, "new": RETIRED_STATUS}}
    _, editable = TARGETS[target_type]
    return {name: {"old": value, "new": None} for name, value in field_payload(instance, editable).items()}


def children_diff(
    children: list[tuple[str, dict[str, Any]]], *, organization_id: uuid.UUID, parent: models.Model
) -> list[dict[str, Any]]:
    """Validate the dependent objects of a new one; each may refer to the parent or an earlier child.

    A value "$parent" stands for the new parent's id and "$previous" for the child just before.
    """
    parents: dict[uuid.UUID, models.Model] = {parent.pk: parent}
    rows: list[dict[str, Any]] = []
    for target_type, given in children:
        if target_type not in TARGETS:
            raise ValidationError(f"Unknown object type {target_type!r}.")
        previous = rows[-1]["target_id"] if rows else None
        values = {
            name: str(parent.pk) if value == "$parent" else (previous if value == "$previous" else value)
            for name, value in given.items()
        }
        child = new_instance(target_type, organization_id)
        diff = change_diff(
            instance=child, target_type=target_type, changes=values, parents=parents, organization_id=organization_id
        )
        parents[child.pk] = child
        rows.append({"target_type": target_type, "target_id": str(child.pk), "changes": diff})
    return rows


def owned_instance(*, target_type: str, target_id: Any, organization: Organization) -> models.Model:
    """The object if it belongs to `organization`; NotPermitted otherwise (same answer when it does not exist)."""
    if target_type not in TARGETS:
        raise ValidationError(f"Unknown object type {target_type!r}.")
    model, _ = TARGETS[target_type]
    try:
        instance = model._default_manager.filter(pk=target_id).first()
    except (ValidationError, ValueError):
        instance = None
    # The same answer for "does not exist" and "belongs to someone else": ids are not an oracle.
    if instance is None or organization_id_of(instance) != organization.pk:
        raise NotPermitted("You can only change your own organization's entries.")
    return instance


def change_request_submit(
    *,
    user: Any,
    target_type: str,
    target_id: uuid.UUID | str | None = None,
    changes: dict[str, Any] | None = None,
    action: str = "update",
    children: list[tuple[str, dict[str, Any]]] = (),  # type: ignore[assignment]
) -> ChangeRequest:
    """A partner proposes a change, an addition or a removal for their own organization; nothing live changes.

    For action "create", `children` are dependent objects as (target_type, values) created with it
    (a new location's link to its service, a new service's phones and hours).
    """
    if target_type not in TARGETS:
        raise ValidationError(f"Unknown object type {target_type!r}.")
    if action not in {"update", "create", "delete"}:
        raise ValidationError(f"Unknown action {action!r}.")
    organization = partner_organization(user)
    if organization is None:
        raise NotPermitted("Only partner editors linked to an organization can propose changes.")
    changes = changes or {}
    child_rows: list[dict[str, Any]] = []
    if action == "create":
        instance = new_instance(target_type, organization.pk)
        diff = change_diff(instance=instance, target_type=target_type, changes=changes, organization_id=organization.pk)
        child_rows = children_diff(list(children), organization_id=organization.pk, parent=instance)
    else:
        instance = owned_instance(target_type=target_type, target_id=target_id, organization=organization)
        if action == "update":
            diff = change_diff(instance=instance, target_type=target_type, changes=changes)
        else:
            diff = removal_diff(instance=instance, target_type=target_type)
    if not diff:
        raise NothingChanged("Nothing changed.")
    with transaction.atomic():
        request = ChangeRequest.objects.create(
            organization=organization,
            target_type=target_type,
            target_id=instance.pk,
            action=action,
            changes=diff,
            children=child_rows,
            source="partner",
            requested_by=user,
        )
        audit_event_record(
            action="resources.change_request.submitted",
            actor=actor_label(user),
            object_type="change_request",
            object_id=request.pk,
            data={
                "target_type": target_type,
                "target_id": str(instance.pk),
                "action": action,
                "fields": sorted(diff),
                "children": len(child_rows),
            },
        )
    return request


def change_request_propose(
    *,
    organization: Organization,
    target_type: str,
    target_id: uuid.UUID,
    action: str,
    changes: dict[str, dict[str, Any]],
    feed_refresh: FeedRefresh | None = None,
    children: list[dict[str, Any]] | None = None,
) -> ChangeRequest | None:
    """Record a feed-detected difference for review; an identical pending request is not repeated."""
    pending = ChangeRequest.objects.filter(
        target_type=target_type, status="pending", action=action, organization=organization
    )
    if action == "create":
        # A new row (and its children) get fresh ids each refresh: the same proposal is recognised by content.
        wanted = _content(children or [])
        duplicate = any(_content(other.children) == wanted for other in pending.filter(changes=changes))
    else:
        duplicate = pending.filter(target_id=target_id, changes=changes).exists()
    if duplicate:
        return None
    request = ChangeRequest.objects.create(
        organization=organization,
        target_type=target_type,
        target_id=target_id,
        action=action,
        changes=changes,
        children=children or [],
        source="feed",
        feed_refresh=feed_refresh,
    )
    audit_event_record(
        action="resources.change_request.proposed",
        actor="system",
        object_type="change_request",
        object_id=request.pk,
        data={
            "target_type": target_type,
            "target_id": str(target_id),
            "action": action,
            "fields": sorted(changes),
            "children": len(children or []),
        },
    )
    return request


def _content(children: list[dict[str, Any]]) -> list[tuple[str, dict[str, Any]]]:
    """Children without their fresh ids and links to them, for recognising a repeated proposal."""
    return [
        (child["target_type"], {k: v for k, v in child["changes"].items() if k not in {"service", "location"}})
        for child in children
    ]


def _locked_pending(change_request_id: int) -> ChangeRequest:
    request = ChangeRequest.objects.select_for_update().get(pk=change_request_id)
    if request.status != "pending":
        raise ChangeRequestNotPending(f"Change request {request.pk} is already {request.status}.")
    return request


def _refuse_pending_parents(request: ChangeRequest) -> None:
    """A change that points at a service or location still waiting for approval names that request."""
    refs = {
        str(diff["new"])
        for diff_set in [request.changes, *(child["changes"] for child in request.children)]
        for name, diff in diff_set.items()
        if name in {"service", "location"} and diff.get("new")
    }
    refs -= {str(request.target_id), *(child["target_id"] for child in request.children)}
    if not refs:
        return
    parent = ChangeRequest.objects.filter(status="pending", action="create", target_id__in=list(refs)).first()
    if parent is not None:
        raise ChangeRequestConflict(f"Approve change request #{parent.pk} (the new {parent.target_type}) first.")


def _apply(
    *,
    target_type: str,
    target_id: Any,
    action: str,
    changes: dict[str, dict[str, Any]],
    organization_id: uuid.UUID,
    actor: str,
    reason: str,
) -> models.Model:
    """Apply one object's diff to the live directory, refusing a stale one (inside the caller's transaction)."""
    model, _ = TARGETS[target_type]
    if action == "create":
        if model._default_manager.filter(pk=target_id).exists():
            raise ChangeRequestConflict("This entry was already added.")
        instance = new_instance(target_type, organization_id, target_id)
    else:
        instance = model._default_manager.select_for_update().filter(pk=target_id).first()
        if instance is None:
            raise ChangeRequestConflict("The entry this change was made for no longer exists.")
        current = field_payload(instance, tuple(changes))
        stale = sorted(name for name, diff in changes.items() if current[name] != diff["old"])
        if stale:
            raise ChangeRequestConflict(
                f"The live entry changed since this request was made ({', '.join(stale)}); reject it and ask again."
            )
        if organization_id_of(instance) != organization_id:
            raise ValidationError("The entry belongs to another organization.")
    if action == "delete" and not isinstance(instance, Service):
        version_record(instance=instance, actor=actor, reason=f"{reason}:removed")
        instance.delete()
        return instance
    for name, diff in changes.items():
        _assign(instance, name, diff["new"])
    _service_slug(instance)
    instance.full_clean()
    if organization_id_of(instance) != organization_id:
        raise ValidationError("The change would move the entry to another organization.")
    _check_related_ownership(instance, organization_id)
    instance.save()
    version_record(instance=instance, actor=actor, reason=reason)
    return instance


class _ApplyCommon(TypedDict):
    """What every _apply call of one approval shares."""

    organization_id: uuid.UUID
    actor: str
    reason: str


def change_request_approve(*, change_request_id: int, reviewer: Any, note: str = "") -> ChangeRequest:
    """Apply a pending change (with any dependent new objects) to the live entry, all or nothing."""
    if not is_reviewer(reviewer):
        raise NotPermitted("Only supervisors and admins can approve directory changes.")
    with transaction.atomic(durable=not transaction.get_connection().in_atomic_block):
        request = _locked_pending(change_request_id)
        _refuse_pending_parents(request)
        reason = f"change_request:{request.pk}"
        common: _ApplyCommon = {
            "organization_id": request.organization_id,
            "actor": actor_label(reviewer),
            "reason": reason,
        }
        _apply(
            target_type=request.target_type,
            target_id=request.target_id,
            action=request.action,
            changes=request.changes,
            **common,
        )
        for child in request.children:
            _apply(
                target_type=child["target_type"],
                target_id=child["target_id"],
                action="create",
                changes=child["changes"],
                **common,
            )
        request.status = "approved"
        request.reviewed_by = reviewer
        request.reviewed_at = timezone.now()
        request.review_note = note[:300]
        request.save(update_fields=["status", "reviewed_by", "reviewed_at", "review_note"])
        audit_event_record(
            action="resources.change_request.approved",
            actor=actor_label(reviewer),
            object_type="change_request",
            object_id=request.pk,
            data={
                "target_type": request.target_type,
                "target_id": str(request.target_id),
                "action": request.action,
                "fields": request.fields_changed,
                "children": len(request.children),
            },
        )
        review_notify(request)
    return request


def change_request_reject(*, change_request_id: int, reviewer: Any, note: str = "") -> ChangeRequest:
    """Close a pending change without touching the live entry; the requester hears why."""
    if not is_reviewer(reviewer):
        raise NotPermitted("Only supervisors and admins can reject directory changes.")
    with transaction.atomic(durable=not transaction.get_connection().in_atomic_block):
        request = _locked_pending(change_request_id)
        request.status = "rejected"
        request.reviewed_by = reviewer
        request.reviewed_at = timezone.now()
        request.review_note = note[:300]
        request.save(update_fields=["status", "reviewed_by", "reviewed_at", "review_note"])
        audit_event_record(
            action="resources.change_request.rejected",
            actor=actor_label(reviewer),
            object_type="change_request",
            object_id=request.pk,
            data={"target_type": request.target_type, "target_id": str(request.target_id), "noted": bool(note)},
        )
        review_notify(request)
    return request


# --- readable diffs and notifications ----------------------------------------------------------

_ACTION_WORDS = {"update": "Change", "create": "Add", "delete": "Remove"}


def _target_field(model: type[models.Model], name: str) -> models.Field[Any, Any]:
    """A field a diff names: TARGETS lists forward fields only, never a reverse relation (get_field allows both)."""
    return cast("models.Field[Any, Any]", model._meta.get_field(name))


def _display(model: type[models.Model], name: str, value: Any) -> str:
    """A diff value as a reviewer reads it: related rows by name, choices by label, lists joined."""
    if value is None or value in ("", []):
        return "—"
    field = _target_field(model, name)
    if field.is_relation:
        # A forward relation's related_model is its model class once the app registry is ready.
        related_model = cast("type[models.Model]", field.related_model)
        related = related_model._default_manager.filter(pk=value).first()
        return str(related) if related is not None else f"(new {field.name})"
    if field.choices:
        return str(dict(field.flatchoices).get(value, value))
    if isinstance(value, list):
        return ", ".join(str(item) for item in value)
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def change_request_readable(request: ChangeRequest) -> list[dict[str, Any]]:
    """The request as rows a non-technical reviewer can read: what, which field, now, proposed."""
    parts = [(request.target_type, request.action, request.changes)]
    parts += [(child["target_type"], "create", child["changes"]) for child in request.children]
    rows = []
    for target_type, action, changes in parts:
        model, _ = TARGETS[target_type]
        what = f"{_ACTION_WORDS[action]} {model._meta.verbose_name}"
        for name, diff in changes.items():
            rows.append(
                {
                    "what": what,
                    "field": str(_target_field(model, name).verbose_name),
                    "old": _display(model, name, diff["old"]),
                    "new": _display(model, name, diff["new"]),
                }
            )
    return rows


def target_label(request: ChangeRequest) -> str:
    """What the request is about, named (the live object, or the proposed new one's name)."""
    model, _ = TARGETS[request.target_type]
    live = model._default_manager.filter(pk=request.target_id).first()
    if live is not None:
        return f"{model._meta.verbose_name} {live}"
    proposed = next((str(diff["new"]) for diff in request.changes.values() if diff.get("new")), "")
    return f"new {model._meta.verbose_name} {proposed}".strip()


def review_notify(request: ChangeRequest) -> None:
    """Email the requester (a feed's: the organization) the outcome and the reviewer's note, after commit."""
    user = request.requested_by
    address = (getattr(user, "email", "") or "") if user is not None else request.organization.email
    if not address:
        return
    outcome = "approved" if request.status == "approved" else "not approved"
    subject = f"Pathways: your change #{request.pk} was {outcome}"
    lines = [
        f"Your change request #{request.pk} for {target_label(request)} ({request.organization.name}) was {outcome}.",
        "",
        f"Reviewer's note: {request.review_note}" if request.review_note else "The reviewer left no note.",
        "",
        "What was asked:",
        *(f"- {row['what']}: {row['field']}: {row['old']} -> {row['new']}" for row in change_request_readable(request)),
    ]
    body = "\n".join(lines)

    def send() -> None:
        try:
            send_mail(subject, body, None, [address])
        except Exception:  # noqa: BLE001 — the review stands; a mail outage must not undo it
            logger.warning("resources: review notification for change request %s not sent", request.pk)

    transaction.on_commit(send)


# --- fixture loading ---------------------------------------------------------------------------

DEFAULT_FIXTURE = Path(__file__).resolve().parent / "fixtures" / "directory.json"


def _sync(
    instance: models.Model,
    values: dict[str, Any],
    *,
    update: bool,
    counts: dict[str, int],
    versions: list[EntryVersion],
) -> models.Model:
    """Create `instance` with `values` if missing; with update=True also overwrite an existing one.

    Parents are passed as model instances: they were just validated, so their existence queries are skipped.
    """
    model = type(instance)
    existing = model._default_manager.filter(pk=instance.pk).first()
    target = existing or instance
    if existing is not None and not update:
        counts["unchanged"] += 1
        return existing
    before = field_payload(target, tuple(values)) if existing is not None else None
    trusted = ["id"]
    for name, value in values.items():
        if isinstance(value, models.Model):
            setattr(target, name, value)
            trusted.append(name)
        else:
            _assign(target, name, value)
    target.full_clean(exclude=trusted)
    if existing is not None and field_payload(target, tuple(values)) == before:
        counts["unchanged"] += 1
        return existing
    target.save()
    names = tuple(field.name for field in target._meta.concrete_fields if field.name != "updated_at")
    versions.append(
        EntryVersion(
            entity_type=ENTITY_TYPES.get(model, model.__name__.lower()),
            entity_id=target.pk,
            snapshot=field_payload(target, names),
            actor="system",
            reason="load",
        )
    )
    counts["updated" if existing is not None else "created"] += 1
    return target


def directory_load(*, path: Path | None = None, update: bool = False) -> dict[str, int]:
    """Load the project fixture: create what is missing (and overwrite with update=True), all or nothing.

    Without `update`, a re-run never reverts reviewed partner changes: existing rows are left alone.
    """
    data = json.loads((path or DEFAULT_FIXTURE).read_text())
    counts = {"created": 0, "updated": 0, "unchanged": 0}
    versions: list[EntryVersion] = []
    with transaction.atomic(), match_index_deferred():
        taxonomies_ensure()
        terms = {code: attribute_term(code) for code in REENTRY_ATTRIBUTES}
        for entry in data["entries"]:
            slug = entry["slug"]
            try:
                entry_check(entry)
                _load_entry(entry, update=update, counts=counts, versions=versions, terms=terms)
            except ValidationError as exc:
                raise ValidationError(f"entry {slug!r}: {'; '.join(exc.messages)}") from exc
        EntryVersion.objects.bulk_create(versions)
        match_index_refresh([stable_id("service", entry["slug"]) for entry in data["entries"]])
        audit_event_record(action="resources.directory.loaded", actor="system", object_type="directory", data=counts)
    return counts


def entry_check(entry: dict[str, Any]) -> None:
    """Refuse a fixture row that cannot be traced or placed: no source URL, or a city outside its region.

    Phones, coordinates and codes are checked by the models' own validation during the load.
    """
    if not (entry.get("service") or {}).get("source_url"):
        raise ValidationError("it has no source URL (every directory entry names the page its facts come from).")
    for location in entry.get("locations", []):
        region, city = location.get("region"), location.get("city")
        if not city or region == "statewide":
            continue
        place = places.place_for_city(city)
        if place is not None and place.region != region:
            raise ValidationError(f"its location in {city!r} is in region {place.region!r}, not {region!r}.")


def _load_entry(
    entry: dict[str, Any],
    *,
    update: bool,
    counts: dict[str, int],
    versions: list[EntryVersion],
    terms: dict[str, TaxonomyTerm],
) -> None:
    slug = entry["slug"]
    sync = functools.partial(_sync, update=update, counts=counts, versions=versions)
    org_values = dict(entry["organization"])
    org_slug = org_values.pop("slug", slug)
    organization = sync(Organization(pk=stable_id("organization", org_slug)), {"slug": org_slug, **org_values})
    service_values = dict(entry["service"])
    documents = service_values.pop("required_documents", [])
    attributes = service_values.pop("attributes", {})
    service = sync(
        Service(pk=stable_id("service", slug)), {"organization": organization, "slug": slug, **service_values}
    )
    for index, location_values in enumerate(entry.get("locations", [])):
        location = sync(
            Location(pk=stable_id("location", slug, str(index))), {"organization": organization, **location_values}
        )
        sync(
            ServiceAtLocation(pk=stable_id("service_at_location", slug, str(index))),
            {"service": service, "location": location},
        )
    for index, phone_values in enumerate(entry.get("phones", [])):
        sync(
            Phone(pk=stable_id("phone", slug, str(index))),
            {"organization": organization, "service": service, "rank": index, **phone_values},
        )
    for index, schedule_values in enumerate(entry.get("schedules", [])):
        sync(Schedule(pk=stable_id("schedule", slug, str(index))), {"service": service, **schedule_values})
    for index, document in enumerate(documents):
        sync(RequiredDocument(pk=stable_id("document", slug, str(index))), {"service": service, **document})
    for code, value in attributes.items():
        if code not in terms:
            raise ValidationError(f"Unknown reentry attribute {code!r}.")
        sync(
            Attribute(pk=stable_id("attribute", slug, code)),
            {"service": service, "taxonomy_term": terms[code], "value": "true" if value else "false"},
        )


__all__ = [
    "NEED_CATEGORIES",
    "TARGETS",
    "actor_label",
    "change_diff",
    "change_request_approve",
    "change_request_propose",
    "change_request_readable",
    "change_request_reject",
    "change_request_submit",
    "directory_load",
    "entry_save",
    "is_reviewer",
    "partner_organization",
    "stable_id",
    "taxonomies_ensure",
]
