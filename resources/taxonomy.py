"""The fixed vocabularies of the directory: need categories, regions, reentry attributes, statuses.

Need categories and regions are the project's (the `vocab` package, shared with the corpus and the
workflow; docs/architecture.md, "Taxonomy"); the rest is the directory's own. Every write validates
against this module.
"""

from __future__ import annotations

import uuid
from typing import Final

from vocab import NEED_CATEGORIES, REGIONS

__all__ = [
    "ATTRIBUTES_TAXONOMY",
    "CORE_NEEDS",
    "COVERAGE_REGIONS",
    "DAY_CODES",
    "GEO_PRECISIONS",
    "METRO_REGIONS",
    "METRO_TARGET",
    "NAMESPACE",
    "NEEDS_TAXONOMY",
    "NEED_CATEGORIES",
    "NEED_CATEGORY_LABELS",
    "REENTRY_ATTRIBUTES",
    "REGIONAL_TARGET",
    "REGIONS",
    "STALE_AFTER_DAYS",
    "STATUSES",
    "STATUS_ACTIVE",
    "STATUS_FROM_HSDS",
    "STATUS_TO_HSDS",
    "TEXAS_LAT",
    "TEXAS_LON",
    "stable_id",
]

NEED_CATEGORY_LABELS: Final[dict[str, str]] = {
    "housing": "Housing and shelter",
    "id_documents": "ID and documents",
    "employment": "Jobs and employment",
    "legal_record": "Criminal record (sealing, expunction)",
    "voting": "Voting rights and registration",
    "supervision": "Parole and probation",
    "benefits": "Public benefits",
    "food": "Food",
    "health": "Health, mental health and substance use",
    "transportation": "Transportation",
    "family": "Family and child support",
    "education": "Education and training",
    "legal_aid": "Civil legal aid",
    "other": "Other help",
}

# The coverage matrix (issue #25): the places a person needs first, in every named region. Metro
# regions should list at least three verified local entries per need, the others at least one.
CORE_NEEDS: Final[tuple[str, ...]] = (
    "id_documents",
    "supervision",
    "food",
    "housing",
    "employment",
    "health",
    "legal_aid",
    "benefits",
)
COVERAGE_REGIONS: Final[tuple[str, ...]] = tuple(region for region in REGIONS if region not in {"statewide", "other"})
METRO_REGIONS: Final[frozenset[str]] = frozenset({"houston", "dallas_fort_worth", "austin", "san_antonio", "el_paso"})
METRO_TARGET: Final = 3
REGIONAL_TARGET: Final = 1
# A check older than this is reported as stale (the dashboard and `resources coverage`).
STALE_AFTER_DAYS: Final = 180

# HSDS attributes describing who a service takes; only set where a source says so (absent = unknown).
REENTRY_ATTRIBUTES: Final[dict[str, str]] = {
    "accepts_records": "Accepts people with criminal records",
    "sex_offense_restrictions": "Has restrictions for people with sex-offense convictions",
    "parole_approved": "Approved by parole for residence or programs",
    "id_not_required": "No photo ID needed to get help",
    "walk_in": "Walk-ins welcome",
}

STATUS_ACTIVE: Final = "active"
STATUSES: Final[tuple[str, ...]] = ("active", "inactive", "temporarily_closed", "defunct")
# HSDS 3.0 spells one status with a space.
STATUS_TO_HSDS: Final[dict[str, str]] = {
    "active": "active",
    "inactive": "inactive",
    "temporarily_closed": "temporarily closed",
    "defunct": "defunct",
}
STATUS_FROM_HSDS: Final[dict[str, str]] = {value: key for key, value in STATUS_TO_HSDS.items()}

GEO_PRECISIONS: Final[tuple[str, ...]] = ("exact", "zip_centroid", "city_centroid", "none")

DAY_CODES: Final[tuple[str, ...]] = ("MO", "TU", "WE", "TH", "FR", "SA", "SU")

# Generous bounding box of Texas (the state reaches 25.84 N to 36.50 N and 93.51 W to 106.65 W).
TEXAS_LAT: Final = (25.80, 36.55)
TEXAS_LON: Final = (-106.70, -93.45)

# Taxonomy identities for the HSDS export: fixed names, so ids derived from them are stable.
NEEDS_TAXONOMY: Final = "pathways-need-categories"
ATTRIBUTES_TAXONOMY: Final = "pathways-reentry-attributes"

# Fixed namespace: ids derived from slugs are the same on every install, so loads are idempotent.
NAMESPACE: Final = uuid.UUID("6f1c2a52-7d0e-4b8e-9a43-2f5b1d3c9e10")


def stable_id(*parts: str) -> uuid.UUID:
    """A UUID derived from names (e.g. ("service", slug)): identical on every install."""
    return uuid.uuid5(NAMESPACE, ":".join(parts))
