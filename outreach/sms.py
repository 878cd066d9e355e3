"""The SMS commands of outreach, registered with conversations.sms.commands (see apps.ready).

`remind me … <day> <time>` / `recuérdame …` → a reminder waiting for YES; `YES`/`SI` → confirm the
latest one; `REMINDERS`/`RECORDATORIOS` → list; `CANCEL n`/`CANCELAR n` → cancel reminder n (only
when it exists: otherwise the message goes on to the carrier keywords, where CANCEL is an opt-out);
`PLAN` → the last release plan again; a message that gives a whole release plan request ("I get out
Friday, going to Bexar County, on parole") → the plan in parts. Anything else: None (a normal turn).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Final

from conversations.hooks import handoff_for
from conversations.models import Contact, Conversation
from outreach import services
from outreach.texts import text_for
from plans.selectors import plan_request_from_message
from plans.types import OutOfTexas, PlanRequest
from vocab import fold

_YES: Final = re.compile(r"^\s*(?:yes|y|si|sí|ok|okay|confirm|confirmar)\s*[.!]*\s*$")
_LIST: Final = re.compile(r"^\s*(?:reminders|recordatorios)\s*[.!?]*\s*$")
_CANCEL: Final = re.compile(r"^\s*(?:cancel|cancelar|cancela)\s*#?\s*(\d{1,3})\s*[.!]*\s*$")
_PLAN: Final = re.compile(r"^\s*plan\s*[.!?]*\s*$")
_REFUSED: Final = {"past": "past", "too_soon": "too_soon"}


def _language(contact: Contact, conversation: Conversation, body: str) -> str:
    if re.search(r"\b(?:recuerdame|recordatorios?|cancelar|cancela|si|salgo|voy|condado)\b", fold(body)):
        return "es"
    return conversation.language or contact.language or "en"


def reminder_command(*, contact: Contact, conversation: Conversation, body: str, now: dt.datetime) -> str | None:
    folded = fold(body)
    language = _language(contact, conversation, body)
    if services.is_reminder_request(body):
        try:
            result = services.reminder_request(
                contact=contact, conversation=conversation, text=body, now=now, language=language
            )
        except services.ReminderRefused as refused:
            if refused.code in _REFUSED:
                services.outbox_put(
                    conversation=conversation,
                    purpose=f"reminder_{refused.code}",
                    body=text_for(_REFUSED[refused.code], language),
                )
            return "REMIND"  # opted out or not an SMS contact: nothing stored, nothing sent
        if isinstance(result, services.ReminderAsk):
            services.outbox_put(
                conversation=conversation,
                purpose=f"reminder_{result.text_key}",
                body=text_for(result.text_key, language, **result.values),
            )
        return "REMIND"
    if _YES.match(folded):
        return "YES" if services.reminder_confirm(contact=contact, now=now) else None
    if _LIST.match(folded):
        services.outbox_put(
            conversation=conversation,
            purpose="reminder_list",
            body=services.reminders_list_text(contact=contact, now=now, language=language),
        )
        return "REMINDERS"
    cancel = _CANCEL.match(folded)
    if cancel:
        return "CANCEL_N" if services.reminder_cancel(contact=contact, number=int(cancel.group(1)), now=now) else None
    return None


def plan_command(*, contact: Contact, conversation: Conversation, body: str, now: dt.datetime) -> str | None:
    language = _language(contact, conversation, body)
    if _PLAN.match(fold(body)):
        services.plan_resend(conversation=conversation, now=now, language=language)
        return "PLAN"
    found = plan_request_from_message(body, now=now, language=language)
    if isinstance(found, PlanRequest):
        services.plan_send_sms(conversation=conversation, request=found, now=now)
        return "PLAN_REQUEST"
    if isinstance(found, OutOfTexas):
        services.outbox_put(
            conversation=conversation, purpose="out_of_state", body=handoff_for("out_of_state", language).text
        )
        return "PLAN_REQUEST"
    # A question that only mentions release ("when is my release date?") is the workflow's.
    return None
