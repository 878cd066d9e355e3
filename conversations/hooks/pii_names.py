"""Person names after the cues people use in texts: self-introductions, relations, titles and addressees.

"my name is" is unambiguous, so any words after it are taken. Weaker cues ("I'm", "soy", "my PO",
"Officer", "ask for") take a word only when it looks like a name: capitalised and not an ordinary
word, or a known given name or surname (Faker's en_US/es_MX/es_ES lists, loaded once on first use).
Prepositions end the name, so "I'm in Tyler" and "soy de Laredo" keep the city for the region lookup.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Final

__all__ = [
    "NOT_NAME_WORDS",
    "block_names",
    "echo_spans",
    "is_place_name",
    "known_name_word",
    "name_spans",
    "neighbour_spans",
    "place_names_register",
    "place_spans",
]


# Strong cues: whatever follows is the name.
_STRONG: Final = re.compile(
    r"\b(?:my\s+(?:full\s+)?name(?:\s+is|'s|\u2019s|s)|(?<!the\s)name\s+is|me\s+llamo|mi\s+nombre\s+es|"
    r"mi\s+nombre:|my\s+name:|se\s+llama|my\s+name's|(?m:^[ \t]*(?:full\s+)?name:|^[ \t]*nombre:))[ \t]+",
    re.IGNORECASE,
)
# Self-introductions: "I'm John Smith", "soy maria lopez", "this is Angela", "habla Verónica", "everyone calls me Emily".
_INTRO: Final = re.compile(
    r"(?:\b(?:i\s*['\u2019]?\s*m|i\s+am|soy|habla|hablas?\s+con|call(?:s|ed)?\s+me|go(?:es)?\s+by|me\s+dicen)\s+"
    r"|(?:^|[.!?]\s+|\b(?:hi|hey|hello|hola|yes|yeah|si|sí|ok)[,!.]?\s+)(?:this\s+is|it'?s|its|es)\s+)",
    re.IGNORECASE,
)
_RELATIONS: Final = (
    r"(?:(?:po|parole|probation)\s+)?(?:officer|agent)|po|caseworker|case\s*manager|case\s*worker|lawyer|"
    r"attorney|counselor|counsellor|sponsor|pastor|mentor|therapist|doctor|nurse|boss|supervisor|landlord|"
    r"mom|mother|mama|mamá|momma|dad|father|papa|papá|brother|bro|sister|sis|son|daughter|wife|husband|"
    r"boyfriend|girlfriend|fianc[eé]e?|partner|cousin|aunt|auntie|uncle|nephew|niece|grandma|grandmother|"
    r"granny|grandpa|grandfather|grandson|granddaughter|friend|homie|homeboy|cellmate|celly|bunkie|roommate|"
    r"neighbor|stepdad|stepmom|stepson|stepdaughter|baby\s*mama|baby\s*daddy|ex|"
    r"oficial(?:\s+de\s+(?:parole|libertad\s+condicional|probatoria))?|agente(?:\s+de\s+parole)?|"
    r"abogad[oa]|trabajador[a]?\s+social|consejer[oa]|patr[oó]n|jef[ea]|"
    r"madre|padre|hermano|hermana|hij[oa]|espos[oa]|novi[oa]|prim[oa]|t[ií][oa]|sobrin[oa]|abuel[oa]|"
    r"nieto|nieta|amig[oa]|compa|suegr[oa]|cuñad[oa]|vecin[oa]|viej[oa]|ruca|carnal|pareja|ex\s+pareja|"
    r"mother'?s|father'?s"
)
_RELATION: Final = re.compile(
    rf"\b(?:my|mi|mis|her|his|our|su|tu|your|me\s+and\s+my|the)\s+(?:{_RELATIONS})(?:\s+(?:is|es|named|called|se\s+llama))?\s+",
    re.IGNORECASE,
)
# A title says a surname follows ("Officer Johnson", "Ms. Ramirez", "Sra. Cantú", "el licenciado Ortega").
_TITLE: Final = re.compile(
    r"\b(?:mr|mrs|ms|miss|dr|sr|sra|srta|lic|officer|oficial|pastor|agent|agente|sgt|sergeant|"
    r"licenciad[oa]|se[ñn]ora|se[ñn]or|do[ñn]a|don|judge|juez|coach|brother|sister|father|padre)\.?\s+",
    re.IGNORECASE,
)
# Addressee cues: "ask for Deborah", "talked to Karen Miller", "dile a Adriana", "hablé con Norma".
_ADDRESSEE: Final = re.compile(
    r"\b(?:ask\s+for|asked\s+for|talk\s+to|talked\s+to|spoke\s+(?:to|with)|speak\s+(?:to|with)|tell|told|"
    r"call|text|please\s+tell|dile\s+a|d[ií]gale\s+a|pregunten?\s+por|pregunta\s+por|habl[eé]\s+con|"
    r"hablar\s+con|con\s+la\s+se[ñn]ora|con\s+el\s+se[ñn]or|de\s+mi\s+(?:mam[aá]|hermana|hermano))\s+",
    re.IGNORECASE,
)
_WORD: Final = re.compile(r"[^\W\d_][^\W\d_'\u2019\-]*(?:['\u2019\-][^\W\d_]+)*\.?")
_GAP: Final = re.compile(r"[ \t]+")
_PARTICLES: Final = frozenset({"de", "la", "del", "los", "las", "van", "von", "da", "di", "le", "st", "o'"})
_OPENING_PARTICLES: Final = frozenset({"de", "del", "van", "von", "da", "di", "la", "le"})
_SUFFIXES: Final = frozenset({"jr", "sr", "ii", "iii", "iv"})
_TITLE_WORDS: Final = frozenset(
    """mr mrs ms miss dr sr sra srta lic officer oficial pastor agent agente sgt sergeant licenciado licenciada
    señora senora señor senor doña dona don judge juez coach la el""".split()
)
# Words that follow the cues and are not names (English and Spanish), capitalised or not.
_STOP: Final = frozenset(
    """a an the and or but so if then than to of in on at for with from by about into over near around outside
    is was are am be been being were will would can could should shall may might must do does did done
    have has had having get got getting gonna wanna gotta going go went gone come came coming
    i i'm im me my mine you your he him his she her they them their we us our it its it's this that these those
    here there where when what who why how which not no yes yeah yep nope ok okay please pls thanks thank hi hey hello dear
    just really very still also only even never always already again too now today tonight tomorrow yesterday
    sorry tired scared afraid worried sick hungry homeless broke lost stuck confused ready done fine good bad
    okay new old free out back home sure glad happy sad angry mad calling texting writing looking trying
    asking wondering hoping needing living staying sleeping working waiting leaving moving staying
    released paroled locked out homeless single pregnant disabled black white hispanic latino latina mexican
    american christian catholic veteran felon inmate offender parolee ex con convict
    said says told asked wants wanted needs needed called left gave gives got took takes makes made
    lives lived works worked knows knew thinks think say tell ask want need like love hate help
    one two three four five six seven eight nine ten first last next every all any some many much more most
    mom dad son daughter wife husband brother sister friend family kids kid baby children
    monday tuesday wednesday thursday friday saturday sunday january february march april june july august
    september october november december
    office unit jail prison court parole probation halfway house shelter program church clinic hospital
    hhsc tdcj dps twc ssa hud snap wic ssi ssdi medicaid medicare cps dfps fbi cid id dl po pd
    y e o u de del la las los el en con sin por para que qué pero pues como cómo cuando cuándo donde dónde
    es era fue soy eres son está esta estoy estás están estaba tengo tiene tienen tenía hay voy va vamos
    mi mis tu tus su sus me te se le les lo nos yo él ella ellos ellas usted ustedes un una unos unas
    muy más mas ya no sí si también tampoco nada algo todo todos aquí aqui allá alla ahorita ahora hoy
    mañana ayer bien mal nuevo nueva nuevos solo sola madre padre mamá mama papá papa hijo hija hijos
    ciudadano ciudadana mexicano mexicana latino americano residente ilegal indocumentado casado casada
    soltero soltera viudo viuda divorciado divorciada pobre enfermo enferma
    necesito quiero busco puedo salí sali acabo ando estuve tuve dijo dice habló hablo llamó llame
    porque pq pa pal al lunes martes miércoles miercoles jueves viernes sábado sabado domingo
    enero febrero marzo abril mayo junio julio agosto septiembre octubre noviembre diciembre
    oficina cárcel carcel prisión prision corte unidad casa refugio albergue programa iglesia clínica
    clinica hospital trabajo comida ayuda dinero papeles ex preso reo persona gente señora señor pareja
    charities catholic""".split()
)
NOT_NAME_WORDS: Final = _STOP
# A capitalised word that is only an agency, place word or ordinary word stays (cities stay for routing).
_NOT_NAME_CAPS: Final = re.compile(r"[A-Z]{2,6}s?")


@lru_cache(maxsize=1)
def _lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """Given names and surnames from Faker (pinned), lower-cased; ordinary words are removed."""
    from faker.providers.person.en_US import Provider as English  # noqa: PLC0415 - Faker's name lists load once, on first use
    from faker.providers.person.es_ES import Provider as Spain  # noqa: PLC0415 - Faker's name lists load once, on first use
    from faker.providers.person.es_MX import Provider as Mexico  # noqa: PLC0415 - Faker's name lists load once, on first use

    given: set[str] = set()
    family: set[str] = set()
    for provider in (English, Mexico, Spain):
        for attr in ("first_names", "first_names_male", "first_names_female"):
            names = getattr(provider, attr, ())
            given.update(n.lower() for n in (names.keys() if isinstance(names, dict) else names))
        names = getattr(provider, "last_names", ())
        family.update(n.lower() for n in (names.keys() if isinstance(names, dict) else names))
    return frozenset(given - _STOP), frozenset(family - _STOP)


@lru_cache(maxsize=1)
def _wide_lexicon() -> tuple[frozenset[str], frozenset[str]]:
    """Given names and surnames from every Faker person locale in Latin script, less ordinary words.

    Wider than `_lexicon` (people texting Pathways come from everywhere), so it is used only where a
    second signal agrees: a known surname after a known given name, a name line, a cue word before it.
    spaCy's English and Spanish stop-word lists remove the names that are also function words ("Will", "Can").
    """
    import importlib  # noqa: PLC0415 - Faker's locale modules load once, on first use
    import pkgutil  # noqa: PLC0415 - same

    from faker.providers import person  # noqa: PLC0415 - same
    from spacy.lang.en.stop_words import STOP_WORDS as EN_STOP  # noqa: PLC0415 - same
    from spacy.lang.es.stop_words import STOP_WORDS as ES_STOP  # noqa: PLC0415 - same

    given: set[str] = set()
    family: set[str] = set()
    for module in pkgutil.iter_modules(person.__path__):
        provider = importlib.import_module(f"{person.__name__}.{module.name}").Provider
        for attr, into in (
            ("first_names", given),
            ("first_names_male", given),
            ("first_names_female", given),
            ("last_names", family),
        ):
            names = getattr(provider, attr, ())
            if isinstance(names, (dict, list, tuple, set, frozenset)):
                into.update(n.lower() for n in names if _LATIN.fullmatch(n))
    drop = _STOP | EN_STOP | ES_STOP | _NOT_NAME_EXTRA
    base_given, base_family = _lexicon()
    return frozenset((given | base_given) - drop), frozenset((family | base_family) - drop)


_LATIN: Final = re.compile(r"[A-Za-zÀ-ÖØ-öø-ɏ][A-Za-zÀ-ÖØ-öø-ɏ'\-]+")
# Faker names that are mostly ordinary words or places in these messages.
_NOT_NAME_EXTRA: Final = frozenset(
    """art june april august hope love park job will may rose grant mark bill faith grace joy summer
    texas dallas houston austin tyler victoria laredo irving marshall paris lincoln jackson
    county city street road court center north south east west new san santa""".split()
)


def known_name_word(word: str) -> bool:
    """True when `word` is in the wide given-name or surname lists (any Latin-script Faker locale)."""
    given, family = _wide_lexicon()
    low = word.lower()
    return low in given or low in family


def _looks_like_name(word: str, lexicon_only: bool = False) -> bool:
    bare = word.rstrip(".")
    low = bare.lower()
    if low in _STOP or not bare:
        return False
    given, family = _lexicon()
    if low in given or low in family:
        return True
    if lexicon_only:
        return False
    if _NOT_NAME_CAPS.fullmatch(bare):  # TDCJ, HHSC, DPS: agencies, not people
        return False
    return bare[0].isupper() and len(bare) > 1


def _take(text: str, pos: int, strong: bool) -> int:
    """End of the name starting at `pos` (== pos when none): up to four words, particles inside."""
    end = pos
    taken = 0
    pending = pos
    while taken < 4:
        m = _WORD.match(text, pending)
        if not m:
            break
        word = m.group(0)
        low = word.lower().rstrip(".")
        # "Mr. De Luca": a capitalised particle may open a surname after a title.
        if low in _PARTICLES and (taken or (word[0].isupper() and low in _OPENING_PARTICLES)):
            # "Juan de la Cruz": a particle only counts when a name word follows it.
            gap = _GAP.match(text, m.end())
            following = _WORD.match(text, gap.end()) if gap else None
            # "Yesenia Garza de Laredo": a registered city after "de" is where the person is from.
            if gap and following and not is_place_name(following.group(0).rstrip(".")):
                pending = gap.end()
                continue
            break
        if strong:
            ok = low not in _STOP or (taken and low in _SUFFIXES)
        else:
            ok = _looks_like_name(word) or (taken > 0 and low in _SUFFIXES)
        if not ok:
            break
        if word.endswith(".") and low not in _SUFFIXES and low not in _TITLE_WORDS and len(low) > 1:
            end = m.end() - 1  # the full stop ends the sentence, not the name
            break
        end = m.end()
        taken += 1
        gap = _GAP.match(text, end)
        if not gap:
            break
        pending = gap.end()
    return end


def _skip_titles(text: str, pos: int) -> int:
    while True:
        m = _TITLE.match(text, pos)
        if not m:
            return pos
        pos = m.end()


# A known given name, an optional initial, and a capitalised surname, in any context: "Matej Jurković",
# "Sue D Hague". Place words after it ("Tyler Junior College", "Austin Street") veto it.
_FULL_NAME: Final = re.compile(
    r"(?<![\w'\-])([A-ZÀ-ÖØ-Þ\u0100-\u017f][a-zß-öø-ÿ\u0100-\u017f'\-]+)\s+(?:[A-Z]\.?\s+)?(?:(?:van|von|de|del|la|da|di)\s+)?"
    r"([A-ZÀ-ÖØ-Þ\u0100-\u017f][\w'\-]*[a-zß-öø-ÿ\u0100-\u017f][\w'\-]*)"
)
_PLACE_AFTER: Final = re.compile(
    r"\s*(?:,\s*)?(?:st|street|rd|road|ave|avenue|blvd|dr|drive|ln|lane|county|co|tx|texas|unit|center|centre|"
    r"clinic|hospital|church|office|park|library|station|shelter|house|jail|prison|ministries|university|"
    r"college|school|foundation|inc|llc|ltd|corp|company|high|middle|elementary|junior|memorial|health|"
    r"medical|baptist|methodist|catholic|lake|river|hills?|heights|city|square|plaza|mall|market|services?)\b",
    re.IGNORECASE,
)


_SAINT_BEFORE: Final = re.compile(r"\b(?:st|saint|san|santa|sto|mount|mt|fort|ft|port|lake)\.?\s+$", re.IGNORECASE)


def _full_names(text: str) -> list[tuple[int, int]]:
    given, _family = _lexicon()
    wide_given, wide_family = _wide_lexicon()
    spans = []
    for m in _FULL_NAME.finditer(text):
        first, last = m.group(1), m.group(2)
        if not (first[0].isupper() and last[0].isupper()):
            continue
        initial = m.group(0).count(" ") >= 2 and re.search(r"\s[A-Z]\.?\s", m.group(0)) is not None
        known = first.lower() in given or (first.lower() in wide_given and (last.lower() in wide_family or initial))
        # "Anes T Ivarsson", "Leif I. Ranheim": a middle initial between two capitalised words is a name.
        if initial and first.lower() not in NOT_NAME_WORDS and not _NOT_NAME_CAPS.fullmatch(first):
            known = True
        if not known or last.lower() in _STOP or first.lower() in _STOP:
            continue
        if _NOT_NAME_CAPS.fullmatch(last) or _PLACE_AFTER.match(text, m.end()) or _PLACE_AFTER.fullmatch(last):
            continue
        if _SAINT_BEFORE.search(text, max(0, m.start() - 8), m.start()):
            continue
        spans.append((m.start(), m.end()))
    return spans


# A known given name doing something a person does: "Carol is a very sympathetic person", "said Ana to Jeremy".
_GIVEN_CUE: Final = re.compile(
    r"(?<![\w'\-])([A-ZÀ-ÖØ-Þ\u0100-\u017f][a-zß-öø-ÿ\u0100-\u017f'\-]+)(?=\s+(?:is|was|were|had|has|lives|lived|will|spent|said|says|told|"
    r"explained|wants|needs|works|worked|called|texted|went|got|began|just\s+has|and\s+I|es|vive|dijo|tiene|está)\b"
    r"|\s*:|'s\b|\u2019s\b|,\s+can\s+I\b|\s+(?:and|y)\s+[A-ZÀ-ÖØ-Þ\u0100-\u017f][\w'\-]+\s+(?:were|are|son|fueron)\b)"
    r"|\b(?:said|says|named|to|with|leave\s+me|him|her|told|dear|hi|hey|thanks|gracias|hola|querida|querido|"
    r"call\s+me|directed\s+by|starring|features|add|my\s+(?:kid|son|daughter|child)|but|and|last\s+name\?|"
    r"\d+:)\s+([A-ZÀ-ÖØ-Þ\u0100-\u017f][a-zß-öø-ÿ\u0100-\u017f'\-]+)(?![\w'\-])"
)
# A line that is only a name, as at the top of an address block or under a text: "Cerys Christie".
_NAME_LINE: Final = re.compile(
    r"(?m)^[ \t}{>]*([A-ZÀ-ÖØ-Þ\u0100-\u017f][\w'\-]+(?:\s+[A-Z]\.?)?(?:\s+(?:van|von|de|del|la|da|di))?(?:\s+[A-ZÀ-ÖØ-Þ\u0100-\u017f][\w'\-]+){1,2})[ \t]*$"
)


def _cued_given(text: str) -> list[tuple[int, int]]:
    given, family = _wide_lexicon()
    spans = []
    for m in _GIVEN_CUE.finditer(text):
        group = 1 if m.group(1) else 2
        word = m.group(group)
        low = word.lower()
        if not word[0].isupper() or low in _STOP or _PLACE_AFTER.match(text, m.end(group)):
            continue
        # After "to", "with", "and" or "but" a surname alone is too often a city ("moved to Houston").
        loose = group == 2 and m.group(0).split()[0].lower() in ("to", "with", "and", "but")
        if (low in given and not (loose and low in _NOT_NAME_EXTRA)) or (low in family and not loose):
            spans.append((m.start(group), m.end(group)))
    for m in _NAME_LINE.finditer(text):
        words = m.group(1).split()
        known = words[0].lower() in given or words[-1].lower() in family
        if known and not _PLACE_AFTER.fullmatch(words[-1]) and not any(w.lower() in _STOP for w in words):
            spans.append((m.start(1), m.end(1)))
    return spans


def echo_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Other occurrences of the words of names already found: "Luiz had given Luiz his address"."""
    words = set()
    for start, end in spans:
        for w in _WORD.findall(text[start:end]):
            bare = w.rstrip(".")
            if len(bare) > 2 and bare[0].isupper() and bare.lower() not in _STOP and bare.lower() not in _TITLE_WORDS:
                words.add(bare)
    if not words:
        return []
    pattern = re.compile(
        r"(?<![\w'\-])(?:" + "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True)) + r")(?![\w\-])"
    )
    return [(m.start(), m.end()) for m in pattern.finditer(text)]


# A capitalised word joined to a name: the rest of the same name ("Abelino [NAME]", "Anne-[NAME]", "[NAME] Miki")
# or the next one of a list ("Cettina, [NAME], [NAME]", "Nickel and [NAME] were", "[NAME], Short and [NAME]").
_NEIGHBOUR_WORD = r"[A-ZÀ-ÖØ-Þ\u0100-\u017f][a-zß-öø-ÿ\u0100-\u017f][\w']*"
_NEIGHBOUR_BEFORE: Final = re.compile(rf"(?<![\w'\-])({_NEIGHBOUR_WORD})(?:[ \t]|-|,[ \t]|[ \t](?:and|&)[ \t])$")
_NEIGHBOUR_AFTER: Final = re.compile(rf"(?:[ \t]|-|,[ \t]|[ \t](?:and|&)[ \t])({_NEIGHBOUR_WORD})(?![\w\-])")
_PLACE_BEFORE: Final = re.compile(
    r"\b(?:in|on|near|at|around|outside|downtown|off|from|to|of|st\.?|saint|san|santa|fort|ft|port|lake|mount|mt)\s+$",
    re.IGNORECASE,
)


# What joins the parts of one name around a name already found: particles ("[NAME] van den [NAME]", "[NAME] de
# Launay"), a middle initial ("[NAME] M [NAME]"), a suffix or degree ("[NAME] DDS", "[NAME], Jr."). Case-sensitive:
# a capitalised "De" or "Van" starts a new word, and "md" or "ii" in lower case is a word of the sentence.
_GERMANIC_PARTICLES: Final = frozenset({"van", "von", "den", "der", "ten", "ter", "vom", "zu"})
_JOIN_PARTICLE = r"(?:van|von|den|der|ten|ter|vom|zu|de|del|della|di|da|du|dos|das|le|la)"
_BETWEEN_NAMES: Final = re.compile(rf"[ \t]+((?:(?i:{_JOIN_PARTICLE})[ \t]+){{1,2}}|[A-Z]\.?[ \t]+)(?=\[NAME\])")
# "that De [NAME] was", "Mr. De [NAME]": a capitalised particle right before a name, not opening a sentence.
_PARTICLE_BEFORE: Final = re.compile(r"(?<=[\w.,][ \t])(De|Del|Van|Von|Da|Di|La|Le|Du)[ \t]$")
_PARTICLE_SURNAME: Final = re.compile(
    rf"[ \t]+((?:(?i:{_JOIN_PARTICLE})[ \t]+){{1,2}})(IJ[a-z][\w']*|[A-ZÀ-ÖØ-Þ\u0100-\u017f][a-zß-öø-ÿ\u0100-\u017f][\w']*)(?![\w\-])"
)
_NAME_SUFFIX_AFTER: Final = re.compile(r",?[ \t]+((?:Jr|Sr|II|III|IV|DDS|MD|PhD|Esq|DVM|RN|CPA)\b\.?)")
_DUTCH_CAPITAL: Final = re.compile(r"[ \t]+(IJ[a-z][\w']*)(?![\w\-])")


def _joined_parts(text: str, end: int) -> list[tuple[int, int]]:
    """The rest of a name that ends at `end`: particles before the next name or a surname, an initial, a suffix."""
    between = _BETWEEN_NAMES.match(text, end)
    if between:
        return [(between.start(1), between.end(1) - len(between.group(1)) + len(between.group(1).rstrip()))]
    found: list[tuple[int, int]] = []
    m = _PARTICLE_SURNAME.match(text, end)
    if m:
        particles = m.group(1).lower().split()
        surname = m.group(2)
        # "van", "von", "der" belong to names only; "de", "la", "da" are also prepositions ("[NAME] de Laredo"),
        # so they need a known name after them.
        germanic = all(p in _GERMANIC_PARTICLES for p in particles)
        if (germanic or known_name_word(surname)) and _neighbour_ok(text, m.start(2), m.end(2), place_cue=False):
            found.append((m.start(1), m.end(2)))
    dutch = _DUTCH_CAPITAL.match(text, end)
    if dutch:
        found.append((dutch.start(1), dutch.end(1)))
    suffix = _NAME_SUFFIX_AFTER.match(text, end)
    if suffix:
        found.append((suffix.start(1), suffix.end(1)))
    return found


def neighbour_spans(text: str, spans: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Capitalised words right before or after a name (or a [NAME] placeholder): more of a name, or the next name.

    The word must not be an ordinary word, a place word or a city name that is also a given name, and a
    place word after it ("[NAME] Houston TX", "Karen Miller Park") or a place preposition before it vetoes it.
    """
    found: list[tuple[int, int]] = []
    anchors = [*spans, *((m.start(), m.end()) for m in re.finditer(r"\[NAME\]", text))]
    for start, end in anchors:
        before = _NEIGHBOUR_BEFORE.search(text, max(0, start - 40), start)
        # A given name right before a surname is the same name even after "from" ("the verses from Frej [NAME]").
        same_name = before is not None and text[before.end(1) : start] in (" ", "-")
        if before and _neighbour_ok(text, before.start(1), before.end(1), place_cue=not same_name):
            found.append((before.start(1), before.end(1)))
        after = _NEIGHBOUR_AFTER.match(text, end)
        if after and _neighbour_ok(text, after.start(1), after.end(1)):
            found.append((after.start(1), after.end(1)))
        found += _joined_parts(text, end)
        particle = _PARTICLE_BEFORE.search(text, max(0, start - 8), start)
        sentence_start = particle is not None and re.search(r"[.!?][ \t]$", text[: particle.start(1)]) is not None
        if particle and (not sentence_start or _TITLE_BEFORE.search(text[: particle.start(1)])):
            found.append((particle.start(1), particle.end(1)))
    return found


_TITLE_BEFORE: Final = re.compile(r"\b(?:mr|mrs|ms|dr|sr|sra|srta)\.[ \t]$", re.IGNORECASE)


def _neighbour_ok(text: str, start: int, end: int, *, place_cue: bool = True) -> bool:
    low = text[start:end].lower()
    if low in _STOP or is_place_name(low) or low in _NOT_NAME_EXTRA or low in _TITLE_WORDS or low in _PARTICLES:
        return False
    if _PLACE_AFTER.match(text, end) or _PLACE_AFTER.fullmatch(text[start:end]):
        return False
    return not place_cue or _PLACE_BEFORE.search(text, max(0, start - 12), start) is None


# The top line of an address block or a signature ("Antonina / Office clerk / 93141 ..."), and the speakers of a
# dialogue ("Eser: What a wife." when another speaker is a name). Field labels are not speakers.
_BLOCK_LINE: Final = re.compile(
    rf"[ \t}}{{>]*({_NEIGHBOUR_WORD}(?:[ \t]+(?:[A-Z]\.?|{_NEIGHBOUR_WORD})){{0,2}})[ \t]*(?:\n|$)"
)
_SPEAKER: Final = re.compile(rf"(?m)^[ \t]*({_NEIGHBOUR_WORD})[ \t]*:[ \t]*(?=\S)")
_LABELS: Final = frozenset(
    """name phone tel email e-mail mail address website web mobile cell desk fax office home work date time bot user
    answer question note notes subject re from to cc dob ssn id account customer agent client re caller reply""".split()
)
_STREET_LINE_START: Final = re.compile(r"(?m)(?<=\n)[ \t}{>]*\[ADDRESS\]")


def block_names(text: str, spans: list[tuple[int, int]], contact_found: bool) -> list[tuple[int, int]]:
    """Names by their place in a message: the top line of an address block, the speakers of a dialogue.

    `spans` are the names found so far; `contact_found` says an address, phone or email is in the text
    (found now or already a placeholder), which makes the top line the addressee.
    """
    found: list[tuple[int, int]] = []
    if contact_found and "\n" in text:
        start = len(text) - len(text.lstrip(" \t\n}{>"))
        m = _BLOCK_LINE.match(text, max(0, text.rfind("\n", 0, start) + 1) if start else 0)
        if m and _block_words_ok(m.group(1)):
            found.append((m.start(1), m.end(1)))
    # The addressee's line sits right above the street line: "}} Neudorf \n}} [ADDRESS]".
    for street in _STREET_LINE_START.finditer(text):
        above = text.rfind("\n", 0, max(0, street.start() - 1))
        m = _BLOCK_LINE.match(text, above + 1)
        if m and m.end() >= street.start() - 1 and _block_words_ok(m.group(1)):
            found.append((m.start(1), m.end(1)))
    speakers = list(_SPEAKER.finditer(text))
    if len(speakers) >= 2:
        named = any(any(s <= m.start(1) < e for s, e in spans) for m in speakers)
        named = named or re.search(r"(?m)^[ \t]*\[NAME\][ \t]*:", text) is not None
        if named:
            found += [(m.start(1), m.end(1)) for m in speakers if _block_words_ok(m.group(1))]
    return found


def _block_words_ok(value: str) -> bool:
    words = [w.rstrip(".").lower() for w in value.split()]
    if any(w in _STOP or w in _NOT_NAME_EXTRA or w in _LABELS for w in words if len(w) > 1) or is_place_name(value):
        return False
    return _PLACE_AFTER.search(value) is None


# Place names the region lookup reads with no cue, registered by the app that owns the gazetteer (hooks import no
# other app): the name model and the position rules never take them for a person. Cue rules ("my PO Officer
# Allen", "my name is") still do.
_PLACE_NAMES: set[str] = set()


_PLACE_PATTERN: list[re.Pattern[str]] = []


def place_names_register(names: list[str]) -> None:
    """Add place names (any case) that must stay readable for the region lookup."""
    _PLACE_NAMES.update(" ".join(n.lower().split()) for n in names if n.strip())
    several = sorted((n for n in _PLACE_NAMES if " " in n or "-" in n), key=len, reverse=True)
    _PLACE_PATTERN[:] = (
        [re.compile(r"(?<!\w)(?:" + "|".join(re.escape(n).replace(r"\ ", r"\s+") for n in several) + r")(?!\w)", re.I)]
        if several
        else []
    )


def place_spans(text: str) -> list[tuple[int, int]]:
    """Where registered names of more than one word stand in `text` ("Fort Worth", "Sugar Land")."""
    return [(m.start(), m.end()) for pattern in _PLACE_PATTERN for m in pattern.finditer(text)]


def is_place_name(value: str) -> bool:
    """True when `value` (or every word of it) is a registered place name: "Pflugerville", "Sugar Land"."""
    low = " ".join(value.lower().replace("\u2019", "'").removesuffix("'s").split())
    return bool(low) and (low in _PLACE_NAMES or all(w in _PLACE_NAMES for w in low.split()))


_HOUSE_NUMBER_BEFORE: Final = re.compile(r"\b\d{1,6}\s+(?:[\w'.\-]+\s+){1,3}$")


def name_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the person names the cues point at."""
    # A known name in a weak cue that is also a registered city stays: "Rosenberg is far", "Fort Worth has".
    places = place_spans(text)
    weak = [
        (s, e)
        for s, e in _full_names(text) + _cued_given(text)
        if not is_place_name(text[s:e]) and not any(a <= s and e <= b for a, b in places)
    ]
    spans: list[tuple[int, int]] = weak
    for m in _STRONG.finditer(text):
        end = _take(text, m.end(), strong=True)
        if end > m.end():
            spans.append((m.end(), end))
    for pattern in (_INTRO, _RELATION, _ADDRESSEE):
        for m in pattern.finditer(text):
            start = _skip_titles(text, m.end())
            end = _take(text, start, strong=False)
            if end > start:
                spans.append((start, end))
    for m in _TITLE.finditer(text):
        if _HOUSE_NUMBER_BEFORE.search(text, max(0, m.start() - 40), m.start()):
            continue  # "9101 Airline Dr Houston": Dr is the street type, Houston the city
        word = _WORD.match(text, m.end())
        # After a bare title only a capitalised word is a surname: "Officer said" is not a name.
        if word and word.group(0)[:1].isupper():
            end = _take(text, m.end(), strong=False)
            if end > m.end():
                spans.append((m.end(), end))
    return spans
