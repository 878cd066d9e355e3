"""The forms of the partner page: one service with its phones, hours, locations, documents and
attributes on one screen, in plain words (days as checkboxes, times as clocks, no ids or codes).

The forms only collect text; every value is validated by resources.services when it becomes a
change request, and those errors are shown on the field they belong to.
"""

from __future__ import annotations

from typing import Any

from django import forms
from django.utils.translation import gettext_lazy as _

from resources.models import Phone, ServiceNotice
from resources.taxonomy import DAY_CODES, NEED_CATEGORIES, NEED_CATEGORY_LABELS, REENTRY_ATTRIBUTES, REGIONS

DAY_LABELS = {
    "MO": _("Mon"),
    "TU": _("Tue"),
    "WE": _("Wed"),
    "TH": _("Thu"),
    "FR": _("Fri"),
    "SA": _("Sat"),
    "SU": _("Sun"),
}
REGION_CHOICES = [("", _("Work it out from the city or ZIP"))] + [
    (code, code.replace("_", " ").title()) for code in REGIONS
]
TEXTAREA = forms.Textarea(attrs={"rows": 3})


class ServiceForm(forms.Form):
    """The service's own text, each with its Spanish next to it."""

    name = forms.CharField(label=_("Name"), max_length=200)
    description = forms.CharField(label=_("What it does"), required=False, widget=TEXTAREA)
    description_es = forms.CharField(label=_("What it does, in Spanish"), required=False, widget=TEXTAREA)
    eligibility = forms.CharField(label=_("Who can get it"), required=False, widget=TEXTAREA)
    eligibility_es = forms.CharField(label=_("Who can get it, in Spanish"), required=False, widget=TEXTAREA)
    fees = forms.CharField(label=_("Cost"), required=False)
    application_process = forms.CharField(label=_("How to apply"), required=False, widget=TEXTAREA)
    url = forms.CharField(label=_("Web page"), required=False, max_length=200)
    email = forms.CharField(label=_("Email"), required=False, max_length=254)
    alert = forms.CharField(label=_("Standing note shown with the entry"), required=False, max_length=300)
    alert_es = forms.CharField(label=_("Standing note, in Spanish"), required=False, max_length=300)


class NewServiceForm(ServiceForm):
    categories = forms.MultipleChoiceField(
        label=_("What people come for"),
        choices=[(code, NEED_CATEGORY_LABELS.get(code, code)) for code in NEED_CATEGORIES],
        widget=forms.CheckboxSelectMultiple,
    )


class RowForm(forms.Form):
    """One existing row (with its id) or a blank row for a new one; "remove" proposes its removal."""

    id = forms.CharField(required=False, widget=forms.HiddenInput)
    remove = forms.BooleanField(label=_("Remove"), required=False)

    def blank(self) -> bool:
        data = self.cleaned_data
        return not data.get("id") and not any(value for name, value in data.items() if name not in {"id", "remove"})


class PhoneRow(RowForm):
    number = forms.CharField(label=_("Number"), required=False, max_length=30)
    extension = forms.CharField(label=_("Extension"), required=False, max_length=10)
    type = forms.ChoiceField(label=_("Kind"), choices=Phone.PHONE_TYPES, initial="voice")
    description = forms.CharField(label=_("Note"), required=False, max_length=200)

    def blank(self) -> bool:
        return not self.cleaned_data.get("id") and not self.cleaned_data.get("number")


class HoursRow(RowForm):
    days = forms.MultipleChoiceField(
        label=_("Days"), required=False, choices=list(DAY_LABELS.items()), widget=forms.CheckboxSelectMultiple
    )
    opens_at = forms.TimeField(label=_("Opens"), required=False, widget=forms.TimeInput(attrs={"type": "time"}))
    closes_at = forms.TimeField(label=_("Closes"), required=False, widget=forms.TimeInput(attrs={"type": "time"}))
    description = forms.CharField(label=_("Hours note"), required=False, max_length=300)
    description_es = forms.CharField(label=_("Hours note, in Spanish"), required=False, max_length=300)

    def values(self) -> dict[str, Any]:
        data = self.cleaned_data
        days = [code for code in DAY_CODES if code in (data.get("days") or [])]
        return {
            "byday": ",".join(days),
            "opens_at": data["opens_at"].strftime("%H:%M") if data.get("opens_at") else None,
            "closes_at": data["closes_at"].strftime("%H:%M") if data.get("closes_at") else None,
            "description": data.get("description", ""),
            "description_es": data.get("description_es", ""),
        }


class LocationRow(RowForm):
    name = forms.CharField(label=_("Place name"), required=False, max_length=200)
    address_1 = forms.CharField(label=_("Street address"), required=False, max_length=200)
    address_2 = forms.CharField(label=_("Suite or floor"), required=False, max_length=200)
    city = forms.CharField(label=_("City"), required=False, max_length=100)
    postal_code = forms.CharField(label=_("ZIP"), required=False, max_length=10)
    region = forms.ChoiceField(label=_("Region"), required=False, choices=REGION_CHOICES)
    remove = forms.BooleanField(label=_("No longer offered here"), required=False)


class DocumentRow(RowForm):
    document = forms.CharField(label=_("Document to bring"), required=False, max_length=200)
    document_es = forms.CharField(label=_("In Spanish"), required=False, max_length=200)

    def blank(self) -> bool:
        return not self.cleaned_data.get("id") and not self.cleaned_data.get("document")


# The reentry attributes in the page's words (codes and their English live in resources.taxonomy).
ATTRIBUTE_LABELS = {
    "accepts_records": _("Accepts people with criminal records"),
    "sex_offense_restrictions": _("Has restrictions for people with sex-offense convictions"),
    "parole_approved": _("Approved by parole for residence or programs"),
    "id_not_required": _("No photo ID needed to get help"),
    "walk_in": _("Walk-ins welcome"),
}
ATTRIBUTE_CHOICES = [("", _("Not stated")), ("true", _("Yes")), ("false", _("No"))]


class AttributesForm(forms.Form):
    """Who is taken: one yes / no / not stated per reentry attribute."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for code, label in REENTRY_ATTRIBUTES.items():
            self.fields[code] = forms.ChoiceField(
                label=ATTRIBUTE_LABELS.get(code, label), required=False, choices=ATTRIBUTE_CHOICES
            )


class NoticeForm(forms.Form):
    kind = forms.ChoiceField(
        label=_("What is happening"),
        choices=[("closure", _("Closed for a while")), ("alert", _("Open, but people should know something"))],
        widget=forms.RadioSelect,
        initial="closure",
    )
    text = forms.CharField(label=_("What to tell people"), max_length=300)
    text_es = forms.CharField(label=_("The same, in Spanish"), required=False, max_length=300)
    ends_on = forms.DateField(label=_("Last day"), widget=forms.DateInput(attrs={"type": "date"}))


NOTICE_KINDS = dict(ServiceNotice.KINDS)

PhoneRows = forms.formset_factory(PhoneRow, extra=1)
HoursRows = forms.formset_factory(HoursRow, extra=1)
LocationRows = forms.formset_factory(LocationRow, extra=1)
DocumentRows = forms.formset_factory(DocumentRow, extra=1)
