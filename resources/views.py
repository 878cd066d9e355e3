"""The partner page: a partner editor keeps their organization's entries current without the admin.

One screen per service (its text in English and Spanish, phones, hours, locations, documents, who
is taken); every change becomes a change request for staff review, and the first page lists those
requests with their outcome and the reviewer's note. Urgent alerts and closures go live at once
(resources.notices). Another organization's id is a 404, and nothing is stored for it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypedDict, cast

from django.contrib import messages
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import ValidationError
from django.db import transaction
from django.forms import Form
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone, translation
from django.utils.translation import gettext as _

from resources import places
from resources.errors import NotPermitted
from resources.hours import local_now
from resources.models import Attribute, ChangeRequest, Organization, Service, ServiceNotice
from resources.notices import notice_set
from resources.partner_forms import (
    AttributesForm,
    DocumentRows,
    HoursRows,
    LocationRows,
    NewServiceForm,
    NoticeForm,
    PhoneRows,
    ServiceForm,
)
from resources.services import (
    RETIRED_STATUS,
    NothingChanged,
    attribute_term,
    change_request_readable,
    change_request_submit,
    owned_instance,
    partner_organization,
    target_label,
)
from resources.taxonomy import DAY_CODES, REENTRY_ATTRIBUTES

LANGUAGES = ("en", "es")
SERVICE_FIELDS = tuple(ServiceForm.base_fields)
# Model field → the form field that shows its error.
_ERROR_FIELDS = {"byday": "days", "__all__": None}


def _language(request: HttpRequest) -> str:
    chosen = request.GET.get("lang")
    if chosen in LANGUAGES:
        request.session["partner_lang"] = chosen
    stored = request.session.get("partner_lang")
    if stored in LANGUAGES:
        return stored
    return "es" if getattr(request, "LANGUAGE_CODE", "en").startswith("es") else "en"


def partner_page(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Log in first; only a partner editor linked to an organization gets past; the page's language applies."""

    @functools.wraps(view)
    def wrapped(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path(), reverse("admin:login"))
        language = _language(request)
        with translation.override(language):
            organization = partner_organization(request.user)
            if organization is None:
                return render(request, "partners/not_partner.html", {"language": language}, status=403)
            return view(request, organization, *args, language=language, **kwargs)

    return wrapped


def _service_or_404(organization: Organization, service_id: Any) -> Service:
    try:
        # owned_instance is typed for any TARGETS model; target_type "service" gives a Service.
        service = cast(Service, owned_instance(target_type="service", target_id=service_id, organization=organization))
    except NotPermitted as exc:
        raise Http404(_("No such service.")) from exc
    if service.status == RETIRED_STATUS:
        raise Http404(_("No such service."))
    return service


# --- the first page ----------------------------------------------------------------------------


class _RequestRow(TypedDict):
    """One change request on the dashboard, with its label and readable lines."""

    request: ChangeRequest
    label: str
    lines: list[dict[str, Any]]


@partner_page
def dashboard(request: HttpRequest, organization: Organization, *, language: str) -> HttpResponse:
    services = list(Service.objects.filter(organization=organization).exclude(status=RETIRED_STATUS).order_by("name"))
    requests = list(ChangeRequest.objects.filter(organization=organization).select_related("reviewed_by")[:50])
    rows: list[_RequestRow] = [
        {"request": item, "label": target_label(item), "lines": change_request_readable(item)} for item in requests
    ]
    now = timezone.now()
    notices = (
        ServiceNotice.objects.filter(service__organization=organization, ends_at__gt=now)
        .exclude(review_status="undone")
        .select_related("service")
    )
    context = {
        "organization": organization,
        "services": services,
        "pending": [row for row in rows if row["request"].status == "pending"],
        "decided": [row for row in rows if row["request"].status != "pending"],
        "notices": notices,
        "language": language,
    }
    return render(request, "partners/dashboard.html", context)


# --- one service -------------------------------------------------------------------------------


def _initial(service: Service) -> dict[str, Any]:
    phones = [
        {"id": str(p.pk), "number": p.number, "extension": p.extension, "type": p.type, "description": p.description}
        for p in service.phones.order_by("rank", "id")
    ]
    hours = [
        {
            "id": str(s.pk),
            "days": [code for code in s.byday.split(",") if code],
            "opens_at": s.opens_at,
            "closes_at": s.closes_at,
            "description": s.description,
            "description_es": s.description_es,
        }
        for s in service.schedules.order_by("id")
    ]
    locations = [
        {
            "id": str(sal.location.pk),
            **{
                name: getattr(sal.location, name)
                for name in ("name", "address_1", "address_2", "city", "postal_code", "region")
            },
        }
        for sal in service.service_at_locations.select_related("location").order_by("id")
    ]
    documents = [
        {"id": str(d.pk), "document": d.document, "document_es": d.document_es}
        for d in service.required_documents.order_by("id")
    ]
    attributes = {
        attr.taxonomy_term.code: attr.value for attr in service.attributes.select_related("taxonomy_term").all()
    }
    return {
        "service": {name: getattr(service, name) for name in SERVICE_FIELDS},
        "phones": phones,
        "hours": hours,
        "locations": locations,
        "documents": documents,
        "attributes": attributes,
    }


def _forms(service: Service | None, data: Any = None) -> dict[str, Any]:
    initial = _initial(service) if service else {key: [] for key in ("phones", "hours", "locations", "documents")}
    return {
        "service": ServiceForm(data, initial=initial.get("service"), prefix="service"),
        "phones": PhoneRows(data, initial=initial["phones"], prefix="phones"),
        "hours": HoursRows(data, initial=initial["hours"], prefix="hours"),
        "locations": LocationRows(data, initial=initial["locations"], prefix="locations"),
        "documents": DocumentRows(data, initial=initial["documents"], prefix="documents"),
        "attributes": AttributesForm(data, initial=initial.get("attributes"), prefix="attributes"),
    }


class _Submitter:
    """Sends each row's proposal; a refused value is put on its field and nothing is kept (all or nothing)."""

    def __init__(self, user: Any) -> None:
        self.user = user
        self.sent = 0
        self.failed = False

    def __call__(self, form: Form, **kwargs: Any) -> None:
        try:
            with transaction.atomic():
                change_request_submit(user=self.user, **kwargs)
            self.sent += 1
        except NothingChanged:
            return
        except NotPermitted as exc:
            raise Http404(exc.message) from exc
        except ValidationError as exc:
            self.failed = True
            if hasattr(exc, "error_dict"):
                for field, errors in exc.message_dict.items():
                    name = _ERROR_FIELDS.get(field, field)
                    form.add_error(name if name in form.fields else None, errors)
            else:
                form.add_error(None, exc.messages)


def _region(form: Form, values: dict[str, Any], *, required: bool) -> bool:
    """Fill a location's region from its ZIP or city when the partner left it to us."""
    if values.get("region"):
        return True
    place = places.place_for_zip(values.get("postal_code") or "") if values.get("postal_code") else None
    place = place or (places.place_for_city(values["city"]) if values.get("city") else None)
    if place is not None:
        values["region"] = place.region
        return True
    values.pop("region", None)
    if required:
        form.add_error("region", _("We could not place this city in Texas: choose the region."))
        return False
    return True


def _submit_rows(submit: _Submitter, service: Service, forms: dict[str, Any]) -> None:  # noqa: PLR0912
    sid = str(service.pk)
    for form in forms["phones"]:
        if form.blank():
            continue
        data = form.cleaned_data
        values = {name: data.get(name, "") for name in ("number", "extension", "type", "description")}
        if data.get("id"):
            action = "delete" if data.get("remove") else "update"
            submit(form, target_type="phone", target_id=data["id"], action=action, changes=values)
        elif not data.get("remove"):
            rank = service.phones.count()
            submit(form, target_type="phone", action="create", changes={"service": sid, "rank": rank, **values})
    for form in forms["hours"]:
        if form.blank():
            continue
        data, values = form.cleaned_data, form.values()
        if data.get("id"):
            action = "delete" if data.get("remove") else "update"
            submit(form, target_type="schedule", target_id=data["id"], action=action, changes=values)
        elif not data.get("remove"):
            submit(form, target_type="schedule", action="create", changes={"service": sid, **values})
    links = {str(sal.location_id): sal.pk for sal in service.service_at_locations.all()}
    for form in forms["locations"]:
        if form.blank():
            continue
        data = form.cleaned_data
        values = {
            name: data.get(name, "") for name in ("name", "address_1", "address_2", "city", "postal_code", "region")
        }
        if data.get("id") and data.get("remove"):
            if data["id"] not in links:
                raise Http404(_("No such location."))
            submit(form, target_type="service_at_location", target_id=links[data["id"]], action="delete")
        elif data.get("id"):
            _region(form, values, required=False)
            submit(form, target_type="location", target_id=data["id"], action="update", changes=values)
        elif not data.get("remove") and _region(form, values, required=True):
            submit(
                form,
                target_type="location",
                action="create",
                changes=values,
                children=[("service_at_location", {"service": sid, "location": "$parent"})],
            )
        else:
            submit.failed = submit.failed or not data.get("remove")
    for form in forms["documents"]:
        if form.blank():
            continue
        data = form.cleaned_data
        values = {"document": data.get("document", ""), "document_es": data.get("document_es", "")}
        if data.get("id"):
            action = "delete" if data.get("remove") else "update"
            submit(form, target_type="document", target_id=data["id"], action=action, changes=values)
        elif not data.get("remove"):
            submit(form, target_type="document", action="create", changes={"service": sid, **values})
    _submit_attributes(submit, service, forms["attributes"])


def _submit_attributes(submit: _Submitter, service: Service, form: AttributesForm) -> None:
    live = {
        attr.taxonomy_term.code: attr
        for attr in Attribute.objects.filter(service=service).select_related("taxonomy_term")
    }
    for code in REENTRY_ATTRIBUTES:
        wanted, current = form.cleaned_data.get(code) or "", live.get(code)
        if current is not None and not wanted:
            submit(form, target_type="attribute", target_id=current.pk, action="delete")
        elif current is not None and wanted != current.value:
            submit(form, target_type="attribute", target_id=current.pk, changes={"value": wanted})
        elif current is None and wanted:
            term = attribute_term(code)
            changes = {"service": str(service.pk), "taxonomy_term": str(term.pk), "value": wanted}
            submit(form, target_type="attribute", action="create", changes=changes)


@partner_page
def service_edit(request: HttpRequest, organization: Organization, service_id: str, *, language: str) -> HttpResponse:
    service = _service_or_404(organization, service_id)
    forms = _forms(service, request.POST if request.method == "POST" else None)
    if request.method == "POST" and all(form.is_valid() for form in forms.values()):
        submit = _Submitter(request.user)
        with transaction.atomic():
            changes = {name: forms["service"].cleaned_data.get(name, "") for name in SERVICE_FIELDS}
            submit(forms["service"], target_type="service", target_id=service.pk, changes=changes)
            _submit_rows(submit, service, forms)
            if submit.failed:
                transaction.set_rollback(True)
        if not submit.failed:
            if submit.sent:
                messages.success(
                    request,
                    _("%(count)d change(s) sent for review. People see them once staff approve.")
                    % {"count": submit.sent},
                )
            else:
                messages.info(request, _("Nothing changed."))
            return redirect("partners:dashboard")
        messages.error(request, _("Nothing was sent: please fix the fields marked below."))
    context = {
        "organization": organization,
        "service": service,
        "forms": forms,
        "language": language,
        "days": DAY_CODES,
    }
    return render(request, "partners/service.html", context)


@partner_page
def service_new(request: HttpRequest, organization: Organization, *, language: str) -> HttpResponse:
    form = NewServiceForm(request.POST or None, prefix="service")
    phone = PhoneRows(request.POST or None, prefix="phones")
    location = LocationRows(request.POST or None, prefix="locations")
    if request.method == "POST" and form.is_valid() and phone.is_valid() and location.is_valid():
        submit = _Submitter(request.user)
        values = {name: form.cleaned_data.get(name, "") for name in (*SERVICE_FIELDS, "categories")}
        children: list[tuple[str, dict[str, Any]]] = []
        for rank, phone_row in enumerate(row for row in phone if not row.blank()):
            data = phone_row.cleaned_data
            children.append(
                (
                    "phone",
                    {
                        "service": "$parent",
                        "rank": rank,
                        **{n: data.get(n, "") for n in ("number", "extension", "type", "description")},
                    },
                )
            )
        placed = True
        for location_row in location:
            if location_row.blank():
                continue
            data = location_row.cleaned_data
            values_l = {n: data.get(n, "") for n in ("name", "address_1", "address_2", "city", "postal_code", "region")}
            placed = _region(location_row, values_l, required=True) and placed
            children += [
                ("location", values_l),
                ("service_at_location", {"service": "$parent", "location": "$previous"}),
            ]
        if placed:
            with transaction.atomic():
                submit(form, target_type="service", action="create", changes=values, children=children)
            if not submit.failed:
                messages.success(request, _("The new service was sent for review."))
                return redirect("partners:dashboard")
        messages.error(request, _("Nothing was sent: please fix the fields marked below."))
    context = {"organization": organization, "form": form, "phones": phone, "locations": location, "language": language}
    return render(request, "partners/service_new.html", context)


@partner_page
def service_remove(request: HttpRequest, organization: Organization, service_id: str, *, language: str) -> HttpResponse:
    service = _service_or_404(organization, service_id)
    if request.method == "POST":
        try:
            change_request_submit(user=request.user, target_type="service", target_id=service.pk, action="delete")
            messages.success(request, _("Removal of %(name)s sent for review.") % {"name": service.name})
        except ValidationError as exc:
            messages.error(request, "; ".join(exc.messages))
        return redirect("partners:dashboard")
    return render(
        request,
        "partners/service_remove.html",
        {"organization": organization, "service": service, "language": language},
    )


@partner_page
def service_notice(request: HttpRequest, organization: Organization, service_id: str, *, language: str) -> HttpResponse:
    service = _service_or_404(organization, service_id)
    form = NoticeForm(request.POST or None, initial={"ends_on": local_now().date()})
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            notice_set(
                user=request.user,
                service_id=service.pk,
                kind=data["kind"],
                text=data["text"],
                text_es=data.get("text_es", ""),
                ends_on=data["ends_on"],
            )
        except ValidationError as exc:
            for field, errors in exc.message_dict.items():
                form.add_error(field if field in form.fields else None, errors)
        else:
            messages.success(request, _("The notice is live now. Staff will check it."))
            return redirect("partners:dashboard")
    context = {"organization": organization, "service": service, "form": form, "language": language}
    return render(request, "partners/notice.html", context)
