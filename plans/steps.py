"""The day-one release plan as one declared table: which steps, in which order, resting on which rules.

Wording rule: a step's `action` says what to do and never states a law, a deadline or an
eligibility. Every legal fact the person sees comes from the `rules` column — slugs of curated
corpus entries, shown with their citation and source only when the entry is assertable (verified
and reviewed). The corpus has no rule for how soon a parolee must report, so the reporting step
says to follow the release papers and names no deadline; the phone step cites nothing.
ID documents come in the order that unlocks the next: the TDCJ ID and release papers are the ID
for the birth certificate, which (with the Social Security card) is what DPS asks for the state ID.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

PAROLE: Final = frozenset({"parole", "mandatory_supervision"})
PROBATION: Final = frozenset({"probation"})
SUPERVISED_OR_UNKNOWN: Final = frozenset({"parole", "mandatory_supervision", "unknown"})
ANYONE: Final = frozenset({"parole", "mandatory_supervision", "probation", "none", "unknown"})


@dataclass(frozen=True)
class StepSpec:
    key: str
    when: str  # release_day (day 0) | next_day (day 1) | first_week (days 2-7)
    applies_to: frozenset[str]  # supervision types
    title: tuple[str, str]  # en, es
    action: tuple[str, str]
    bring: tuple[tuple[str, str], ...] = ()
    rules: tuple[str, ...] = ()  # corpus slugs; shown only when assertable
    need: str | None = None  # directory need category for the places
    pinned: tuple[str, ...] = ()  # directory entries shown first (the office that does this step), then matches
    only_if_need: str | None = None  # an optional step, shown when the person named this need


_PAPERS = (
    "your release papers (certificate of parole or discharge)",
    "sus papeles de salida (certificado de libertad condicional o de salida)",
)
_TDCJ_ID = ("your TDCJ ID card", "su tarjeta de identificación del TDCJ")

STEPS: Final[tuple[StepSpec, ...]] = (
    StepSpec(
        key="report_parole",
        when="release_day",
        applies_to=PAROLE | {"unknown"},
        title=("Report to your parole officer", "Preséntese con su oficial de libertad condicional"),
        action=(
            "Go to the parole office named on your release papers, at the time they give. If they do not say, or you "
            "are not sure, call the Parole Division and ask when and where to report. Ask about supervision fees too.",
            "Vaya a la oficina de libertad condicional que dicen sus papeles de salida, a la hora que indican. Si no lo "
            "dicen o tiene dudas, llame a la División de Libertad Condicional y pregunte cuándo y dónde presentarse. "
            "Pregunte también por las cuotas de supervisión.",
        ),
        bring=(_PAPERS, _TDCJ_ID),
        rules=("tx-gov-501-015", "tx-gov-508-181", "tx-gov-508-182"),
        need="supervision",
        pinned=("tdcj-parole-division",),
    ),
    StepSpec(
        key="report_probation",
        when="release_day",
        applies_to=PROBATION,
        title=("Contact your probation officer", "Comuníquese con su oficial de probatoria"),
        action=(
            "Call or visit the probation (community supervision) office for your county and follow what your judge "
            "or officer told you about reporting.",
            "Llame o visite la oficina de probatoria (supervisión comunitaria) de su condado y siga lo que le indicó "
            "su juez u oficial sobre cómo reportarse.",
        ),
        bring=(_PAPERS,),
        rules=("tx-ccp-42a-301",),
        need="supervision",
    ),
    StepSpec(
        key="bed_tonight",
        when="release_day",
        applies_to=ANYONE,
        title=("A bed for the first night", "Una cama para la primera noche"),
        action=(
            "Call before you go: ask if they have a bed tonight, what time to arrive and what they need from you.",
            "Llame antes de ir: pregunte si tienen cama esta noche, a qué hora llegar y qué le piden.",
        ),
        bring=(_TDCJ_ID, _PAPERS),
        rules=("tx-gov-508-157",),
        need="housing",
    ),
    StepSpec(
        key="id_birth_certificate",
        when="next_day",
        applies_to=ANYONE,
        title=("Order your birth certificate", "Pida su acta de nacimiento"),
        action=(
            "Ask the vital records office (state or county) for a certified copy of your birth certificate. "
            "Ask which ID they take and what it costs before you go.",
            "Pida a la oficina de registros vitales (estatal o del condado) una copia certificada de su acta de "
            "nacimiento. Pregunte qué identificación aceptan y cuánto cuesta antes de ir.",
        ),
        bring=(_TDCJ_ID, _PAPERS),
        rules=("tx-tac-25-181-28",),
        pinned=("211-texas",),  # the directory has no vital records office; 2-1-1 knows the local one
    ),
    StepSpec(
        key="snap",
        when="next_day",
        applies_to=ANYONE,
        title=("Apply for SNAP food benefits", "Solicite SNAP (beneficios de comida)"),
        action=(
            "Apply through Your Texas Benefits (online, by phone or at an office). A food bank can help the same day "
            "while you wait for an answer.",
            "Solicite por medio de Your Texas Benefits (en línea, por teléfono o en una oficina). Un banco de comida "
            "puede ayudarle el mismo día mientras espera respuesta.",
        ),
        bring=(_TDCJ_ID, _PAPERS),
        rules=("tx-hrc-33-018",),
        need="food",
        pinned=("hhsc-your-texas-benefits",),
    ),
    StepSpec(
        key="id_social_security",
        when="first_week",
        applies_to=ANYONE,
        title=("Replace your Social Security card", "Reponga su tarjeta del Seguro Social"),
        action=(
            "Ask Social Security how to replace your card; 2-1-1 can tell you the nearest office.",
            "Pregunte al Seguro Social cómo reponer su tarjeta; el 2-1-1 le puede decir cuál es la oficina más cercana.",
        ),
        bring=(_TDCJ_ID, ("your birth certificate", "su acta de nacimiento"), _PAPERS),
        pinned=("211-texas",),
    ),
    StepSpec(
        key="id_state_id",
        when="first_week",
        applies_to=ANYONE,
        title=("Get your Texas ID card at DPS", "Saque su identificación de Texas en el DPS"),
        action=(
            "Check your release property first: you may already have a state ID. If not, go to a DPS driver license "
            "office (many take appointments) and ask for a personal identification certificate.",
            "Revise primero sus pertenencias de salida: puede que ya tenga una identificación estatal. Si no, vaya a "
            "una oficina de licencias del DPS (muchas dan cita) y pida un certificado de identificación personal.",
        ),
        bring=(
            _TDCJ_ID,
            ("your birth certificate", "su acta de nacimiento"),
            ("your Social Security card", "su tarjeta del Seguro Social"),
            _PAPERS,
        ),
        rules=("tx-gov-501-0165", "tx-transp-521-101", "tx-transp-521-142"),
        need="id_documents",
        pinned=(),
    ),
    StepSpec(
        key="medicaid",
        when="first_week",
        applies_to=ANYONE,
        title=("Ask about health coverage (Medicaid)", "Pregunte por cobertura médica (Medicaid)"),
        action=(
            "Ask Your Texas Benefits whether you can apply for Medicaid, and ask your local mental health authority "
            "about any medicine you took inside.",
            "Pregunte en Your Texas Benefits si puede solicitar Medicaid, y pregunte a la autoridad local de salud "
            "mental por cualquier medicina que tomaba adentro.",
        ),
        bring=(_TDCJ_ID, _PAPERS),
        rules=("us-cms-medicaid-inmate-exclusion", "tx-hrc-32-0266"),
        need="health",
        pinned=("hhsc-your-texas-benefits",),
    ),
    StepSpec(
        key="phone",
        when="first_week",
        applies_to=ANYONE,
        title=("A phone number people can reach", "Un número de teléfono donde le localicen"),
        action=(
            "Your officer, employers and services need to reach you. Ask 2-1-1 about low-cost phone programs "
            "(such as Lifeline) near you.",
            "Su oficial, los empleadores y los servicios necesitan localizarle. Pregunte al 2-1-1 por programas de "
            "teléfono de bajo costo (como Lifeline) cerca de usted.",
        ),
        bring=(_TDCJ_ID,),
        pinned=("211-texas",),
    ),
    StepSpec(
        key="work",
        when="first_week",
        applies_to=ANYONE,
        only_if_need="employment",
        title=("Start looking for work", "Empiece a buscar trabajo"),
        action=(
            "Visit your local Workforce Solutions office and ask about reentry job programs.",
            "Visite la oficina local de Workforce Solutions y pregunte por programas de empleo para personas que salen.",
        ),
        bring=(_TDCJ_ID, ("your Social Security card", "su tarjeta del Seguro Social")),
        rules=("tx-lab-306-007",),
        need="employment",
    ),
)

WHEN_OFFSETS: Final = {"release_day": 0, "next_day": 1, "first_week": 2}
WHEN_LABELS: Final = {
    "release_day": ("Release day", "Día de salida"),
    "next_day": ("The next day", "Al día siguiente"),
    "first_week": ("This week", "Esta semana"),
}
DISCLAIMER: Final = (
    "This plan is general information, not legal advice. Your release papers and your officer's instructions come first.",
    "Este plan es información general, no asesoría legal. Sus papeles de salida y las instrucciones de su oficial van primero.",
)
