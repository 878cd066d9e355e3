"""By SMS a place's line carries its alert and documents, and a cited caveat its short note, within the budget."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings
from django.contrib.auth import get_user_model

from conversations import services
from conversations.models import Contact, Conversation, OutboundMessage, Turn
from conversations.sms import sender
from conversations.sms.outbox import outbound_approve
from conversations.sms.segments import ALERT_CHARS, shape, with_note
from conversations.sms.texts import NOTICE_VERSION, text_for
from conversations.workflow.templates import NOT_ADVICE, SMS_NOTE_CHARS
from corpus.services import corpus_fixture_read
from resources.hours import local_now
from resources.models import RequiredDocument
from resources.notices import notice_set
from resources.selectors import match
from tests.conversations.sms.conftest import PERSON

HINT = text_for("more_hint", "en")
ALERT_EN = "Closed Dec 24 for the holiday; open again Dec 26 at 8 am with the usual hours."
ALERT_ES = "Cerrado el 24 de diciembre por el feriado; abre otra vez el 26 a las 8 am."
QUESTION = {
    "en": "I need to get my ID in Houston. What do I bring?",
    "es": "Necesito sacar mi identificación en Houston. ¿Qué documentos tengo que llevar?",
}


def _sms_conversation(language: str) -> Conversation:
    contact, _ = services.contact_for_phone(phone=PERSON)
    Contact.objects.filter(pk=contact.pk).update(consent_version=NOTICE_VERSION, language=language)
    conversation, _ = services.conversation_create(channel="sms", contact=contact, language=language)
    return conversation


def _houston_id_offices(language: str) -> dict[str, object]:
    """The places a Houston ID question can list, each with a live alert (a partner's notice) on it.

    Which one comes first depends on where in Houston the turn places the person, so every candidate
    carries the alert and the test reads the first card from the turn itself.
    """
    cards = match(category="id_documents", region="houston", language=language, limit=5)
    supervisor = get_user_model().objects.create_superuser("sup_sms_cards", "sup@example.org", "x" * 20)
    for card in cards:
        notice_set(
            user=supervisor,
            service_id=card.id,
            kind="alert",
            text=ALERT_EN,
            text_es=ALERT_ES,
            ends_on=local_now().date() + dt.timedelta(days=3),
        )
    return {str(card.id): card for card in cards}


def _reply_parts(conversation, post_sms, dispatched, capture, *, question: str, more: str) -> list[str]:
    """Every SMS the person gets for one question: the reply, then each part asked for with MORE."""
    post_sms(question)
    dispatched.run_all()
    message = OutboundMessage.objects.get(conversation=conversation, kind="reply", purpose="")
    with capture(execute=True):
        outbound_approve(message_id=message.pk, actor="cm_alice")
    for _ in range(4):  # a reply is a few parts at most
        last = OutboundMessage.objects.filter(conversation=conversation, kind="reply").latest("created_at")
        if last.status != "sent" or not last.remainder:
            break
        post_sms(more)
        dispatched.run_all()
    return list(
        OutboundMessage.objects.filter(conversation=conversation, kind="reply", status="sent")
        .order_by("created_at")
        .values_list("body", flat=True)
    )


# Per language: the MORE keyword, the documents' label, the alert's start, words of the other language.
CASES = {
    "es": ("MAS", "Lleve:", "! Cerrado el 24 de diciembre", ("Bring:", "Closed Dec 24", "Proof of")),
    "en": ("MORE", "Bring:", "! Closed Dec 24", ("Lleve:", "Cerrado", "Comprobante")),
}


@pytest.mark.django_db
@pytest.mark.parametrize("language", ["es", "en"])
def test_an_sms_reply_carries_each_places_alert_and_documents_in_the_persons_language(
    fake_twilio, post_sms, dispatched, django_capture_on_commit_callbacks, language
) -> None:
    more, bring, alert, foreign = CASES[language]
    conversation = _sms_conversation(language)
    offices = _houston_id_offices(language)
    parts = _reply_parts(
        conversation,
        post_sms,
        dispatched,
        django_capture_on_commit_callbacks,
        question=QUESTION[language],
        more=more,
    )
    turn = OutboundMessage.objects.get(conversation=conversation, purpose="").turn
    assert turn.state["language"] == language and turn.state["resources"][0]["id"] in offices
    card = offices[turn.state["resources"][0]["id"]]
    documents = list(RequiredDocument.objects.filter(service_id=card.id).order_by("id"))
    assert documents, "the first Houston ID office lists documents to bring"
    # Each part fits the one budget; the first ends by saying there is more.
    assert len(parts) >= 2 and all(len(part) <= settings.SMS_MAX_CHARS for part in parts)
    assert parts[0].endswith(text_for("more_hint", language))
    sent = [request["form"]["Body"] for request in fake_twilio.sent]
    assert sent == parts
    # The place's line, wherever it landed, names the place and carries its alert and documents.
    line = next(line for part in parts for line in part.splitlines() if line.startswith(f"- {card.name}"))
    assert alert in line
    first_document = documents[0].document_es if language == "es" else documents[0].document
    assert first_document and f"{bring} {first_document}" in line
    assert line.index(alert) < line.index(bring)
    everything = "\n".join(parts)
    for word in foreign:
        assert word not in everything
    # Nothing was lost on the way: the reply's disclaimer and its citation both arrived.
    assert NOT_ADVICE[language] in everything and "[Tex." in everything


@pytest.mark.django_db
def test_an_sms_reply_citing_an_entry_with_a_caveat_shows_the_note_shortened(
    fake_twilio, post_sms, dispatched, django_capture_on_commit_callbacks
) -> None:
    caveat = next(r["caveat"] for r in corpus_fixture_read() if r["slug"] == "tx-elec-11-002")
    conversation = _sms_conversation("en")
    parts = _reply_parts(
        conversation,
        post_sms,
        dispatched,
        django_capture_on_commit_callbacks,
        question="can i vote if im still on parole",
        more="MORE",
    )
    first = parts[0]
    assert len(first) <= settings.SMS_MAX_CHARS
    note = next(line for line in first.splitlines() if line.startswith("Note: "))
    text = note.removeprefix("Note: ")
    assert len(text) <= SMS_NOTE_CHARS + 3  # "…" is sent as "..."
    assert caveat.startswith(text.removesuffix("...")) and text != caveat
    assert sum(line.startswith("Note:") for part in parts for line in part.splitlines()) == 1


# --- the shaping itself (pure) ----------------------------------------------------------------

CITATION = "Tex. Elec. Code § 11.002"
CAVEAT = (
    "A 2025 bill would change when the right returns, but it has not passed and the current rule still "
    "applies to everyone who is on parole or probation today. Check the current statute before relying on it."
)
PLACES = [
    {
        "name": "Harris County Voter Registrar",
        "phone_display": "713-555-0100",
        "alert": "Closed through Dec 24: office move — Walk-ins paused",
        "documents": ["Photo ID", "Proof of address", "Discharge certificate", "Letter from your parole officer"],
    },
    {"name": "Houston Votes", "phone_display": "713-555-0101", "alert": "", "documents": []},
]
DRAFT = (
    f"Not yet: you can vote in Texas after you finish your whole sentence, parole included [{CITATION}].\n"
    "Places that can help:\n- Harris County Voter Registrar, 713-555-0100, Houston\n- Houston Votes, 713-555-0101"
)


def _shape(text: str, **kwargs):
    kwargs.setdefault("resources", PLACES)
    kwargs.setdefault("citations", [{"citation": CITATION, "caveat": CAVEAT, "url": "https://example.org/el"}])
    return shape(text, budget=320, more_hint=HINT, footer=NOT_ADVICE["en"], language="en", **kwargs)


def test_a_draft_without_a_note_gets_the_short_note_after_the_sentence_citing_the_entry() -> None:
    citations = [{"citation": CITATION, "caveat": CAVEAT}]
    lines = with_note(DRAFT, citations=citations, language="en").splitlines()
    assert lines[0].endswith(f"[{CITATION}].") and lines[2] == "Places that can help:"
    assert (
        lines[1]
        == "Note: " + CAVEAT.split(". ", maxsplit=1)[0][:SMS_NOTE_CHARS].rsplit(" ", 1)[0].rstrip(",;:") + "..."
    )
    spanish = with_note(
        DRAFT, citations=[{"citation": CITATION, "caveat": "Una ley de 2025 no ha pasado."}], language="es"
    )
    assert spanish.splitlines()[1] == "Nota: Una ley de 2025 no ha pasado."
    # Shaped, the (GSM-safe) note is sent in the first part or the next; the first part keeps the budget.
    shaped = _shape(DRAFT)
    assert len(shaped.text) <= 320 and NOT_ADVICE["en"] in shaped.text
    assert (shaped.text + "\n" + shaped.remainder).count(lines[1]) == 1
    uncited = DRAFT.replace(CITATION, "Tex. Gov't Code § 508.001")  # the entry with the caveat is not cited
    assert with_note(uncited, citations=citations, language="en") == uncited


def test_a_caveat_written_out_whole_is_shortened_and_an_edited_note_is_left_as_written() -> None:
    whole = _shape(DRAFT.replace("\nPlaces", f"\nNote: {CAVEAT}\nPlaces"))
    text = whole.text + "\n" + whole.remainder
    assert CAVEAT not in text and text.count("Note: ") == 1
    edited = _shape(DRAFT.replace("\nPlaces", "\nNote: ask your parole officer first.\nPlaces"))
    assert "Note: ask your parole officer first." in edited.text and edited.text.count("Note:") == 1


def test_a_place_line_carries_a_short_alert_then_whole_documents_and_the_budget_holds() -> None:
    shaped = _shape(DRAFT)
    assert len(shaped.text) <= 320 and shaped.text.endswith(HINT)
    line = next(
        line for line in (shaped.text + "\n" + shaped.remainder).splitlines() if "Harris County Voter Registrar" in line
    )
    alert = line[line.index("! ") + 2 : line.index(" Bring:")]
    assert alert.startswith("Closed through Dec 24") and len(alert) <= ALERT_CHARS + 3
    assert "Bring: Photo ID, Proof of address, Discharge certificate, ..." in line  # whole names, never half of one
    assert "\u2014" not in line and "Houston Votes" not in line
    plain = next(line for line in (shaped.text + "\n" + shaped.remainder).splitlines() if "Houston Votes" in line)
    assert "!" not in plain and "Bring:" not in plain


def test_what_did_not_fit_is_the_remainder_and_shaping_it_again_adds_nothing_twice() -> None:
    shaped = _shape(DRAFT + "\n" + "More words about the places. " * 6)
    assert shaped.remainder
    again = _shape(shaped.remainder, note=False)
    for line in (again.text.removesuffix(HINT) + "\n" + again.remainder).splitlines():
        assert line.count("Bring:") <= 1 and line.count("! ") <= 1
    assert "Note:" not in again.text + again.remainder or "Note:" in shaped.remainder


def test_without_a_language_the_text_is_shaped_as_before() -> None:
    shaped = shape(DRAFT, budget=320, more_hint=HINT, resources=PLACES)
    assert "Bring:" not in shaped.text and "Note:" not in shaped.text


def test_a_link_longer_than_a_text_is_dropped_so_more_ends() -> None:
    link = "https://casetext.com/statute/" + "section-" * 40
    shaped = shape(f"- Houston Votes, 713-555-0101\n{link}", budget=320, more_hint=HINT, footer=NOT_ADVICE["en"])
    assert shaped.remainder == "" and link not in shaped.text
    assert shaped.text == f"- Houston Votes, 713-555-0101\n{NOT_ADVICE['en']}"


@pytest.mark.django_db
@pytest.mark.parametrize(("kind", "extended"), [("crisis", False), ("reply", True)])
def test_a_crisis_text_is_sent_as_written_even_when_its_turn_lists_a_place_with_an_alert(kind, extended) -> None:
    conversation = _sms_conversation("en")
    turn, _ = services.turn_start(conversation=conversation, text="where can I sleep", idempotency_key="t1")
    Turn.objects.filter(pk=turn.pk).update(state={**turn.state, "resources": PLACES[:1], "evidence": []})
    turn.refresh_from_db()
    body = "Call 988 now.\n- Harris County Voter Registrar, 713-555-0100"
    message = OutboundMessage.objects.create(conversation=conversation, turn=turn, kind=kind, body=body)
    text, remainder, _notice = sender.compose(message, contact=Contact.objects.get())
    assert ("! Closed through Dec 24" in text) is extended and ("Bring: Photo ID" in text) is extended
    if not extended:
        assert text == body and remainder == ""


@pytest.mark.django_db
def test_a_spanish_text_to_an_english_contact_is_answered_in_spanish_and_a_switch_back_is_followed(
    fake_twilio, post_sms, dispatched
) -> None:
    conversation = _sms_conversation("en")
    post_sms(QUESTION["es"])
    dispatched.run_all()
    first = Turn.objects.filter(conversation=conversation).latest("created_at")
    assert first.state["language"] == "es"
    conversation.refresh_from_db()
    assert conversation.language == "es"
    post_sms("ok thanks, and where do I get my birth certificate in Houston?")
    dispatched.run_all()
    second = Turn.objects.filter(conversation=conversation).latest("created_at")
    assert second.pk != first.pk and second.state["language"] == "en"
