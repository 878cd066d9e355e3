"""The HSDS 3.0-aligned directory, plus the review machinery around it.

Live tables (Organization, Service, Location, ServiceAtLocation, Phone, Schedule, RequiredDocument,
Attribute, Taxonomy, TaxonomyTerm) are only written by resources.services; partner edits and feed
differences become ChangeRequests first. Every applied change leaves an EntryVersion snapshot.
Primary keys are UUIDs so they are the HSDS ids as well.
"""

from __future__ import annotations

import uuid
from typing import Any

from django.conf import settings
from django.contrib.postgres.fields import ArrayField, IntegerRangeField
from django.contrib.postgres.indexes import GinIndex
from django.core.exceptions import ValidationError
from django.db import models
from django.db.models.functions import Lower
from psycopg.types.range import Range

from resources.taxonomy import GEO_PRECISIONS, REGIONS, STATUSES
from resources.validators import (
    normalize_phone,
    validate_byday,
    validate_categories,
    validate_region,
    validate_texas_point,
    validate_texas_zip,
)

REGION_CHOICES = [(code, code.replace("_", " ").title()) for code in REGIONS]
STATUS_CHOICES = [(code, code.replace("_", " ")) for code in STATUSES]
GEO_CHOICES = [(code, code.replace("_", " ")) for code in GEO_PRECISIONS]


class Taxonomy(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    name = models.CharField(max_length=120, unique=True)
    description = models.TextField()
    uri = models.URLField(blank=True)
    version = models.CharField(max_length=40, blank=True)

    class Meta:
        verbose_name_plural = "taxonomies"

    def __str__(self) -> str:
        return self.name


class TaxonomyTerm(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    taxonomy = models.ForeignKey(Taxonomy, on_delete=models.CASCADE, related_name="terms")
    code = models.CharField(max_length=64)
    name = models.CharField(max_length=200)
    description = models.TextField()
    parent = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="children")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["taxonomy", "code"], name="resources_term_code_unique")]

    def __str__(self) -> str:
        return f"{self.taxonomy.name}:{self.code}"


class Organization(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    url = models.URLField(blank=True)
    email = models.EmailField(blank=True)
    feed_url = models.URLField(
        blank=True, help_text="HSDS 3.0 JSON feed (https) checked weekly; differences go to review."
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        constraints = [
            # Two "Goodwill" rows with different case would confuse partners and staff alike.
            models.UniqueConstraint(Lower("name"), name="resources_org_name_ci_unique"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.name:
            clash = Organization.objects.filter(name__iexact=self.name.strip()).exclude(pk=self.pk)
            if clash.exists():
                raise ValidationError({"name": f"An organization named {self.name!r} already exists."})
        if self.feed_url and not self.feed_url.lower().startswith("https://"):
            raise ValidationError({"feed_url": "A partner feed must be served over https."})


class Service(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="services")
    slug = models.SlugField(max_length=80, unique=True)
    name = models.CharField(max_length=200)
    description = models.TextField(blank=True)
    description_es = models.TextField(blank=True, help_text="The card's one-line description in Spanish.")
    url = models.URLField(blank=True)
    email = models.EmailField(blank=True)
    categories = ArrayField(models.CharField(max_length=32), validators=[validate_categories])
    languages = ArrayField(models.CharField(max_length=16), default=list, blank=True)
    eligibility = models.TextField(blank=True)
    eligibility_es = models.TextField(blank=True, help_text="Who is eligible, in Spanish.")
    fees = models.TextField(blank=True)
    application_process = models.TextField(blank=True)
    status = models.CharField(max_length=20, choices=STATUS_CHOICES, default="active")
    alert = models.CharField(max_length=300, blank=True, help_text="Short notice shown with the entry.")
    alert_es = models.CharField(max_length=300, blank=True, help_text="The notice in Spanish.")
    last_verified_at = models.DateField(null=True, blank=True, help_text="When a person last confirmed the details.")
    is_crisis_line = models.BooleanField(default=False)
    is_statewide = models.BooleanField(default=False, help_text="Serves all of Texas (offered as the fallback).")
    source_url = models.URLField(blank=True)
    source_verified = models.BooleanField(
        default=False, help_text="Name plus phone or address seen in a public source."
    )
    caveat = models.TextField(blank=True)
    # Derived, kept in step by resources.matchindex (signals and loaders): what match() filters and
    # ranks on, so a match is one index lookup instead of joins over locations and schedules.
    match_keys = ArrayField(
        models.CharField(max_length=64),
        default=list,
        blank=True,
        editable=False,
        help_text='"<category>@<region>" for each category and each region served.',
    )
    open_ranges = ArrayField(
        IntegerRangeField(),
        default=list,
        blank=True,
        editable=False,
        help_text="Opening hours as minute-of-week ranges (America/Chicago).",
    )
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        ordering = ["name"]
        indexes = [
            GinIndex(fields=["categories"], name="resources_service_cat_gin"),
            GinIndex(fields=["match_keys"], name="resources_service_match_gin"),
            models.Index(fields=["status", "is_statewide"], name="resources_service_status_idx"),
        ]

    def __str__(self) -> str:
        return self.name

    def clean(self) -> None:
        if self.languages:
            self.languages = [code.strip().lower() for code in self.languages if code.strip()]


class Location(models.Model):
    LOCATION_TYPES = [("physical", "physical"), ("postal", "postal"), ("virtual", "virtual")]

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="locations")
    name = models.CharField(max_length=200, blank=True)
    location_type = models.CharField(max_length=10, choices=LOCATION_TYPES, default="physical")
    address_1 = models.CharField(max_length=200, blank=True)
    address_2 = models.CharField(max_length=200, blank=True)
    city = models.CharField(max_length=100, blank=True)
    state_province = models.CharField(max_length=2, default="TX")
    postal_code = models.CharField(max_length=10, blank=True, validators=[validate_texas_zip])
    region = models.CharField(max_length=32, choices=REGION_CHOICES, validators=[validate_region])
    latitude = models.FloatField(null=True, blank=True)
    longitude = models.FloatField(null=True, blank=True)
    geo_precision = models.CharField(max_length=16, choices=GEO_CHOICES, default="none")
    updated_at = models.DateTimeField(auto_now=True)

    class Meta:
        indexes = [models.Index(fields=["region"], name="resources_location_region_idx")]

    def __str__(self) -> str:
        return ", ".join(part for part in (self.name or self.address_1, self.city) if part) or str(self.pk)

    def clean(self) -> None:
        if self.state_province and self.state_province != "TX":
            raise ValidationError({"state_province": "Pathways lists Texas locations only."})
        try:
            validate_texas_point(self.latitude, self.longitude)
        except ValidationError as exc:
            raise ValidationError({"latitude": exc.messages}) from exc
        if self.latitude is None and self.geo_precision != "none":
            raise ValidationError({"geo_precision": "A location without coordinates has precision 'none'."})
        if self.latitude is not None and self.geo_precision == "none":
            raise ValidationError({"geo_precision": "Say how precise the coordinates are."})


class ServiceAtLocation(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    service = models.ForeignKey(Service, on_delete=models.CASCADE, related_name="service_at_locations")
    location = models.ForeignKey(Location, on_delete=models.CASCADE, related_name="service_at_locations")
    description = models.TextField(blank=True)

    class Meta:
        constraints = [models.UniqueConstraint(fields=["service", "location"], name="resources_sal_unique")]

    def __str__(self) -> str:
        return f"{self.service} @ {self.location}"

    def clean(self) -> None:
        if self.service_id and self.location_id and self.service.organization_id != self.location.organization_id:
            raise ValidationError("A service can only be offered at its own organization's locations.")


class Phone(models.Model):
    PHONE_TYPES = [("voice", "voice"), ("text", "text"), ("fax", "fax"), ("textphone", "textphone (TTY)")]

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    organization = models.ForeignKey(Organization, on_delete=models.PROTECT, related_name="phones")
    service = models.ForeignKey(Service, null=True, blank=True, on_delete=models.CASCADE, related_name="phones")
    location = models.ForeignKey(Location, null=True, blank=True, on_delete=models.CASCADE, related_name="phones")
    number = models.CharField(max_length=20, help_text="E.164 (+17139707000), or 211 / 988, or an SMS short code.")
    extension = models.CharField(max_length=10, blank=True)
    type = models.CharField(max_length=10, choices=PHONE_TYPES, default="voice")
    description = models.CharField(max_length=200, blank=True)
    languages = ArrayField(models.CharField(max_length=16), default=list, blank=True)
    rank = models.PositiveSmallIntegerField(default=0, help_text="Lower first: the card shows the first voice number.")

    class Meta:
        ordering = ["rank", "number"]

    def __str__(self) -> str:
        return self.number

    def clean(self) -> None:
        try:
            self.number = normalize_phone(self.number, phone_type=self.type)
        except ValidationError as exc:
            raise ValidationError({"number": exc.messages}) from exc
        if self.extension and not self.extension.isdigit():
            raise ValidationError({"extension": "Digits only."})
        for field in ("service", "location"):
            related = getattr(self, field) if getattr(self, f"{field}_id") else None
            if related is not None and self.organization_id and related.organization_id != self.organization_id:
                raise ValidationError({field: "Belongs to another organization."})


class Schedule(models.Model):
    """HSDS weekly opening hours: `byday` days from `opens_at` to `closes_at` (America/Chicago).

    A row with only `description` records hours text that could not be made structured; such a
    service has unknown open-now state. closes_at 23:59 means "to midnight"; closes_at < opens_at
    runs past midnight into the next day.
    """

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    service = models.ForeignKey(Service, on_delete=models.CASCADE, related_name="schedules")
    location = models.ForeignKey(Location, null=True, blank=True, on_delete=models.CASCADE, related_name="schedules")
    freq = models.CharField(max_length=10, default="WEEKLY", choices=[("WEEKLY", "weekly")])
    byday = models.CharField(max_length=40, blank=True, validators=[validate_byday])
    opens_at = models.TimeField(null=True, blank=True)
    closes_at = models.TimeField(null=True, blank=True)
    description = models.CharField(max_length=300, blank=True)
    description_es = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        if self.byday and self.opens_at:
            return f"{self.byday} {self.opens_at:%H:%M}-{self.closes_at:%H:%M}" if self.closes_at else self.byday
        return self.description or "hours"

    def clean(self) -> None:
        structured = [bool(self.byday), self.opens_at is not None, self.closes_at is not None]
        if any(structured) and not all(structured):
            raise ValidationError("Give days, opening and closing time together (or only a description).")
        if not any(structured) and not self.description:
            raise ValidationError("A schedule needs hours or a description.")
        if (
            self.location is not None
            and self.service_id
            and self.location.organization_id != self.service.organization_id
        ):
            raise ValidationError({"location": "Belongs to another organization."})


class RequiredDocument(models.Model):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    service = models.ForeignKey(Service, on_delete=models.CASCADE, related_name="required_documents")
    document = models.CharField(max_length=200)
    document_es = models.CharField(max_length=200, blank=True)
    uri = models.URLField(blank=True)

    def __str__(self) -> str:
        return self.document


class Attribute(models.Model):
    """HSDS attribute: a reentry taxonomy term applied to a service with value "true" or "false"."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    service = models.ForeignKey(Service, on_delete=models.CASCADE, related_name="attributes")
    taxonomy_term = models.ForeignKey(TaxonomyTerm, on_delete=models.PROTECT, related_name="attributes")
    value = models.CharField(max_length=10, choices=[("true", "yes"), ("false", "no")], default="true")

    class Meta:
        constraints = [models.UniqueConstraint(fields=["service", "taxonomy_term"], name="resources_attr_unique")]
        indexes = [models.Index(fields=["taxonomy_term", "value"], name="resources_attr_term_idx")]

    def __str__(self) -> str:
        return f"{self.taxonomy_term.code}={self.value}"


class PartnerMembership(models.Model):
    """Links a partner editor to the one organization whose entries they may propose changes to."""

    user = models.OneToOneField(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="partner_membership")
    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="partner_memberships")
    created_at = models.DateTimeField(auto_now_add=True)

    def __str__(self) -> str:
        return f"{self.user} → {self.organization}"


class FeedRefresh(models.Model):
    STATUS = [("running", "running"), ("ok", "ok"), ("failed", "failed")]

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="feed_refreshes")
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=10, choices=STATUS, default="running")
    error_code = models.CharField(max_length=40, blank=True)
    error_message = models.CharField(max_length=300, blank=True)
    bytes_read = models.PositiveIntegerField(default=0)
    errors = models.JSONField(default=list, blank=True, help_text="The first validation errors of a failed feed.")
    change_requests_created = models.PositiveIntegerField(default=0)
    summary = models.JSONField(default=dict, blank=True, help_text="Counts: services matched, unmatched, unchanged.")

    class Meta:
        ordering = ["-started_at"]

    def __str__(self) -> str:
        return f"{self.organization} {self.started_at:%Y-%m-%d} {self.status}"


class ChangeRequest(models.Model):
    """A proposed change to one live object, with a field-level diff {field: {"old": …, "new": …}}.

    For action "create", `target_id` is the id the new object will get and every "old" is None;
    `children` holds dependent objects created with it in the same approval (a new service's
    phones, hours and locations; a new location's link to its service), each
    {"target_type", "target_id", "changes"}. For action "delete", every "new" is None (a service is
    not deleted but marked defunct, so its history and old cards stay readable).
    """

    STATUS = [("pending", "pending"), ("approved", "approved"), ("rejected", "rejected")]
    ACTIONS = [("update", "update"), ("create", "create"), ("delete", "delete")]
    SOURCES = [("partner", "partner"), ("feed", "feed")]
    TARGETS = [
        ("organization", "organization"),
        ("service", "service"),
        ("location", "location"),
        ("phone", "phone"),
        ("schedule", "schedule"),
        ("document", "required document"),
        ("attribute", "attribute"),
        ("service_at_location", "service at location"),
    ]

    organization = models.ForeignKey(Organization, on_delete=models.CASCADE, related_name="change_requests")
    target_type = models.CharField(max_length=20, choices=TARGETS)
    target_id = models.UUIDField()
    action = models.CharField(max_length=10, choices=ACTIONS, default="update")
    changes = models.JSONField()
    children = models.JSONField(default=list, blank=True)
    status = models.CharField(max_length=10, choices=STATUS, default="pending", db_index=True)
    source = models.CharField(max_length=10, choices=SOURCES)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    feed_refresh = models.ForeignKey(
        FeedRefresh, null=True, blank=True, on_delete=models.SET_NULL, related_name="change_requests"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["target_type", "target_id", "status"], name="resources_cr_target_idx")]

    def __str__(self) -> str:
        return f"{self.action} {self.target_type} {self.target_id} ({self.status})"

    @property
    def fields_changed(self) -> list[str]:
        return sorted(self.changes)


class ServiceNotice(models.Model):
    """An urgent alert or temporary closure a partner sets themselves: live at once, reviewed after.

    While live (not undone, starts_at <= now < ends_at) the cards carry its text and a closure keeps
    the service out of matching. A supervisor confirms it or undoes it; every step is audited.
    """

    KINDS = [("alert", "alert"), ("closure", "temporary closure")]
    REVIEW = [("unreviewed", "unreviewed"), ("confirmed", "confirmed"), ("undone", "undone")]

    service = models.ForeignKey(Service, on_delete=models.CASCADE, related_name="notices")
    kind = models.CharField(max_length=10, choices=KINDS)
    text = models.CharField(max_length=300)
    text_es = models.CharField(max_length=300, blank=True)
    starts_at = models.DateTimeField()
    ends_at = models.DateTimeField(help_text="The notice stops showing (and a closed service returns) at this moment.")
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    created_at = models.DateTimeField(auto_now_add=True)
    review_status = models.CharField(max_length=10, choices=REVIEW, default="unreviewed", db_index=True)
    reviewed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL, related_name="+"
    )
    reviewed_at = models.DateTimeField(null=True, blank=True)
    review_note = models.CharField(max_length=300, blank=True)

    class Meta:
        ordering = ["-created_at"]
        indexes = [models.Index(fields=["service", "kind", "ends_at"], name="resources_notice_live_idx")]

    def __str__(self) -> str:
        return f"{self.kind} {self.service} until {self.ends_at:%Y-%m-%d %H:%M}"


class EntryVersion(models.Model):
    """Snapshot of a live object after each change: the directory's history."""

    entity_type = models.CharField(max_length=20)
    entity_id = models.UUIDField()
    snapshot = models.JSONField()
    actor = models.CharField(max_length=150)
    reason = models.CharField(max_length=80)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["entity_type", "entity_id", "id"]
        indexes = [models.Index(fields=["entity_type", "entity_id"], name="resources_version_entity_idx")]

    def __str__(self) -> str:
        return f"{self.entity_type}:{self.entity_id} {self.reason}"


def field_payload(instance: models.Model, names: tuple[str, ...]) -> dict[str, Any]:
    """JSON-able values of `names` (FKs by id, dates/times as ISO strings, UUIDs as strings)."""
    out: dict[str, Any] = {}
    for name in names:
        field = instance._meta.get_field(name)
        if not isinstance(field, models.Field):
            raise TypeError(f"{name} is the reverse side of a relation, not a field of the payload")
        value = getattr(instance, field.attname)
        if isinstance(value, list):
            # The derived opening hours are a list of ranges: kept as [lower, upper] pairs.
            out[name] = [[v.lower, v.upper] if isinstance(v, Range) else v for v in value]
            continue
        out[name] = (
            field.value_to_string(instance)
            if value is not None and not isinstance(value, (str, int, float, bool))
            else value
        )
    return out
