"""Fixed en/es texts of reminders and plans by SMS (GSM-friendly, short)."""

from __future__ import annotations

import datetime as dt
from typing import Final

from plans.dates import TZ

_DAYS_ES: Final = ("lun", "mar", "mié", "jue", "vie", "sáb", "dom")
_MONTHS_ES: Final = ("ene", "feb", "mar", "abr", "may", "jun", "jul", "ago", "sep", "oct", "nov", "dic")

TEXTS: Final[dict[str, dict[str, str]]] = {
    "ask_confirm": {
        "en": 'Pathways: reminder {number} for "{label}" on {when}. We will text you the day before and 2 hours before. Reply YES to confirm.',
        "es": 'Pathways: recordatorio {number} para "{label}" el {when}. Le escribiremos el día antes y 2 horas antes. Responda SI para confirmar.',
    },
    "ask_confirm_staff": {
        "en": 'Pathways: your case manager set reminder {number} for "{label}" on {when}. Reply YES if you want these texts.',
        "es": 'Pathways: su administrador de caso creó el recordatorio {number} para "{label}" el {when}. Responda SI si quiere estos mensajes.',
    },
    "confirmed": {
        "en": "Pathways: reminder {number} is on. Reply REMINDERS to see yours, CANCEL {number} to cancel it.",
        "es": "Pathways: el recordatorio {number} está activo. Responda RECORDATORIOS para verlos, CANCELAR {number} para cancelarlo.",
    },
    "send": {
        "en": 'Pathways reminder: "{label}" {when}. Reply CANCEL {number} to stop this reminder.',
        "es": 'Recordatorio de Pathways: "{label}" {when}. Responda CANCELAR {number} para detenerlo.',
    },
    "cancelled": {
        "en": "Pathways: reminder {number} is cancelled. You will get no more texts about it.",
        "es": "Pathways: el recordatorio {number} está cancelado. No recibirá más mensajes sobre él.",
    },
    "none": {
        "en": "Pathways: you have no reminders. Text e.g. 'remind me about my PO appointment tuesday 9am'.",
        "es": "Pathways: no tiene recordatorios. Escriba por ejemplo 'recuérdame mi cita con el oficial el martes a las 9am'.",
    },
    "list_head": {"en": "Pathways reminders:", "es": "Recordatorios de Pathways:"},
    "need_when": {
        "en": "Pathways: what day and time? For example: 'remind me about my PO appointment tuesday 9am'.",
        "es": "Pathways: ¿qué día y a qué hora? Por ejemplo: 'recuérdame mi cita el martes a las 9am'.",
    },
    "which_week": {
        "en": "Pathways: which {weekday} do you mean, {first} or {second}? Text the date, e.g. 'remind me about court {example} 9am'.",
        "es": "Pathways: ¿qué {weekday}, el {first} o el {second}? Escriba la fecha, por ejemplo 'recuérdame la corte el {example} a las 9am'.",
    },
    "am_pm": {
        "en": "Pathways: in the morning or the evening? Add am or pm, e.g. '9am'.",
        "es": "Pathways: ¿de la mañana o de la noche? Agregue am o pm, por ejemplo '9am'.",
    },
    "past": {
        "en": "Pathways: that time has already passed. Text a day and time still ahead.",
        "es": "Pathways: esa hora ya pasó. Escriba un día y una hora que todavía no lleguen.",
    },
    "too_soon": {
        "en": "Pathways: that is too soon for a reminder. Set an alarm on your phone too.",
        "es": "Pathways: es muy pronto para un recordatorio. Ponga también una alarma en su teléfono.",
    },
    "plan_none": {
        "en": "Pathways: no release plan yet. Text e.g. 'I get out March 14, going to Harris County, on parole'.",
        "es": "Pathways: todavía no hay plan de salida. Escriba por ejemplo 'salgo el 14 de marzo, voy al condado de Harris, en libertad condicional'.",
    },
}

_WHEN_EN: Final = "{day} {month} {date} at {time}"
_WHEN_ES: Final = "{day} {date} de {month} a las {time}"


def text_for(key: str, language: str, **values: object) -> str:
    return TEXTS[key]["es" if language == "es" else "en"].format(**values)


def when_text(moment: dt.datetime, language: str) -> str:
    """'Tue Mar 10 at 9:00 AM' / 'mar 10 de mar a las 9:00'."""
    local = moment.astimezone(TZ)
    if language == "es":
        return _WHEN_ES.format(
            day=_DAYS_ES[local.weekday()],
            date=local.day,
            month=_MONTHS_ES[local.month - 1],
            time=local.strftime("%H:%M"),
        )
    hour = local.strftime("%I:%M %p").lstrip("0")
    return _WHEN_EN.format(day=local.strftime("%a"), month=local.strftime("%b"), date=local.day, time=hour)


def day_text(day: dt.date, language: str) -> str:
    if language == "es":
        return f"{day.day} de {_MONTHS_ES[day.month - 1]}"
    return f"{day.strftime('%b')} {day.day}"
