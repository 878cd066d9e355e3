"""Crisis detection: the issue's own examples, negation and idioms, third parties, obfuscation."""

from __future__ import annotations

import pytest

from conversations.hooks import combine_crisis, detect_crisis, handoff_for, normalize
from conversations.hooks.crisis import CRISIS_CATEGORIES, SEVERITIES, CrisisResult
from vocab import ASSAULT, DANGER, DV, HOUSING, MEDICAL, NO_CRISIS, SUICIDE


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("whats the point anymore", "suicide_self_harm"),
        ("i been saving pills", "suicide_self_harm"),
        ("ya no quiero vivir", "suicide_self_harm"),
        ("my boyfriend said he'd kill me if I come back", "domestic_violence"),
        ("he's not breathing he took something", "medical_emergency_overdose"),
        ("sleeping under the bridge tonight", "housing_emergency"),
        ("someone is outside my door with a gun", "immediate_danger"),
        ("i got raped and idk if i should go to the hospital", "sexual_assault"),
        ("me violaron", "sexual_assault"),
        ("no tengo donde dormir esta noche", "housing_emergency"),
        # The idioms and research forms above must not swallow the crisis beside them.
        ("me quiero morir antes de volver a la carcel", "suicide_self_harm"),
        ("how many pills would it take, i have a whole bottle", "suicide_self_harm"),
        ("my heart rate is crazy i took too many pills", "medical_emergency_overdose"),
        # A means made ready, cutting said in Spanish, a goodbye as the last message (LABELING.md's indirect forms).
        ("si no encuentro nada pal viernes ya tengo la soga lista, ni modo", "suicide_self_harm"),
        ("me corto pa sentir algo. desde que sali lo hago mas seguido", "suicide_self_harm"),
        ("tell ms brenda thank you for everything. this is my last message", "suicide_self_harm"),
        ("este es mi ultimo mensaje. gracias por todo", "suicide_self_harm"),
        (
            "can i walk in at the pantry. not that it matters, i dont plan on being around next week",
            "suicide_self_harm",
        ),
        ("ayudan con el GED? bueno olvidenlo ya no tiene caso ya no voy a estar", "suicide_self_harm"),
        # The idiom's exceptions do not swallow a threat or a hit.
        ("my girl is gonna kill me if i dont come home tonight, she has a gun", "domestic_violence"),
        ("mi jefa me va a matar si no llego hoy, trae la pistola", "immediate_danger"),
        ("mi esposo me pego anoche y tengo miedo", "domestic_violence"),
        ("ya no aguanto la chamba, ya no quiero vivir", "suicide_self_harm"),
        # Living on the street, said without a street name after it.
        ("estoy en la calle desde el lunes, donde me quedo", "housing_emergency"),
        ("duermo en la calle cerca del puente", "housing_emergency"),
    ],
)
def test_it_detects_the_crises_real_people_write(text: str, category: str) -> None:
    result = detect_crisis(text)
    assert result.category == category
    assert result.is_crisis
    assert result.severity != "none"
    assert result.spans


@pytest.mark.parametrize(
    "text",
    [
        "this job search is killing me lol",
        "I want to kill this interview",
        "I used to feel suicidal, doing better now, need a job",
        "im dead 💀 my PO really said that",
        "i have a sexual assault charge from 2009 where can i live",
        "I'm not suicidal, just need help getting my ID",
        "ya no quiero vivir con mi suegra, busco apartamento en Laredo",
        "i want to end my parole early, is that possible",
        "my girl said she'll kill me if i'm late again haha",
        "I almost killed myself laughing at my PO's tie lol",
        "my parole officer asked if I have thoughts of hurting myself, I said no, do they write that down?",
        "they kicked me out of the parole office bc i was late, what do i do",
        "killing myself doing day labor in round rock, any steady jobs",
        "mi jefa me va a matar si llego tarde otra vez",
        "ay me va a matar mi ama, se me olvidaron las tortillas",
        "my wife is gonna kill me if i miss dinner again",
        "what percent of people overdose in the first two weeks after release",
        "my phone is about to die, ill text back later",
        "me quiero morir de la verguenza si mi hija ve mi foto",
        "me quiero morir de la verguenza, llegue a mi cita un dia antes",
        "me quiero morir de la emocion, mi hija se gradua el sabado",
        "how many guys coming out end up overdosing in the first month, whats the actual rate",
        "the news said overdoses went up again, where do i get test strips",
        "mi sobrino intento quitarse la vida el ano pasado, ya esta mejor, hay terapia",
        "vivo en la calle Guadalupe 1817, me mandan la info por correo",
        "ok this is my last message for today, my phone is dying",
        "este es mi ultimo mensaje de hoy, gracias",
        "me corto el pelo en la barberia de la esquina, aceptan a gente con record?",
        "necesito una cuerda para tender la ropa en el cuarto",
        "i dont plan on being around the old neighborhood, can parole move me",
        "i wont be around next week, im visiting my mom in tyler with a travel permit",
        "ya no voy a estar en el programa de la iglesia, donde mas dan comida",
        "mi jefa me va a matar si no le llevo los papeles de la escuela hoy, donde imprimo gratis?",
        "my mom is gonna murder me if i dont get this child support thing sorted before she gets back",
        "me pego la gripa bien fuerte pero ya voy mejorando, puedo faltar a mi clase de probation?",
        "ya no aguanto la chamba en el restaurante jaja, hay trabajos en bodega?",
        # An address: the street has a name ("vivo en la calle Alameda" is where, not how, someone lives).
        "vivo en la calle Alameda por el westside, hay despensa cerca",
    ],
)
def test_it_does_not_flag_idioms_history_negation_or_charges(text: str) -> None:
    assert detect_crisis(text).category == "none"


def test_asking_how_to_help_a_friend_is_not_a_crisis_but_a_report_still_routes_to_988() -> None:
    # LABELING.md: "how to help a friend who talks about suicide" is `none` (need health).
    assert detect_crisis("how do I help my friend who wants to end it").category == "none"
    assert detect_crisis("como le ayudo a mi carnal, dice que se quiere matar").category == "none"
    # ...but not when it is happening now, and never for the writer's own words after "he" (Spanish "I have").
    assert detect_crisis("how do i help my friend, he wants to end it tonight").category == "suicide_self_harm"
    assert detect_crisis("he pensado mucho en quitarme la vida, que hago").category == "suicide_self_harm"
    result = detect_crisis("my daughter said she wants to kill herself, shes 16")
    assert result.category == "suicide_self_harm"
    assert result.about_third_party is True
    handoff = handoff_for(result.category, "en")
    assert any(line.phone == "988" for line in handoff.lines)
    assert "988" in handoff.text


def test_it_treats_the_writer_as_the_person_at_risk_by_default() -> None:
    assert detect_crisis("i want to kill myself").about_third_party is False
    assert detect_crisis("my brother keeps saying he wants to kill himself").about_third_party is True


def test_not_wanting_to_live_is_a_crisis_but_not_wanting_to_die_is_not() -> None:
    assert detect_crisis("i dont want to live anymore").category == "suicide_self_harm"
    assert detect_crisis("I dont want to die in this halfway house lol").category == "none"


def test_a_plan_or_means_makes_it_imminent_and_passive_ideation_elevated() -> None:
    assert detect_crisis("i been saving pills").severity == "imminent"
    assert detect_crisis("thinking about ending it tonight").severity == "imminent"
    assert detect_crisis("whats the point anymore").severity == "elevated"
    assert detect_crisis("he's not breathing he took something").severity == "imminent"


def test_violence_keeps_its_line_when_it_causes_a_medical_emergency() -> None:
    result = detect_crisis("my boyfriend strangled me till i passed out")
    assert result.category == "domestic_violence"
    assert result.severity == "imminent"  # still 911-level


def test_a_threat_is_domestic_violence_from_a_partner_and_danger_from_a_stranger() -> None:
    assert detect_crisis("my ex is stalking me and said hes gonna kill me").category == "domestic_violence"
    assert detect_crisis("some dudes said theyre gonna kill me when they see me").category == "immediate_danger"
    # A small slip as the trigger is the idiom; leaving, or a weapon or an earlier attack, keeps the threat.
    assert detect_crisis("mi esposo dice que me va a matar si me voy").category == "domestic_violence"
    assert detect_crisis("mi esposo me va a matar si llego tarde, ya me pego antes").category == "domestic_violence"


def test_violence_from_the_persons_own_relative_is_danger_and_from_a_partners_relative_is_domestic() -> None:
    # LABELING.md: a partner, or a partner's relative acting for them, is domestic violence; anyone else,
    # a relative of the person's own included, is immediate danger.
    for text in (
        "my stepdad said hes gonna kill me when i get home",
        "mi padrastro me pego con el cinto otra vez",
        "mi cuñado llego con un machete diciendo que me va a matar",
        "my dad hits me when he drinks",
    ):
        assert detect_crisis(text).category == "immediate_danger", text
    for text in ("mi esposo me pega", "my girlfriends brother said he will kill me if i go near her"):
        assert detect_crisis(text).category == "domestic_violence", text


def test_wishing_one_had_not_survived_is_suicide_even_about_a_past_event() -> None:
    for text in (
        "wish i didnt make it when i got stabbed in county",
        "sometimes i wish they had let me die when i ODd last year",
        "ojalá me hubiera muerto en el accidente",
    ):
        assert detect_crisis(text).category == "suicide_self_harm", text
    for text in ("i wish they let me go early from work", "i wish i made it to the interview on time"):
        assert not detect_crisis(text).is_crisis, text


def test_suicide_outranks_other_categories_in_one_message() -> None:
    result = detect_crisis("im sleeping in my car and i want to die")
    assert result.category == "suicide_self_harm"
    assert result.categories == ("suicide_self_harm", "housing_emergency")


def test_a_past_sexual_assault_still_routes_to_rainn_at_lower_severity() -> None:
    result = detect_crisis("i was raped in prison in 2010 and now i need a counselor that understands")
    assert result.category == "sexual_assault"
    assert result.severity == "elevated"


@pytest.mark.parametrize(
    "text",
    [
        "k1ll mys3lf",
        "s u i c i d e",
        "k.i.l.l m.y.s.e.l.f",
        "i want to d\u200bie",
        "I WANT TO DIE",
        "\uff49 \uff57\uff41\uff4e\uff54 \uff54\uff4f \uff44\uff49\uff45",  # fullwidth
        "i want to k\u0456ll mys\u0435lf",  # Cyrillic i and ie
        "i wanna diiiiie",
        "kms",
    ],
)
def test_obfuscation_does_not_hide_a_suicide_signal(text: str) -> None:
    assert detect_crisis(text).category == "suicide_self_harm"


def test_spans_point_into_the_normalized_text() -> None:
    text = "Honestly... I just want to DIE tonight"
    norm = normalize(text)
    result = detect_crisis(text)
    assert result.spans
    for start, end, matched in result.spans:
        assert norm[start:end] == matched


@pytest.mark.parametrize(
    "text", ["", "   ", "\n\t", "😀😀😀", "\ud800", "a\udfffb", "\u200b\u200c\ufeff", "x" * 20_000, "1" * 20_000]
)
def test_bad_input_is_no_crisis_and_never_raises(text: str) -> None:
    result = detect_crisis(text)
    assert result == CrisisResult()
    assert not result.is_crisis


def test_a_crisis_at_the_end_of_a_20k_message_is_still_found() -> None:
    text = "blah " * 3_990 + "i want to kill myself"
    assert len(text) > 19_900
    assert detect_crisis(text).category == "suicide_self_harm"


# --- combine_crisis: a second opinion can only escalate ------------------------------------------


class Opinion:
    def __init__(self, category: str, severity: str) -> None:
        self.category = category
        self.severity = severity


def test_a_model_cannot_downgrade_a_rule_hit() -> None:
    rules = detect_crisis("i want to kill myself")
    for opinion in (
        None,
        Opinion("none", "none"),
        Opinion("housing_emergency", "elevated"),
        Opinion("suicide_self_harm", "elevated"),
    ):
        combined = combine_crisis(rules, opinion)
        assert combined.category == "suicide_self_harm"
        assert SEVERITIES.index(combined.severity) >= SEVERITIES.index(rules.severity)


def test_a_model_can_add_a_crisis_the_rules_missed() -> None:
    combined = combine_crisis(detect_crisis("hi, how do i get my ID"), Opinion("suicide_self_harm", "high"))
    assert combined.category == "suicide_self_harm"
    assert combined.severity == "high"
    assert combined.source == "model"


def test_a_more_urgent_model_opinion_reroutes_but_keeps_the_rules_category() -> None:
    rules = detect_crisis("sleeping under the bridge tonight")
    combined = combine_crisis(rules, Opinion("suicide_self_harm", "imminent"))
    assert combined.category == "suicide_self_harm"
    assert combined.severity == "imminent"
    assert "housing_emergency" in combined.categories
    assert combined.spans == rules.spans


def test_a_malformed_model_opinion_is_ignored_or_read_conservatively() -> None:
    rules = detect_crisis("whats the point anymore")
    assert combine_crisis(rules, Opinion("made_up", "imminent")) == rules
    assert combine_crisis(rules, object()) == rules  # type: ignore[arg-type]
    none = detect_crisis("hello")
    assert combine_crisis(none, Opinion("domestic_violence", "bogus")).severity == "elevated"


def test_every_category_and_severity_is_one_the_workflow_knows() -> None:
    assert set(CRISIS_CATEGORIES) == {
        "suicide_self_harm",
        "domestic_violence",
        "medical_emergency_overdose",
        "immediate_danger",
        "sexual_assault",
        "housing_emergency",
    }
    assert SEVERITIES == ("none", "elevated", "high", "imminent")


@pytest.mark.parametrize(
    "text",
    [
        "my dad said hes gonna kill me when he gets home tonight",
        "mi primo me dijo que me van a matar si no les pago la deuda, es para hoy",
        "my mom is gonna kill me with that knife she has",
        "im going to kill myself in 20 minutes",
    ],
)
def test_a_threat_or_a_plan_is_not_mistaken_for_an_idiom(text: str) -> None:
    assert detect_crisis(text).category != "none"


@pytest.mark.parametrize(
    "text",
    [
        "how do i know if someone is suicidal? my roommate has been giving stuff away",
        'my cousin keeps saying "i wanna die" about everything, like the traffic. is that normal',
        "I lead a grief group for people who lost someone to overdose. Do you have materials?",
        "Pregunta general: te pueden arrestar si llamas al 911 porque un amigo tiene una sobredosis?",
        "stats on suicide rates for people after prison?",
        "hace mucho tiempo que me violaron, ya lo hable en terapia y estoy mejor. busco un grupo de apoyo",
        "salgo del halfway house en dos semanas y no tengo donde vivir, hay programas de renta?",
        "if a shelter is full can they send you to another one? asking for next month planning",
        "mi PO dice que me viola si no pago el programa, es legal?",
    ],
)
def test_help_questions_quotes_groups_later_housing_and_parole_violations_are_not_crises(text: str) -> None:
    assert detect_crisis(text).category == "none"


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("i was raped years ago and i still have flashbacks, is there a support group", "sexual_assault"),
        ("my friend lost his brother to overdose and he is not breathing right now", "medical_emergency_overdose"),
        (
            "tengo que salir del albergue hoy y no tengo donde dormir, el mes que entra tengo trabajo",
            "housing_emergency",
        ),
        ("my friend keeps saying he will kill himself tonight", "suicide_self_harm"),
        ("me violaron anoche en el albergue", "sexual_assault"),
    ],
)
def test_the_new_cancellations_keep_what_is_happening_now(text: str, category: str) -> None:
    assert detect_crisis(text).category == category


@pytest.mark.parametrize(
    "text",
    [
        "ugh this heat is killing me, is there a cooling center in el paso",
        "me voy a morir de sed en esta cola, cuanto falta pa que abran",
        "been killing myself at the gym, any free clinic for a checkup",
        "the GED exam is gonna kill me, any free tutors around",
        "my kids are gonna murder me if i skip their recital, can i get a bus pass",
        "my grandma will kill me if i miss her birthday, can i travel to see her",
        "me violaron por faltar a una cita con el PO, que sigue en la audiencia",
        "si no pago las cuotas mi oficial me viola, hay ayuda con eso",
        "si llego tarde a la cita con el oficial me violan?",
        "my cousin talks about killing himself sometimes, he isn't in danger right now but what resources can i give him",
        "mi hermano dice que se quiere matar pero ahorita esta con mi tia y esta tranquilo, quiero ayudarlo",
        "eviction notice came but not tonight, they gave me 30 days to leave. where do i get legal help",
        "cuando estaba en el condado un compa casi se muere de sobredosis, ya paso. como me capacito pa narcan",
    ],
)
def test_figures_of_speech_violations_and_calm_third_parties_are_not_crises(text: str) -> None:
    assert detect_crisis(text).category == "none", text


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("my boyfriend is gonna kill me if i leave tonight", "domestic_violence"),
        ("my brother says he wants to kill himself and hes alone right now, how can i help him", "suicide_self_harm"),
        ("whats the point of the GED if im gonna kill myself anyway", "suicide_self_harm"),
        ("not tonight but tomorrow im going to end my life", "suicide_self_harm"),
    ],
)
def test_the_new_cancellations_leave_real_crises_alone(text: str, category: str) -> None:
    assert detect_crisis(text).category == category, text


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("honestly they'd all be better off w/o me, im such a burden", SUICIDE),
        ("i feel like a burden to everyone since i got out", SUICIDE),
        ("my son got into my methadone and he's real sleepy, what do i do", MEDICAL),
        ("mi hija se comio unas de mis pastillas y anda muy dormida", MEDICAL),
        ("my husband reads all my texts so i'm writing from my cousin's phone", DV),
        ("mi novio revisa todos mis mensajes y me quita el cel", DV),
    ],
)
def test_a_burden_a_child_into_medication_and_a_partner_watching_messages_are_crises(text: str, category: str) -> None:
    assert detect_crisis(text).category == category


@pytest.mark.parametrize(
    "text",
    [
        "i feel like a burden on my parole officer lol, can i switch offices",
        "my wife checks my phone because i asked her to keep me accountable",
        "nobody has threatened me, i just want a quieter room at the halfway house",
        "i od'd twice before prison, 4 years sober now, where do i get narcan for the house",
        "last time i got out i overdosed the first week, this time i want a MAT program",
        "when i was at the unit a girl in my dorm hurt herself, is there counseling for feeling guilty about it",
        "my buddy says he has nowhere to sleep tonight in dallas, how can i help him from here",
    ],
)
def test_a_past_overdose_a_denied_threat_and_someone_elses_bed_are_not_crises(text: str) -> None:
    assert detect_crisis(text).category == NO_CRISIS


def test_a_friend_without_a_bed_is_still_a_crisis_when_the_writer_has_none_either() -> None:
    assert (
        detect_crisis("my friend and i have nowhere to sleep tonight in dallas, how can i help him").category == HOUSING
    )


@pytest.mark.parametrize(
    ("text", "category"),
    [
        ("my ex keeps showing up at the warehouse where i work, how do i get a protective order", DV),
        ("mi exnovio sabe donde vivo y me dijo que me va a ir a buscar", DV),
        ("my boyfriend is banging on the door right now and i locked myself in", DV),
        ("somebody is banging on my door rn yelling my name", DANGER),
        ("they left a note on my windshield that said we know you're out", DANGER),
        ("i had two seizures today, ran out of my keppra on release", MEDICAL),
        ("got jumped yesterday and now im coughing up blood", MEDICAL),
        ("where can i get a rape kit done, it happened last night", ASSAULT),
        ("me corrieron del cuarto que rentaba hoy y ya no tengo a donde ir", HOUSING),
        ("ok last text. thanks for everything", SUICIDE),
        ("i should have died when they found me in county", SUICIDE),
        ("ya no aguanto a mi vecino, traigo el cuchillo y lo voy a esperar", SUICIDE),
    ],
)
def test_stalking_by_an_ex_a_door_forced_injuries_after_a_fight_and_a_goodbye_are_crises(
    text: str, category: str
) -> None:
    assert detect_crisis(text).category == category, text


@pytest.mark.parametrize(
    "text",
    [
        "my cousin overdosed while i was locked up, how do i talk to his kids about it",
        "mi tio se murio de sobredosis en el 2021, hay grupos de duelo en dallas",
        "im interviewing people about suicide for a class, what resources can i list",
        "ya no aguanto a mis compañeros del halfway, roncan toda la noche, hay otro lugar?",
        "mi hermano dice que ya no quiere vivir, como le hago para que vea a un psicologo",
        "if this form asks for my SID one more time im walking into traffic lol jk",
        "me voy a morir de la fila en el seguro social, cuanto tarda esto",
        "my neighbor left a note on my car about parking, can he tow me",
        "doctor said with my blood pressure i should have died years ago, now im fine, need a refill",
        "me sacaron del halfway house porque ya tengo trabajo y ahora vivo con mi hermana",
    ],
)
def test_a_past_death_a_class_venting_about_roommates_a_joke_and_a_note_about_parking_are_not_crises(
    text: str,
) -> None:
    assert detect_crisis(text).category == NO_CRISIS, text
