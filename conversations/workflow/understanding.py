"""What intake concludes about one message: the trained model's answer, the rules, and the context.

A pure function of plain data (no database, no model call), used by the intake node and by
`manage.py safety evaluate`, so what is measured is what runs:
- need: the model's calibrated answer when it is sure; otherwise the rules where they are precise
  (one need clearly ahead); otherwise the model's best guess. A message that carries no need of
  its own (a bare follow-up, thanks, an "and how much?") keeps the conversation's need; a
  concrete new need, or a correction, replaces it.
- region: the place the person says they are in now (the latest stated wins), else the
  conversation's last region; "Texas" alone is statewide.
- hand-off signals: the model's flags, OR the rules where they are exact (AGENT, a named state).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from conversations.workflow import intake_rules
from resources.selectors import resolve_place
from vocab import fold

CONTEXT_FREE_NEEDS: Final = frozenset({"other"})
# "no, I meant …", "actually …", "not housing, food": the person corrects the topic.
_CORRECTION: Final = re.compile(
    r"^\s*(?:no+\b|nah\b|not\b|actually\b|i meant\b|i mean\b|wait\b|mejor\b|perd[oó]n\b|quise decir\b|me refiero\b|"
    r"en realidad\b|no es\b|no era\b)",
    re.IGNORECASE,
)
_TEXAS_ONLY: Final = re.compile(r"\b(?:texas|tx|tejas)\b", re.IGNORECASE)
# "a Texas ID", "my Texas parole", "licencia de Texas", "las cárceles de Texas": Texas names a document, an agency or
# whose system it is, not where the person is (LABELING.md: "in Texas", no city, is statewide). On the dev and
# retired blind sets such mentions were labelled unknown 61 times and statewide 7.
_TEXAS_AS_NAME: Final = re.compile(
    r"\b(?:texas|tx|tejas)\s+(?:ids?|i\.d\.|identification|state id|driver'?s?|dl|licen[cs]es?|workforce|twc|health|"
    r"department|dps|medicaid|lone star|works|legal|law help|commission|board|felony|felonies|parole|prisons?|"
    r"birth certificate|record|conviction|case|government|side)\b|"
    r"\b(?:id|identificaci[oó]n|licencia|tarjeta|credencial|acta|parol|parole|prisi[oó]n|prisiones|c[aá]rcel|c[aá]rceles|"
    r"felon[ií]a|delito|caso|r[eé]cord)\s+de\s+(?:texas|tejas)\b",
    re.IGNORECASE,
)
# Thanks, greetings and goodbyes carry no need of their own, and LABELING.md files them as other.
_COURTESY: Final = re.compile(
    r"^\W*(?:ok(?:ay)?|k|thanks?|thank you|thx|ty|gracias|muchas gracias|hi|hello|hey|hola|bye|adios|cool|"
    r"got it|va|sale|orale|perfecto|listo)(?:\W+(?:so much|a lot|yall|y'all|man|bro|mija|mijo|amigo|again|"
    r"mucho|muchas|de nuevo|ok|thanks?|gracias))*\W*$",
    re.IGNORECASE,
)
# A message that only thanks and closes ("Thank you, this helps.", "Gracias, voy a llamar mañana.", "appreciate
# it", "bet thanks"): need other, as LABELING.md files thanks. Only the need: whether a crisis goes on is still
# `continues_previous`'s narrower courtesy check, so a crisis line stays in front of someone saying thanks.
_CLOSING_UNIT: Final = (
    r"(?:ok(?:ay)?|k|kk|thanks?|thank (?:you|u)|thx|ty|tysm|gracias|muchas|mil|hi|hello|hey|hola|bye|goodbye|adios|"
    r"cool|got it|va|sale|orale|perfecto|perfect|listo|bet|great|awesome|alright|lol|nice|"
    r"(?:i )?appreciate (?:it|you|that|ya|the help)|so much|a lot|yall|y'all|man|bro|mija|mijo|amigo|compa|again|"
    r"mucho|de nuevo|de verdad|por (?:la|tu|su) (?:info|informacion|ayuda)|for (?:the|your) (?:info|help)|"
    r"(?:this|that|it) (?:helps|helped|really helps|really helped)|"
    r"(?:this|that|it)(?:'?s| is| was) (?:really |very |so |super )?(?:helpful|useful|great|good to know)|"
    r"(?:eso )?(?:me )?(?:sirve|ayuda|ayudo) (?:mucho|bastante)|muy amable|(?:i'?ll|i will) call (?:them|you|him|her|it)"
    r"(?: tomorrow| later| today| in the morning)?|voy a (?:llamar|hablar)(?: ma[nñ]ana| luego| hoy)?|"
    r"see (?:ya|you)|take care|cuidate|bendiciones|god bless)"
)
_CLOSING: Final = re.compile(rf"^\W*{_CLOSING_UNIT}(?:\W+{_CLOSING_UNIT})*\W*$", re.IGNORECASE)
# "right now im in georgetown", "vivimos en pharr", "estoy en un halfway house en el paso": a message
# that only says where the person is (or is staying) carries no need of its own, even when a word in
# it ("halfway house") is a need keyword; the conversation's need goes on.
_WHERE_I_AM: Final = re.compile(
    r"^\W*(?:(?:and|y|ok(?:ay)?|so|bueno|pues|right now|now|ahorita|ahora|actually|oh|btw|also|tambi[eé]n|en realidad)\W+)*"
    r"(?:i'?m|im|i am|we'?re|we are|i live|we live|i stay|we stay|stayin[g']?|living|i moved|moved|"
    r"estoy|estamos|vivo|vivimos|ando|andamos|me quedo|nos quedamos|me mude|it'?s|its|es)\b",
    re.IGNORECASE,
)
PLACE_STATEMENT_MAX_WORDS: Final = 16
# A short question about the service already being discussed — what it takes, costs, when it opens,
# where it is ("do they take medicaid", "y abren hoy", "do i need ID", "is that normal"): the
# conversation's need goes on even when a word in it (medicaid, ID) would be a need of its own.
_ABOUT_THE_SAME: Final = re.compile(
    r"\b(?:(?:do|does|will|would|can) (?:they|it|he|she|that|u|you|the \w+) (?:take|accept|cover)|"
    r"aceptan|acepta|toman|cubre|cubren|"
    r"(?:is it|is that|it'?s|its|y es|es|sera|seria) (?:free|gratis)|how much (?:is it|does it cost|do they charge)|"
    r"cuanto (?:cuesta|cobran|sale|es)|what time|a que hora|when do they|are they open|abren|cierran|"
    r"open (?:today|on|now|tomorrow|weekends?|late)|do i (?:need|have to bring)|what do i (?:need|bring)|"
    r"que (?:papeles|documentos) (?:necesito|llevo|piden)|necesito llevar|tengo que llevar|where is it|"
    r"donde (?:queda|esta)|is (?:that|this|it) normal|es normal|cuanto (?:tarda|se tarda|tardan|dura)|"
    r"how long (?:does it|will it|do they) take|(?:i have|i got|tengo|traigo) (?:medicaid|medicare|insurance|seguro))\b",
    re.IGNORECASE,
)
# "no, I meant food, not housing", "lo que de verdad necesito es trabajo", "forget the voting, I need SNAP":
# the need is the one named after the marker, not the one dropped.
_MEANT: Final = re.compile(
    r"\b(?:i meant|i mean|meant|i need|quise decir|me refiero a|lo que (?:de verdad |realmente |en realidad )?"
    r"(?:necesito|ocupo|quiero) es|ahora (?:lo que )?(?:ocupo|necesito)(?: es)?|what i (?:really )?need is)\b"
    r"(?P<named>[^.?!]*?)(?=\bnot\b|\bno\b|[.?!]|$)",
    re.IGNORECASE,
)
_DROPS_TOPIC: Final = re.compile(
    r"\b(?:forget (?:the|about)|never ?mind (?:the|about)|olvida(?:te)? (?:lo|de) (?:del?|de la|el|la)|ya no\b|"
    r"otra cosa|another thing|different question|on (?:another|a different) note|cambiando de tema)",
    re.IGNORECASE,
)
SAME_QUESTION_MAX_WORDS: Final = 10
# "I finished parole last year.", "court is next month", "vivo en weslaco con mi señora": a short statement
# that asks for nothing answers or fills in the question in play; a word in it ("parole", "court") is not a
# new need. Any request or question word, or a question mark, and the message is judged on its own.
STATEMENT_MAX_WORDS: Final = 12
# Such a statement switches the topic only when the model is surer than a question needs ("my baby mama wont let me see
# my son" in a benefits conversation is a new need).
STATEMENT_SWITCH_PROBABILITY: Final = 0.9
_ASKS: Final = re.compile(
    r"\?|\b(?:need|needs|want|wanna|looking|look for|help|gotta|got to|have to|has to|how|where|what|when|which|who|"
    r"can|could|should|would|will|do|does|is there|are there|any|anything|necesito|necesita|ocupo|ocupa|quiero|"
    r"queria|busco|buscando|ayuda|ayudan?|tengo que|como|donde|cuando|cual|que|quien|hay|puedo|pueden|debo|"
    r"sabes?|saben|hungry|hambre)\b",
    re.IGNORECASE,
)
_STAFF_HOUSING: Final = re.compile(
    r"\b(?:halfway|staff|encargad[oa]s?|casa de (?:transici[oó]n|medio camino)|the house manager|shelter|albergue)\b",
    re.IGNORECASE,
)


def _says_only_where(own_words: str) -> bool:
    """A short statement of where the person is, with no question of its own."""
    if "?" in own_words or len(own_words.split()) > PLACE_STATEMENT_MAX_WORDS or not _WHERE_I_AM.match(own_words):
        return False
    return resolve_place(own_words) is not None or bool(re.search(r"\bhalfway|casa de transici", own_words, re.I))


# With a conversation need in play, the model switches topic on its own only when it is this sure;
# below it, only the person's own keywords (the rules) or a correction do.
SWITCH_PROBABILITY: Final = 0.85
# The need behind a crisis (LABELING.md): the line is the crisis's; the need is what follows it.
CRISIS_NEEDS: Final = {
    "suicide_self_harm": ("health",),
    "medical_emergency_overdose": ("health",),
    "sexual_assault": ("health", "housing"),
    "housing_emergency": ("housing",),
    "domestic_violence": ("other", "housing", "legal_aid"),
    "immediate_danger": ("other",),
}
# A weak rule signal may confirm a model flag that is close to its threshold, never decide alone.
RULE_CONFIRMS_FROM: Final = 0.35


_SAFE_NOW: Final = re.compile(
    r"\b(?:i'?m (?:ok|okay|safe|fine|good) now|im (?:ok|okay|safe|fine|good) now|all good now|false alarm|never ?mind|nvm|"
    r"ya estoy bien|ya estoy a salvo|ya paso|todo bien ya|estoy bien ahora|"
    # The help came: the line was called, the person is with someone safe, in a bed, at the hospital.
    r"i (?:called|talked to|spoke (?:to|with)) (?:988|911|the (?:line|hotline|number|counselor|crisis line)|them|someone)|"
    r"(?:ambulance|paramedics|police|cops) (?:came|got here|are here)|i(?:'?m| am) at (?:a|the) (?:shelter|crisis center|hospital)|"
    r"i got a bed|(?:i'?m|im|i am) (?:good|ok|okay|safe) for (?:now|tonight)|"
    r"ya (?:les? )?(?:llame|hable)|ya (?:vino|llego) la ambulancia|ya (?:estoy|me quedo) con (?:mi|un|una)|"
    r"ya tengo donde (?:quedarme|dormir)|ya me (?:revisaron|atendieron)|"
    # Feeling better, or a bed found: "ya me siento mejor", "ya estoy mejor", "a shelter took me in".
    r"(?<!no )(?:ya )?(?:me siento|estoy) mejor|(?:i'?m|im|i am) (?:feeling |doing )?better|(?<!not )feeling better|"
    r"(?:took|let) me in|got me (?:a|into a|into the) (?:bed|room|motel|shelter)|motel voucher|"
    # It is over (LABELING.md: `none` once the person is clearly past it): time has passed, the danger was taken
    # away, the hospital let them go, a bed or an order came through.
    r"next day|the day after|(?:it'?s|its|it has) been (?:a |an )?(?:couple|few|two|three|\d+) (?:of )?(?:days|weeks|months)|"
    r"(?:a|two|three|\d+|couple of|few) (?:weeks|months) ago|hace (?:dos|tres|\d+|unas?) (?:semanas|meses)|"
    r"(?:protective|restraining) order (?:was |got |is )?(?:granted|approved|signed)|me (?:dieron|otorgaron) la orden|"
    r"(?:sent|let) me (?:go )?home|(?:got )?discharged|me dieron de alta|(?:ya )?estoy estable|"
    r"(?:scan|test|tests|results?) (?:was|were|came back) (?:clear|fine|normal|ok|okay)|"
    r"(?:se lo|se la|se los) llevaron|(?:lo|la|los) arrestaron|(?:ya )?agarraron a|(?:arrested|locked up) (?:him|her|them)|"
    r"ya se calmo(?: todo)?|me dieron (?:cama|un cuarto|lugar)|i see a counselor)\b",
    re.IGNORECASE,
)
# The help was called but has not come ("ya llamé al 911 pero no llegan"): the crisis goes on.
_STILL_WAITING: Final = re.compile(
    r"\b(?:pero|but|and|y) (?:todavia |aun |still )?(?:no|nobody|no one|they (?:havent|haven't|arent|aren't|still havent)|"
    r"nadie) (?:llega|llegan|han llegado|ha llegado|vienen|viene|contesta|contestan|came|come|answer\w*|here|showed up|"
    r"show up|picked up|pick up)\b",
    re.IGNORECASE,
)
# The person says they are changing the subject: the message is judged on its own (its own crisis
# check still runs, so a new crisis in it is caught). "Also he's still here" is not a topic change.
_NEW_TOPIC: Final = re.compile(
    r"\b(?:(?:different|another|other|unrelated|separate|new) (?:question|topic|thing)|on (?:another|a different) note|"
    r"\bunrelated\b|changing the subject|change of subject|also (?:wanted|want|need) to ask|"
    r"otra (?:pregunta|cosa|duda)|cambiando de tema|(?:tambi[eé]n|aparte) (?:quer[ií]a|quiero) preguntar|"
    r"aparte de eso|de otra cosa)\b",
    re.IGNORECASE,
)


def continues_previous(own_words: str) -> bool:
    """Whether a message goes on with the previous turn's situation.

    After a crisis, anything but a thank-you, a greeting, "I'm safe now" (or the help having come),
    or an explicit change of subject keeps the crisis line in front of the person ("estamos en
    odessa", "is there a shelter open now"): when in doubt, the crisis wins.
    """
    folded = fold(own_words)  # "ya hablé al 988" is "ya hable" to the patterns
    if _STILL_WAITING.search(folded):
        return True
    return not _COURTESY.match(own_words) and not _SAFE_NOW.search(folded) and not _NEW_TOPIC.search(folded)


@dataclass(frozen=True)
class Understanding:
    language: str
    top_need: str
    need_source: str  # "model" | "rules" | "context" | "none"
    needs: tuple[str, ...]
    supervision: str
    region: str | None
    place: dict[str, Any] | None
    out_of_state: str | None
    legal_advice: bool
    human_request: bool
    outcome_promise: bool
    prompt_injection: bool
    sure: bool  # False: neither the model nor the rules are confident (the LLM may be asked)


def _flag(assessment: Mapping[str, Any], tag: str, rule_hit: bool, *, rule_exact: bool) -> bool:
    if not assessment.get("available"):
        return rule_hit
    if tag in (assessment.get("flags") or ()):
        return True
    if rule_hit and rule_exact:
        return True
    probability = float((assessment.get("flag_probs") or {}).get(tag, 0.0))
    threshold = float((assessment.get("flag_thresholds") or {}).get(tag, 1.0))
    return rule_hit and probability >= RULE_CONFIRMS_FROM * threshold


def _model_need(assessment: Mapping[str, Any]) -> tuple[str | None, float, bool]:
    if not assessment.get("available") or not assessment.get("top_need"):
        return None, 0.0, False
    return (
        str(assessment["top_need"]),
        float(assessment.get("need_probability") or 0.0),
        bool(assessment.get("need_sure")),
    )


def _crisis_need(
    crisis: str, decided: tuple[str, str, bool], own_words: str, need_hint: str | None, *, where_only: bool
) -> tuple[str, str, bool]:
    """The need behind a crisis (LABELING.md): one the crisis allows, the conversation's when it goes on."""
    need = decided[0]
    allowed = CRISIS_NEEDS[crisis]
    if crisis == "sexual_assault" and (need_hint == "housing" or _STAFF_HOUSING.search(own_words)):
        return "housing", "crisis", True  # staff abuse in housing: the need is housing
    if need_hint in allowed and (where_only or need not in allowed):
        return str(need_hint), "context", True
    if need not in allowed:
        return allowed[0], "crisis", True
    return decided


def _named_need(own_words: str) -> str | None:
    """In a correction, the need named after "I meant" / "lo que necesito es" (the dropped one is ignored)."""
    for match in _MEANT.finditer(own_words):
        scores = intake_rules.score_needs(match.group("named"))
        if scores:
            return max(sorted(scores), key=lambda need: scores[need])
    return None


def _correction(own_words: str, *, where_only: bool, rules_precise: bool) -> tuple[bool, str | None]:
    """Whether the person corrects the topic, and the need the correction names (None when it names none)."""
    if where_only or (_CORRECTION.search(own_words) is None and _DROPS_TOPIC.search(own_words) is None):
        return False, None
    named = _named_need(own_words)
    if named is None and not rules_precise and resolve_place(own_words) is not None:
        # "no perdon, estoy en kyle no en katy": a correction that names a place and no need corrects the
        # place; the conversation's need goes on.
        return False, None
    return True, named


def understand(
    *,
    text: str,
    own_words: str,
    assessment: Mapping[str, Any] | None,
    language_pref: str | None = None,
    language_hint: str | None = None,
    region_hint: str | None = None,
    need_hint: str | None = None,
    crisis: str = "none",
) -> Understanding:
    """Combine model, rules and conversation context for one redacted message.

    `text` is the message as the workflow searches it (a follow-up rewritten with its context),
    `own_words` the person's message as sent; the model's `assessment` is of `own_words`.
    """
    assessment = assessment or {}
    own_words = own_words or text
    own_guess = intake_rules.guess(own_words, language_hint=language_hint)
    guess = intake_rules.guess(text, language_hint=language_hint) if text != own_words else own_guess
    language = (
        language_pref if language_pref in {"en", "es"} else intake_rules.detect_language(own_words, language_hint)
    )

    model_need, model_p, model_sure = _model_need(assessment)
    rules_need = own_guess.top_need if own_guess.scores else None
    rules_precise = rules_need is not None and own_guess.sure
    if model_need is not None and model_sure:
        need, source, sure = model_need, "model", True
    elif rules_precise:
        need, source, sure = str(rules_need), "rules", True
    elif model_need is not None:
        need, source, sure = model_need, "model", False
    elif rules_need is not None:
        need, source, sure = rules_need, "rules", False
    else:
        need, source, sure = "other", "none", False

    where_only = _says_only_where(own_words)
    corrected, named = _correction(own_words, where_only=where_only, rules_precise=rules_precise)
    if named is not None:
        need, source, sure = named, "rules", True
    corrected = corrected and need not in CONTEXT_FREE_NEEDS
    if crisis in CRISIS_NEEDS:
        need, source, sure = _crisis_need(crisis, (need, source, sure), own_words, need_hint, where_only=where_only)
    elif _COURTESY.match(own_words) or _CLOSING.match(fold(own_words)):
        need, source, sure = "other", "rules", True
    elif need_hint and need_hint not in CONTEXT_FREE_NEEDS and not corrected:
        # In a conversation, a message switches topic by its own keywords, or when the model is
        # very sure; "what about Dallas?", "is it free", "im in temple" keep the conversation's need.
        about_the_same = len(own_words.split()) <= SAME_QUESTION_MAX_WORDS and bool(
            _ABOUT_THE_SAME.search(fold(own_words))
        )
        states_only = len(own_words.split()) <= STATEMENT_MAX_WORDS and not _ASKS.search(fold(own_words))
        switches = (
            not where_only
            and not about_the_same
            and (
                (rules_precise and not states_only)
                or (
                    model_need == need
                    and model_p >= (STATEMENT_SWITCH_PROBABILITY if states_only else SWITCH_PROBABILITY)
                    and need not in CONTEXT_FREE_NEEDS
                )
            )
        )
        if not switches:
            need, source, sure = need_hint, "context", True

    place = resolve_place(own_words)
    region = place.region if place else region_hint
    if region is None and _TEXAS_ONLY.search(_TEXAS_AS_NAME.sub(" ", own_words)):
        region = "statewide"
    rules_state = guess.out_of_state
    out_of_state = _flag(assessment, "handoff_out_of_state", rules_state is not None, rule_exact=False)
    return Understanding(
        language=language,
        top_need=need,
        need_source=source,
        needs=guess.needs,
        supervision=guess.supervision,
        region=region,
        place={"name": place.name, "lat": place.lat, "lon": place.lon, "zip": place.zip} if place else None,
        out_of_state=(rules_state or "another state") if out_of_state else None,
        legal_advice=_flag(assessment, "no_legal_advice", own_guess.legal_advice, rule_exact=False),
        human_request=_flag(assessment, "asks_for_human", intake_rules.wants_human(own_words), rule_exact=True),
        outcome_promise="no_outcome_promise" in (assessment.get("flags") or ()),
        prompt_injection="prompt_injection" in (assessment.get("flags") or ()),
        sure=sure,
    )


def _assess_question(text: str) -> tuple[str, dict[str, Any]] | None:
    """One standalone question redacted and assessed by the model as a turn would; None if empty.

    The gate's training and reports ask for a question's need, hand-off and own-case probability in
    turn; the redaction (NER) and the model run once per question and model version.
    """
    from conversations.hooks import message_model

    model = message_model.get_model()
    assessed = _assessed(text, model.version if model is not None else "")
    return None if assessed is None else (assessed[0], dict(assessed[1]))


@functools.lru_cache(maxsize=4096)
def _assessed(text: str, version: str) -> tuple[str, dict[str, Any]] | None:
    from conversations.hooks import message_model, redact
    from corpus.embeddings import embed_one

    redacted = redact(text).text
    if not redacted.strip():
        return None
    assessment = message_model.assess(redacted, embed_one(redacted))
    return redacted, assessment.summary() | {"flag_probs": assessment.flag_probs}


def _understand_question(text: str) -> Understanding | None:
    """One standalone question read as a turn would read it; None if empty."""
    assessed = _assess_question(text)
    if assessed is None:
        return None
    redacted, assessment = assessed
    return understand(text=redacted, own_words=redacted, assessment=assessment)


def need_for_question(text: str) -> str | None:
    """Intake's need for one standalone question, as a turn would decide it (for the corpus gate's training).

    Wired into corpus by settings.CORPUS_INTAKE_NEED: the corpus may not import the workflow.
    """
    found = _understand_question(text)
    return None if found is None or found.top_need == "other" else found.top_need


def own_case_probability(assessment: Mapping[str, Any] | None) -> float | None:
    """The model's probability that a message asks about the writer's own matter or an outcome for it.

    The larger of its no-legal-advice and no-outcome-promise flags: both are questions the corpus's
    general law cannot settle. The answerability gate reads it as a feature; None without a model.
    """
    if not assessment or not assessment.get("available"):
        return None
    probs = assessment.get("flag_probs") or {}
    return float(max(probs.get("no_legal_advice", 0.0), probs.get("no_outcome_promise", 0.0)))


def own_case_for_question(text: str) -> float | None:
    """`own_case_probability` of one standalone question as a turn would assess it.

    Wired into corpus by settings.CORPUS_INTAKE_OWN_CASE, so the gate is trained and reported on the
    same input the retrieve node gives it.
    """
    assessed = _assess_question(text)
    return None if assessed is None else own_case_probability(assessed[1])


def handoff_for_question(text: str) -> str | None:
    """The hand-off intake makes before any retrieval ("human", "out_of_state", "legal_aid"), as the intake
    node orders them; None when the question goes on to the corpus.

    Wired into corpus by settings.CORPUS_INTAKE_HANDOFF, so the gate's report can show what the whole
    workflow does with an unanswerable question, not only what the gate does.
    """
    found = _understand_question(text)
    if found is None:
        return None
    if found.human_request:
        return "human"
    if found.out_of_state:
        return "out_of_state"
    return "legal_aid" if found.legal_advice else None
