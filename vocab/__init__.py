"""The project's one vocabulary: codes every layer must spell the same, below every app (stdlib only).

Need categories, regions, crisis categories and staff role names are stored in rows, sent to
models, matched in text and shown in admin; a copy that drifts mis-files a person's need or
routes a crisis to the wrong line. So each lives here once and the apps import it: the directory
(resources.taxonomy) and the corpus (corpus.types) are sibling layers that may not import each
other, and the safety hooks must stay free of Django, which is why this package imports nothing but
the standard library (a contract in pyproject.toml and tests/vocab keep it so). The taxonomy is
described in docs/architecture.md.
"""

from __future__ import annotations

import unicodedata
from typing import Final

# What a person needs help with (HSDS-aligned categories of the directory, the corpus and intake).
NEED_CATEGORIES: Final[tuple[str, ...]] = (
    "housing",
    "id_documents",
    "employment",
    "legal_record",
    "voting",
    "supervision",
    "benefits",
    "food",
    "health",
    "transportation",
    "family",
    "education",
    "legal_aid",
    "other",
)

# Where help is: the directory's regions; "statewide" services serve every region.
REGIONS: Final[tuple[str, ...]] = (
    "statewide",
    "houston",
    "dallas_fort_worth",
    "austin",
    "san_antonio",
    "el_paso",
    "rio_grande_valley",
    "corpus_christi",
    "west_texas",
    "east_texas",
    "other",
)

SUICIDE: Final = "suicide_self_harm"
DV: Final = "domestic_violence"
MEDICAL: Final = "medical_emergency_overdose"
DANGER: Final = "immediate_danger"
ASSAULT: Final = "sexual_assault"
HOUSING: Final = "housing_emergency"
NO_CRISIS: Final = "none"
# Ordered by the harm of routing to the wrong line: the first detected category wins, and every
# category's handoff still names 911 for danger right now.
CRISIS_CATEGORIES: Final[tuple[str, ...]] = (SUICIDE, MEDICAL, DANGER, DV, ASSAULT, HOUSING)
# A crisis label as stored and as a model answers it: no crisis, or one of the categories.
CRISIS_LABELS: Final[tuple[str, ...]] = (NO_CRISIS, *CRISIS_CATEGORIES)

# Staff roles: the names of the Django groups (caseload.roles gives them their permissions).
ADMIN: Final = "admin"
SUPERVISOR: Final = "supervisor"
CASE_MANAGER: Final = "case manager"
PARTNER_EDITOR: Final = "partner editor"
ROLE_NAMES: Final[tuple[str, ...]] = (ADMIN, SUPERVISOR, CASE_MANAGER, PARTNER_EDITOR)


def fold(text: str) -> str:
    """Lower-case and strip accents, so "Cárcel", "cárcel" and "carcel" match the same rule or word.

    People type Spanish with and without accents (and phones add them); every matcher of words in
    text folds both sides with this one function.
    """
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch))
