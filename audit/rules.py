"""Compliance rules: pure functions over a draft reply, its evidence records and the turn context.

Every rule returns findings; `check_draft` runs them all and the verdict is the tightest finding.
The rules are deliberately lexical and conservative: they can be wrong, but they are wrong
towards a revision or a handoff, and they never need a model or a database. An LLM auditor may
add findings through `combine`, which can only tighten the verdict.

Citation convention the drafting node follows: a draft cites an evidence record by writing the
record's citation text in square brackets, in the same sentence as the claim it supports.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from audit.claims import Statement, asserts_something, check_claim_against, fold, restates_entry
from audit.types import AuditContext, AuditResult, EvidenceRecord, Finding, Rule, Verdict

HARD: Final = Verdict.HARD_BLOCK
SOFT: Final = Verdict.SOFT_BLOCK

# Grade levels above these are too hard for a first-week-out reader on a phone (tuned on the dev set:
# plain-language drafts score 1-12.5 (en) / 52-97 (es); legalese scores 27+ (en) / 11 (es)).
MAX_GRADE_EN: Final = 14.0  # legal words (parole, supervision, conviction) add 2-3 grades to plain prose
MIN_FERNANDEZ_HUERTA_ES: Final = 45.0  # the lower half of the "difícil" band (30-50) and below
MIN_WORDS_FOR_READABILITY: Final = 20  # grade formulas are noise on a two-line reply

_F = re.IGNORECASE


def _rx(*alternatives: str, flags: int = _F) -> re.Pattern[str]:
    return re.compile("|".join(f"(?:{a})" for a in alternatives), flags)


# --------------------------------------------------------------------------------------------
# Parsing the draft: citations, sentences
# --------------------------------------------------------------------------------------------

PII_PLACEHOLDER: Final = re.compile(r"\[(?:SSN|PHONE|DOB|TDCJ|SID|EMAIL|ADDRESS|CARD|NAME|ID)(?:[_ -]?\d+)?\]", _F)
# `[text](url)` is a markdown link, not a citation.
_BRACKET: Final = re.compile(r"\[([^\[\]\n]{1,300})\](?!\()")
_LEGALISH: Final = _rx(
    r"§",
    r"\b(?:code|const|c\.?\s?f\.?\s?r|u\.?\s?s\.?\s?c|tac|art|arts|ch|stat|stats|act|ordinance|guidance|reg|poms"
    r"|handbook|rule|rules|advisory|opinion|ley|c[oó]digo|art[ií]culo|secci[oó]n|section|sec)\b",
    r"\b(?:pub\.\s?l|h\.\s?b|s\.\s?b|r\.\s?civ)\b",
    r"\d+\.\d+",
)
_STATE_ABBR: Final = (
    r"Tex|Cal|Calif|Okla|Fla|La|Ariz|N\.\s?M|N\.\s?Y|Ga|Ill|Mich|Ohio|Pa|Wash|Colo|Nev|Ark|Ala|Miss|Tenn|Ky|Mo|Kan"
    r"|Neb|Iowa|Minn|Wis|Ind|Va|W\.\s?Va|N\.\s?C|S\.\s?C|Md|Del|N\.\s?J|Conn|Mass|R\.\s?I|Vt|N\.\s?H|Me|Mont|Wyo"
    r"|Idaho|Utah|Or|Ore|Alaska|Haw|N\.\s?D|S\.\s?D"
)
_SECTION_TAIL: Final = r"\s*(?:§§?|art\.|arts\.|ch\.|[Ss]ec\.|[Ss]ection)?\s*\d[\w.\-]*(?:\([\w]+\))*"
# Citations written outside brackets. Case-sensitive on purpose: "Code" and "Tex." are proper nouns.
_INLINE_CITATION: Final = re.compile(
    "|".join(
        [
            rf"(?:\b\d+\s+)?\b(?:{_STATE_ABBR})\.\s+(?:[A-Z][A-Za-z'\u2019&.]*\s+){{0,6}}?"
            r"(?:Code|Const\.?|Stat(?:s|utes)?\.?|Rev\.\s+Stat\.?|Gen\.\s+Laws|R\.\s?S\.?)(?:\s+Ann\.?)?"
            + _SECTION_TAIL,
            r"\b\d+\s+(?:C\.?\s?F\.?\s?R\.?|U\.?\s?S\.?\s?C\.?(?:\s?A\.?)?|TAC|Fed\.\s?Reg\.)\s*(?:§§?|Part|pt\.)?\s*\d[\w.\-]*(?:\([\w]+\))*",
            r"(?:Code\s+Crim\.\s+Proc\.|Penal\s+Code|Gov(?:'|\u2019)?t\.?\s+Code|Fam(?:ily|\.)\s+Code|Elec(?:tion|\.)\s+Code"
            rf"|Occ\.\s+Code|Transp\.\s+Code|Prop\.\s+Code|Lab\.\s+Code|Hum\.\s+Res\.\s+Code){_SECTION_TAIL}",
            r"§§?\s*\d[\w.\-]*(?:\([\w]+\))*",
            # "Section 8 vouchers", "los vales de la Sección 8": the housing program, not a section cited.
            r"\b(?:[Aa]rt\.|[Aa]rt[ií]culo|[Aa]rticle|[Ss]ec\.|[Ss]ection|[Ss]ecci[oó]n)\s+(?!8\b(?![.(\d]))\d+[A-Za-z]?(?:\.\d+)*(?:\([\w]+\))*",
        ]
    )
)
_BARE_START: Final = re.compile(r"^\s*(?:§|art|sec|ch\b|ch\.|secci|section|article)", _F)


@dataclass(frozen=True)
class Citation:
    """A citation found in the draft: its text, where it is, and whether it was bracketed."""

    text: str
    start: int
    end: int
    bracketed: bool


@dataclass(frozen=True)
class Sentence:
    """A sentence of the draft with the citations inside it masked out of `prose`."""

    text: str
    prose: str
    citations: tuple[Citation, ...]
    paragraph: int


def find_citations(draft: str) -> list[Citation]:
    """Return every bracketed or inline legal citation in the draft, in order (PII placeholders excluded)."""
    found: list[Citation] = []
    masked = list(draft)
    for m in _BRACKET.finditer(draft):
        inner = m.group(1).strip()
        if PII_PLACEHOLDER.fullmatch(m.group(0)) or not _LEGALISH.search(inner):
            continue
        found.append(Citation(inner, m.start(), m.end(), bracketed=True))
        masked[m.start() : m.end()] = " " * (m.end() - m.start())
    rest = "".join(masked)
    for m in _INLINE_CITATION.finditer(rest):
        text = m.group(0).strip().rstrip(".,;:")
        if text:
            found.append(Citation(text, m.start(), m.start() + len(text), bracketed=False))
    return sorted(found, key=lambda c: c.start)


_SENTENCE_END: Final = re.compile(r"(?<=[.!?])\s+(?=[^a-záéíóúñ])|\n+")


def split_sentences(draft: str, citations: Sequence[Citation]) -> list[Sentence]:
    """Split into sentences, keeping each citation with the sentence it closes.

    Citations are masked first so the periods inside "Tex. Elec. Code" do not end a sentence,
    and a citation placed just after a full stop ("… probation. [cite]") joins that sentence.
    """
    masked = list(draft)
    for c in citations:
        masked[c.start : c.end] = "\x00" * (c.end - c.start)
    text = "".join(masked)
    spans: list[tuple[int, int, int]] = []
    paragraph = 0
    pos = 0
    for m in _SENTENCE_END.finditer(text):
        spans.append((pos, m.start(), paragraph))
        if "\n\n" in m.group(0):
            paragraph += 1
        pos = m.end()
    spans.append((pos, len(text), paragraph))
    merged: list[tuple[int, int, int]] = []
    for start, end, para in spans:
        chunk = text[start:end]
        if not chunk.strip():
            continue
        only_citation = not re.sub(r"[\x00\s.,;:()]", "", chunk)
        if only_citation and merged:
            prev = merged[-1]
            merged[-1] = (prev[0], end, prev[2])
        else:
            merged.append((start, end, para))
    sentences = []
    for start, end, para in merged:
        cites = tuple(c for c in citations if start <= c.start < end)
        prose = text[start:end].replace("\x00", " ")
        sentences.append(Sentence(draft[start:end].strip(), re.sub(r"\s+", " ", prose).strip(), cites, para))
    return sentences


# --------------------------------------------------------------------------------------------
# Matching citations to evidence
# --------------------------------------------------------------------------------------------


def citation_key(text: str) -> str:
    """Normalise a citation for comparison: case, spacing, "§§", "Sec.", "TAC", notes in parentheses."""
    s = text.lower().replace("\u2019", "'").replace("'", "")
    s = re.sub(r"\((?=[^)]*\s)[^)]*\)", " ", s)  # "(repealed eff. …)", "(Work Opportunity Tax Credit)"
    s = re.sub(r"\btac\b", "tex admin code", s)
    s = re.sub(r"\b(?:sec|section|secci[oó]n)\b\.?", "§", s)
    s = re.sub(r"\b(?:article|art[ií]culo)\b", "art", s)
    s = re.sub(r"(?<=[a-z])\.(?!\d)", "", s)  # "tex." → "tex", "c.f.r." → "cfr", but "42a.301" stays
    s = s.replace("§§", "§")
    s = re.sub(r"[\s§]", "", s)
    return s.strip(".,;:")


def _citation_parts(citation: str) -> list[str]:
    """Split a citation into comparable keys: "A; B" → A, B; "Code §§ 1, 2" → also "Code § 1", "Code § 2"."""
    keys: list[str] = []
    for raw_part in citation.split(";"):
        part = raw_part.strip()
        if not part:
            continue
        keys.append(citation_key(part))
        if "§§" in part:
            head, tail = part.split("§§", 1)
            for raw_item in re.split(r",|\band\b|\by\b", tail):
                item = re.sub(r"\((?=[^)]*\s)[^)]*\)", "", raw_item).strip()
                if item:
                    keys.append(citation_key(f"{head}§ {item}"))
    return [k for k in keys if k]


def _key_matches(draft_key: str, evidence_key: str, *, bare: bool) -> bool:
    candidates = [evidence_key]
    if evidence_key.startswith("tex"):
        candidates.append(evidence_key[3:])  # "Code Crim. Proc. art. 42A.701" without the "Tex."
    for ev in candidates:
        if draft_key == ev:
            return True
        # A less specific cite of the same section ("§ 11.002" for "§ 11.002(a)(4)") is the same source;
        # a more specific or different subsection is not what retrieval returned.
        if ev.startswith(draft_key) and ev[len(draft_key)] == "(":
            return True
        if bare:
            for m in re.finditer(re.escape(draft_key), ev):
                before = ev[m.start() - 1] if m.start() else ""
                after = ev[m.end()] if m.end() < len(ev) else ""
                if not (before.isdigit() or before == ".") and after in {"", "("}:
                    return True
    return False


def match_evidence(citation: str, evidence: Sequence[EvidenceRecord]) -> EvidenceRecord | None:
    """Return the evidence record a cited text refers to (assertable ones first), or None."""
    bare = bool(_BARE_START.match(citation))
    parts = _citation_parts(citation)
    ordered = sorted(evidence, key=lambda r: not r.assertable)
    for record in ordered:
        record_keys = _citation_parts(record.citation)
        if parts and all(any(_key_matches(p, rk, bare=bare) for rk in record_keys) for p in parts):
            return record
    # "A; B" citing two records at once: each part must match some record.
    if len(parts) > 1:
        matched = []
        for p in parts:
            hit = next(
                (r for r in ordered if any(_key_matches(p, rk, bare=bare) for rk in _citation_parts(r.citation))), None
            )
            if hit is None:
                return None
            matched.append(hit)
        return min(matched, key=lambda r: r.assertable)
    return None


# --------------------------------------------------------------------------------------------
# Claim detection
# --------------------------------------------------------------------------------------------

_HEDGE: Final = _rx(
    r"\b(?:not sure|not certain|unsure|can'?t say|cannot say|don'?t know|whether|can'?t confirm|could ?n[o']t find|could not confirm)\b",
    r"\b(?:no estoy segur[oa]|no s[eé] si|no pude confirmar|no puedo confirmar|no encontr[eé]|si (?:usted )?califica"
    r"|no tengo (?:suficiente )?informaci[oó]n|(?:puede|podr[ií]a) depender|depende de)\b",
    r"\b(?:(?:may|might|could|can) depend|depends on|i don'?t have enough information|hard to say)\b",
    r"\bif (?:you|they) (?:qualify|are eligible)\b",
)
_CLAUSE_SPLIT: Final = re.compile(r",\s+(?=(?:but|pero|and|y|so|así que)\b)|;\s*", _F)
_SUBJECT_EN: Final = (
    r"(?:you|they|a person|persons|people|someone|anyone|a parent|parents|either parent|he or she|employers?|an employer"
    r"|landlords?|a landlord|a judge|judges|courts?|a court|dps|tdcj|hhsc|the (?:court|judge|clerk|state|board|parole panel"
    r"|panel|agency|landlord|employer|housing authority|licensing (?:agency|authority)|child support office|office|law|ban)"
    r"|texas law|federal law|state law|your (?:license|record|sentence|order|benefits|payments|case|conviction|fee|fees))"
)
_MODAL_EN: Final = (
    r"(?:can(?:not|'t| not)?|may(?: not)?|must(?: not)?|has to|have to|needs? to|(?:is|are) (?:not )?(?:required|allowed) to"
    r"|(?:does|do) not have to|doesn'?t have to|don'?t have to|needs? (?:permission|approval|a permit))"
)
_CONTACT_VERBS_EN: Final = (
    r"(?:call|text|visit|contact|reach|ask|talk|speak|go|stop|walk|check|confirm|verify|look|find|help|bring|tell|explain|point|list|show"
    r"|email|write|get help|get more|learn|read|use|come|start by)"
)
_LEGAL_VOCAB_EN: Final = (
    r"\b(?:vote|voting|voter|register\w*|eligib\w*|qualif\w*|parole|probation|supervision|sentence|convict\w*|felon\w*"
    r"|misdemeanor|records?|expun\w*|nondisclosure|seal\w*|pardon\w*|licen[sc]e|court|judge|law|legal|illegal|rights?|fees?"
    r"|fines?|benefits?|snap|tanf|medicaid|ssi|social security|child support|custody|firearms?|guns?|jury|deny|denied"
    r"|admission|evict\w*|background|arrest\w*|petition|hearing|waiver|move|county|live|reside|report|pay\w*|id card)\b"
)
_MODAL_ES: Final = (
    r"\b(?:puede|pueden|puedes|podr[aá]|podr[aá]s|podr[aá]n|debe|deben|debes|deber[aá]|tiene que|tienes que|tienen que"
    r"|hay que|necesita|necesitas|necesitan|est[aá] obligad[oa]|est[aá]n obligad[oa]s)\b"
)
_CONTACT_VERBS_ES: Final = (
    r"(?:llamar|llame|visitar|contactar|ayudar\w*|ir|pasar|preguntar\w*|consultar|buscar|explicar\w*|decir\w*|dar\w* m[aá]s"
    r"|confirmar\w*|verificar\w*"
    r"|llevar|escribir|hablar|revisar|mandar|enviar|pedir ayuda|orientar\w*|informar\w*|indicar\w*)"
)
_LEGAL_VOCAB_ES: Final = (
    r"\b(?:vot\w*|regist\w*|elegib\w*|libertad condicional|probatoria|supervisi[oó]n|sentencia|conden\w*|delitos?|felon\w*"
    r"|antecedentes|expun\w*|no divulgaci[oó]n|sell\w*|perd[oó]n|indulto|licencia|tribunal|corte|juez|ley|legal|derechos?"
    r"|cuotas?|multas?|beneficios|snap|cupones|medicaid|ssi|seguro social|manutenci[oó]n|custodia|armas?|jurado|desalojo"
    r"|audiencia|mudar\w*|condado|vivir|pagar|registrarse)\b"
)
_CLAIM_ALWAYS: Final = _rx(
    # status, rights and rules, English
    r"\b(?:is|are|be|becomes?|was|were)\s+(?:not\s+|no longer\s+|generally\s+|still\s+)?(?:eligible|ineligible|entitled|disqualified"
    r"|barred|banned|prohibited|illegal|a crime|a felony|no longer owed|required)\b",
    r"\b(?:you|a person|people|they)\s+(?:will\s+|would\s+|do\s+not\s+|don'?t\s+|may\s+)?qualif(?:y|ies)\b",
    r"\b(?:ha(?:ve|s) the right|right to (?:vote|a hearing|appeal|an? attorney|a lawyer|ask|request|see))\b",
    r"\b(?:does ?n[o']t|does not|do not|doesn'?t) count as\b|\bcounts as a\b",
    r"\b(?:the|texas|federal|state) (?:law|rule|statute|constitution)\s+(?:says|requires|allows|lets|bars|bans|prohibits|gives|makes)\b",
    r"\bit is (?:a crime|illegal|against the law)\b|\bcommits? an? (?:\w+[- ])*(?:felony|crime|misdemeanor|offense)\b",
    # deadlines and fees
    r"\bwithin\s+\d+\s+(?:business\s+)?(?:days?|weeks?|months?|years?)\b",
    r"\b\d+\s+(?:business\s+)?(?:days?|months?|years?)\s+(?:after|before|of)\b",
    r"\bafter\s+\d+\s+(?:days?|months?|years?)\b|\bby the \w+ day\b",
    # a deadline stated ("the deadline is …", "a deadline of 30 days"), not one mentioned in advice ("at the deadline")
    r"\bdeadline (?:is|to|for|of)\b|\bdeadline\b(?=[^.;]*\d)",
    r"\b(?:fee|fees|cost|costs|fine|surcharge)\b[^.]{0,40}\$\s?\d|\$\s?\d+[^.]{0,30}\b(?:fee|fees|a month|per month|each month|per license)\b",
    # Spanish
    r"\b(?:es|son|est[aá]|est[aá]n|ser[aá])\s+(?:no\s+)?(?:elegibles?|ilegal|un delito|obligatori[oa]s?)\b",
    r"\btiene[ns]? derecho\b|\btienes derecho\b|\bderecho a (?:votar|una audiencia|apelar|un abogado|pedir)\b",
    r"\bla ley (?:dice|permite|exige|proh[ií]be|requiere|establece)\b|\b(?:no )?cuenta como\b",
    r"\bcalific(?:a|as|an|ar[aá]s?)\b",
    r"\bdentro de\s+\d+\s+(?:d[ií]as|semanas|meses|a[nñ]os)\b|\bdespu[eé]s de\s+\d+\s+(?:d[ií]as|meses|a[nñ]os)\b|\bplazo\b",
    r"\b(?:cuota|tarifa|costo|multa)\b[^.]{0,40}\$\s?\d|\bcuesta\s+\$\s?\d",
    # contractions, waivers and exemptions ("you're eligible", "aren't allowed to", "the fees are waived")
    r"(?:'re|'s|n't)\s+(?:\w+\s+)?(?:eligible|ineligible|entitled|allowed|barred|banned|required|waived|exempt)\b",
    r"\b(?:is|are|be|get|gets)\s+(?:\w+\s+)?(?:waived|exempt|forgiven)\b|\b(?:se\s+)?(?:exoneran?|condonan?|perdonan?)\b",
    # a benefit or a right said to come back, stop or restart on its own
    r"\b(?:ssi|snap|tanf|medicaid|benefits?|payments?|license|rights?|social security|record)\b[^.]{0,40}?"
    r"\b(?:comes? back|restarts?|returns?|starts? again|is restored|gets? restored|is suspended|ends?|stops?"
    r"|stays? (?:active|on)|remains? (?:active|in place)|keeps? (?:going|coming)|continues?)\b",
    r"\b(?:ssi|snap|tanf|medicaid|beneficios?|pagos?|licencia|derechos?|seguro social|registro|antecedentes)\b[^.]{0,40}?"
    r"\b(?:vuelve\w*|regresa\w*|se (?:reanuda|restablece|suspende|cancela|borra|quita|mantiene)\w*|termina\w*"
    r"|sigue\w* (?:activ\w*|vigente)|contin[uú]a\w*)\b",
    # outcomes and costs said without a modal ("Felons get their rights back right away", "An ID costs nothing")
    r"\b(?:get|gets|getting|regains?|regaining|win|wins)\s+(?:\w+\s+){0,2}rights?\s+back\b|\brights?\s+(?:are\s+|is\s+)?(?:\w+\s+)?restored\b",
    r"\b(?:recupera\w*|devuelve\w*)\s+(?:\w+\s+){0,2}derechos?\b|\bderechos?\s+(?:\w+\s+){0,2}(?:restablec\w*|restaura\w*)\b",
    r"\bcosts?\s+(?:nothing|\$\s?\d|money)\b|\b(?:is|are)\s+(?:always\s+)?free\b(?!\s+(?:to\s+call|to\s+text|and\s+confidential|call|line|of\s+charge\s+to\s+call))|\bno (?:fee|charge)s?\b",
    r"\bno cuesta\b|\bcuesta\s+nada\b|\b(?:es|son)\s+gratis\b|\bsin (?:costo|cobro)\b",
    r"\b(?:felons?|parolees?|ex-?offenders?|ex-?convicts?|people (?:with|on) (?:a )?(?:felony|felonies|record|records|parole|probation))\b"
    r"[^.]{0,40}?\b(?:can(?:not|'t)?|may|must|are (?:not )?allowed|get|lose|are (?:not )?eligible)\b",
    r"\b(?:las personas|la gente|quienes)\s+(?:con|en)\s+(?:\w+\s+){0,3}(?:pueden|no pueden|deben|recuperan|pierden)\b",
)
_CLAIM_MODAL_EN: Final = re.compile(
    rf"\b{_SUBJECT_EN}\b(?:\s+[\w'\u2019-]+){{0,4}}?\s+{_MODAL_EN}\s+(?!{_CONTACT_VERBS_EN}\b)(?:not\s+)?(?:\w+)", _F
)
_CLITIC: Final = r"(?:lo|la|los|las|le|les|se|me|te)?"
_CLAIM_MODAL_ES: Final = re.compile(
    rf"{_MODAL_ES}\s+(?!{_CONTACT_VERBS_ES}{_CLITIC}\b)(?:(?!{_CONTACT_VERBS_ES}{_CLITIC}\b)\w+\s+)?(?!{_CONTACT_VERBS_ES}{_CLITIC}\b)\w+",
    _F,
)
_LEGAL_EN: Final = re.compile(_LEGAL_VOCAB_EN, _F)
_TERM_VERB: Final = _rx(
    r"\b(?:ends?|ended|lasts?|expires?|stops?|starts?|begins?|runs? out|is (?:over|done|lifted|cleared))\b",
    r"\b(?:termina\w*|dura\w*|vence\w*|acaba\w*|empieza\w*|comienza\w*|caduca\w*|se (?:levanta|borra|quita)\w*)\b",
)
_DURATION: Final = re.compile(
    r"\b(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|fifteen|thirty|un|una|dos|tres|cuatro|cinco"
    r"|seis|siete|ocho|nueve|diez|doce|quince|treinta)[- ](?:business\s+)?(?:days?|weeks?|months?|years?|d[ií]as|semanas"
    r"|meses|a[nñ]os)\b",
    _F,
)
_LEGAL_ES: Final = re.compile(_LEGAL_VOCAB_ES, _F)
# "le puede ayudar", "le puede decir": a pronoun before the modal, clearly a referral.
_CONTACT_ONLY_ES: Final = re.compile(
    rf"\b(?:le|les|te|lo|la)\s+(?:puede|pueden|podr[aá]n?)\s+{_CONTACT_VERBS_ES}\b", _F
)
# Organisation names are not legal vocabulary ("Lone Star Legal Aid can help").
_ORG_WORDS: Final = _rx(r"\blegal aid\b|\bayuda legal\b|\blegal services\b|\btexaslawhelp\S*|\blaw (?:center|clinic)\b")


def is_legal_claim(sentence: str) -> bool:
    """True when a sentence states a rule, right, eligibility, deadline or fee (hedged clauses excluded)."""
    if sentence.rstrip().endswith("?"):
        return False
    for clause in _CLAUSE_SPLIT.split(sentence):
        if not clause.strip() or _HEDGE.search(clause):
            continue
        if _CLAIM_ALWAYS.search(clause):
            return True
        vocab = _ORG_WORDS.sub(" ", clause)
        if _CLAIM_MODAL_EN.search(clause) and _LEGAL_EN.search(vocab):
            return True
        # a deadline or a term stated as a fact ("probation ends by itself after two years")
        if (
            _DURATION.search(clause)
            and _TERM_VERB.search(clause)
            and (_LEGAL_EN.search(vocab) or _LEGAL_ES.search(vocab))
        ):
            return True
        if _CLAIM_MODAL_ES.search(clause) and _LEGAL_ES.search(vocab) and not _CONTACT_ONLY_ES.search(clause):
            return True
    return False


# --------------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Draft:
    """A parsed draft shared by the rules (parsed once per check)."""

    text: str
    citations: tuple[Citation, ...]
    sentences: tuple[Sentence, ...]
    statements: tuple[Statement, ...] = ()

    @classmethod
    def parse(cls, text: str, statements: Sequence[Statement] = ()) -> Draft:
        citations = find_citations(text)
        return cls(text, tuple(citations), tuple(split_sentences(text, citations)), tuple(statements))

    def statement_for(self, sentence: Sentence) -> Statement | None:
        """The structured statement this sentence renders, if the draft came with statements."""
        prose = fold(sentence.prose)
        for statement in self.statements:
            text = fold(statement.text).rstrip(" .")
            if text and text in prose:
                return statement
        return None


_SECTION_NUMBER: Final = re.compile(r"\d+[a-z]?(?:\.\d+[a-z]?)+|\d{2,}[a-z]?")


def _names_a_cross_reference(citation: str, quoted: str) -> bool:
    """ "aunque la sección 508.149 …" names a section the evidence's own summary cross-references by number."""
    numbers = _SECTION_NUMBER.findall(citation.lower())
    return bool(numbers) and all(re.search(rf"(?<![\d.]){re.escape(n)}(?![\d])", quoted.lower()) for n in numbers)


def check_citations(draft: Draft, evidence: Sequence[EvidenceRecord], context: AuditContext) -> list[Finding]:
    """Every citation must be an assertable evidence record of this turn; every claim needs one."""
    findings: list[Finding] = []
    valid: set[int] = set()
    quoted = " ".join(f"{record.summary} {record.caveat}" for record in evidence if record.assertable)
    for c in draft.citations:
        record = match_evidence(c.text, evidence)
        if record is None and (c.text in quoted or _names_a_cross_reference(c.text, quoted)):
            # The draft repeats a cross-reference that the evidence's own (reviewed) summary makes.
            valid.add(c.start)
            continue
        if record is None:
            findings.append(Finding(Rule.FABRICATED_CITATION, HARD, "cites a source retrieval did not return", c.text))
        elif not record.assertable:
            findings.append(
                Finding(Rule.FABRICATED_CITATION, HARD, "cites evidence that is not cleared to assert", c.text)
            )
        else:
            valid.add(c.start)
    caveats = [fold(record.caveat) for record in evidence if record.assertable and record.caveat]
    entry_texts = [" ".join((r.summary, r.excerpt, *r.summaries)) for r in evidence if r.assertable]
    for index in range(len(draft.sentences)):
        findings.extend(
            _sentence_findings(
                draft, index, evidence=evidence, context=context, caveats=caveats, entry_texts=entry_texts
            )
        )
    return findings


def _sentence_findings(
    draft: Draft,
    index: int,
    *,
    evidence: Sequence[EvidenceRecord],
    context: AuditContext,
    caveats: Sequence[str],
    entry_texts: Sequence[str],
) -> list[Finding]:
    """One sentence: is it a claim, does it carry (or borrow) a citation, and does its entry say it."""
    s = draft.sentences[index]
    if _is_caveat_note(s.prose, caveats):
        return []  # the entry's own reviewed caveat, shown as a note: a qualification, not a claim
    # A rule in the legal vocabulary, or an uncited sentence that says what an entry says.
    claim = is_legal_claim(s.prose) or (not s.citations and _restates_unhedged(s.prose, entry_texts))
    following = draft.sentences[index + 1] if index + 1 < len(draft.sentences) else None
    if claim and not s.citations and following is not None and following.paragraph == s.paragraph:
        # The next sentence of the paragraph carries the citation for both: this one is checked
        # against that entry like the cited one (and still fails if the entry does not say it).
        s = Sentence(s.text, s.prose, following.citations, s.paragraph)
    previous = draft.sentences[index - 1] if index > 0 else None
    if claim and not s.citations and previous is not None and previous.paragraph == s.paragraph:
        # "… [§ 508.182]. The parole panel can let you put off those payments.": a sentence that goes on
        # with the cited one leans on its citation, and is checked against that entry the same way.
        s = Sentence(s.text, s.prose, previous.citations, s.paragraph)
    checkable = claim or (bool(s.citations) and asserts_something(s.prose))
    if _states_other_state_law(s) or not checkable:
        return []  # other states' law is the scope rule's finding, not a missing citation
    if context.gated:
        if not claim:
            return []
        return [Finding(Rule.GATED_CLAIM, HARD, "states a legal rule although evidence was too weak to assert", s.text)]
    if not s.citations:
        return [Finding(Rule.UNCITED_CLAIM, SOFT, "states a legal rule without citing evidence", s.text)]
    return _check_grounding(draft, s, evidence)


_NOTE: Final = re.compile(r"^\s*(?:note|nota)\s*:\s*", _F)


_REFERRAL_EN: Final = re.compile(rf"\b(?:can|could|will|may)\s+(?:\w+\s+)?{_CONTACT_VERBS_EN}\b", _F)


def _restates_unhedged(prose: str, entry_texts: Sequence[str]) -> bool:
    """A plain statement (not hedged, not a referral) that restates an entry's content."""
    if _HEDGE.search(prose) or _REFERRAL_EN.search(prose) or _CONTACT_ONLY_ES.search(prose):
        return False
    return restates_entry(prose, entry_texts)


def _is_caveat_note(prose: str, caveats: Sequence[str]) -> bool:
    """A sentence of an evidence entry's reviewed caveat (after "Note:"), verbatim or cut short with "…"."""
    if not caveats:
        return False
    text = fold(_NOTE.sub("", prose)).rstrip(" .…")
    return len(text) >= 20 and any(text in caveat for caveat in caveats)


def _check_grounding(draft: Draft, sentence: Sentence, evidence: Sequence[EvidenceRecord]) -> list[Finding]:
    """The claim checker: a cited sentence must agree with what its cited entry says."""
    records: list[EvidenceRecord] = []
    for c in sentence.citations:
        record = match_evidence(c.text, evidence)
        if record is not None and record.assertable and record not in records:
            records.append(record)
    if not records:
        return []  # a citation the evidence does not have is fabricated_citation's finding
    statement = draft.statement_for(sentence)
    if statement is not None:
        named = [r for r in records if r.slug == statement.entry]
        records = named or records
    others = [r for r in evidence if r.assertable and r not in records]
    # "I can't tell if you qualify, but a petition is an option": the hedge is not part of the claim.
    clauses = [c for c in _CLAUSE_SPLIT.split(sentence.prose) if c.strip() and not _HEDGE.search(c)]
    prose = ", ".join(c.strip() for c in clauses) if clauses else sentence.prose
    check = check_claim_against(prose, records, quote=statement.quote if statement else "", others=others)
    if check.outcome == "supported":
        return []
    rule = Rule.CONTRADICTED_CLAIM if check.outcome == "contradicted" else Rule.UNSUPPORTED_CLAIM
    return [Finding(rule, SOFT, check.detail, sentence.text, check.entry)]


_OTHER_STATES: Final = (
    "Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|Florida|Georgia|Hawaii|Idaho|Illinois"
    "|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri"
    "|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma"
    "|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Utah|Vermont|Virginia|Washington State"
    "|West Virginia|Wisconsin|Wyoming|District of Columbia"
    "|Arkansas|Carolina del Norte|Carolina del Sur|Dakota del Norte|Dakota del Sur|Nuevo M[eé]xico|Nueva York"
    "|Nueva Jersey|Luisiana|Misuri|Pensilvania|Hawái|Oreg[oó]n|Misisipi|Tennesse|Virginia Occidental"
)
_OTHER_STATE: Final = re.compile(rf"\b(?:{_OTHER_STATES})\b")
_OTHER_STATE_CITATION: Final = re.compile(
    r"\b(?:Cal|Calif|Okla|Fla|La|Ariz|N\.\s?M|N\.\s?Y|Ga|Ill|Mich|Pa|Wash|Colo|Nev|Ark|Ala|Miss|Tenn|Ky|Mo|Kan|Neb"
    r"|Minn|Wis|Ind|Va|N\.\s?C|S\.\s?C|Md|N\.\s?J|Conn|Mass|Ore)\.\s+(?:[A-Z][\w.'&]*\s+){0,4}?"
    r"(?:Code|Stat(?:s|utes)?\.?|Rev\.\s+Stat|Gen\.\s+Laws|R\.\s?S\.|Const\.)"
)
_RULE_WORDS: Final = _rx(
    r"\b(?:lets|allows|permits|requires|bans|bars|law|laws|statute|rules?|ley|leyes|permite|exige|proh[ií]be|works differently)\b"
)
_HANDOFF: Final = _rx(
    r"\b(?:only|solo|s[oó]lo|solamente|[uú]nicamente)\b[^.]{0,60}\bTexas\b",
    r"\b(?:outside (?:of )?Texas|fuera de Texas|other states|otros estados)\b",
    r"\b(?:legal aid|ayuda legal|asistencia legal)\b",
)


def _states_other_state_law(sentence: Sentence) -> bool:
    if any(_OTHER_STATE_CITATION.search(c.text) for c in sentence.citations):
        return True
    if not _OTHER_STATE.search(sentence.prose) or _HANDOFF.search(sentence.prose):
        return False
    return is_legal_claim(sentence.prose) or bool(_RULE_WORDS.search(sentence.prose))


def check_scope(draft: Draft, evidence: Sequence[EvidenceRecord], context: AuditContext) -> list[Finding]:
    """Texas only: never state another state's law; a question about another state gets a handoff."""
    findings = [
        Finding(Rule.OUT_OF_STATE, HARD, "states another state's law", s.text)
        for s in draft.sentences
        if _states_other_state_law(s)
    ]
    if context.out_of_state and not _HANDOFF.search(draft.text):
        findings.append(
            Finding(
                Rule.OUT_OF_STATE,
                HARD,
                "question is about another state and the draft does not hand off",
                context.out_of_state,
            )
        )
    return findings


_OUTCOME_PROMISE: Final = _rx(
    # English
    r"\byou(?:'ll| will) get\b(?! (?:help|a call|a letter|a text|a reply|an answer|more information|connected|a receipt|a copy|a list|a number|a form|a case ?worker))",
    r"\byou(?:'ll| will) (?:definitely |certainly |surely )?(?:qualify|be approved|be accepted|be eligible|win|be granted|receive|get approved|be hired|be cleared|have no problem)\b",
    r"\byou(?:'re| are) (?:going to|gonna) (?:get|qualify|be approved|win|receive|be fine)\b",
    r"\bguarantee(?:d|s)?\b",
    r"\b(?:definitely|certainly|for sure|surely|no doubt|without a doubt|100 ?%)\b",
    r"\b(?:should|will|would) (?:definitely |easily )?(?:be (?:approved|granted|accepted)|qualify|have no (?:problem|trouble|issue))\b",
    r"\b(?:good|great|high|strong) chance\b|\b(?:very |pretty )?likely to (?:qualify|be approved|win|get)\b|\bchances are good\b",
    r"\bmost people (?:in your situation |like you )?(?:get|are|qualify|win)\b",
    r"\bwill (?:definitely )?(?:approve|grant|lower|reduce) (?:it|your|you)\b|\bwill be (?:lowered|reduced|approved|granted|expunged|sealed)\b",
    r"\bwill find you (?:a|an) (?:place|bed|job|home|apartment|lawyer)\b",
    r"\bthere'?s no way (?:they|the \w+) (?:can|will|could) (?:deny|refuse|say no)\b",
    r"\b(?:they|the (?:judge|court|board|panel|agency|office|landlord|employer))(?:'ll| will) (?:approve|grant|accept|hire|reduce|lower|restore)\b",
    r"\byou(?:'d| would) (?:almost )?(?:certainly|definitely|probably|likely) (?:qualify|be approved|get|win)\b|\balmost certainly\b",
    r"\byou(?:'ll| will) be able to (?:get|keep|have) (?:your|it|them|the)\b[^.]{0,30}\bback\b",
    # Spanish
    r"\bseguro que (?:te|le|les) (?:aprueb|d[aá]n|van|lo|la)\w*",
    r"\bvas a (?:calificar|recibir|obtener|conseguir|ganar|salir aprobad)\w*",
    r"\bva a (?:calificar|recibir|obtener|conseguir|ganar)\b",
    r"\b(?:el juez|la jueza|la corte|el tribunal|la junta|el panel|ellos|la oficina)\s+(?:le |te |les )?(?:va|van) a (?:reducir|aprobar|conceder|dar|quitar|bajar|terminar)\b",
    r"\b(?:te|le|les) van a (?:dar|aprobar)\b(?! (?:una cita|informaci[oó]n|un n[uú]mero|un formulario|una copia|una lista))",
    r"\b(?:te|le|les) (?:aprobar[aá]n|dar[aá]n)\b",
    r"\b(?:calificar[aá]s|recibir[aá]s|obtendr[aá]s|conseguir[aá]s)\b",
    r"\bgarantizad[oa]s?\b|\bsin duda\b|\bdefinitivamente\b|\bde seguro\b|\bseguro que s[ií]\b|\bno hay manera de que (?:te|le) (?:nieguen|rechacen)\b",
)
_LEGAL_ADVICE: Final = _rx(
    # English
    r"\byou should (?:probably |definitely |just )?(?:plead|take the (?:plea|deal)|accept the (?:plea|deal|offer)|sign|waive|not tell|lie|hide"
    r"|skip|ignore|stop reporting|leave the county|fight (?:it|the)|appeal|refuse)\b",
    r"\b(?:don'?t|do not|never) (?:tell|mention (?:it )?to|let) your (?:po|p\.o\.|parole officer|probation officer|officer|agent|employer|landlord|caseworker)\b",
    r"\btake the (?:plea )?deal\b|\bplead (?:guilty|no contest|not guilty)\b|\baccept the plea\b",
    r"\bi(?:'d| would) (?:recommend|advise|suggest)\b|\bif i were you\b|\bmy advice is\b",
    r"\bleave (?:the|your) (?:conviction|record|charge|case|arrest) off\b|\b(?:they|it) (?:probably )?won'?t check\b",
    r"\bskip (?:the|your) (?:hearing|court date|court|meeting|appointment|check-?in)\b|\bdon'?t (?:go to|show up (?:to|for)) (?:your|the) (?:hearing|court|meeting|appointment)\b",
    r"\byou don'?t need (?:a|an) (?:lawyer|attorney)\b|\bsign the waiver\b",
    r"\bi (?:would(?:n'?t| not)?|wouldn'?t) (?:mention|tell|say anything|sign|take|plead|accept|admit|disclose|report)\b",
    # Spanish
    r"\bno (?:le|les) (?:digas|diga|cuentes|cuente|avises|avise|menciones|mencione) (?:nada )?a (?:tu|su) (?:oficial|agente|po|patr[oó]n|jefe|empleador|due[nñ]o)\b",
    r"\bdeber[ií]as? (?:declararte|aceptar el trato|firmar|renunciar|mentir|no decir)\b|\bdecl[aá]rate culpable\b|\bdeclararse culpable\b",
    r"\bte recomiendo que (?:te declares|aceptes|firmes|no)\b|\b(?:acepta|acepte|aceptar[ií]a) el trato\b|\byo en tu lugar\b|\byo que usted\b",
    r"\blo mejor es que (?:firme|acepte|se declare|no (?:diga|mencione|le diga)|te declares|aceptes|firmes)\b|\bfirm[ea] el (?:acuerdo|trato)\b",
    r"\bno necesitas? (?:un )?abogado\b|\bno vayas? a (?:tu|la|su) (?:cita|corte|audiencia)\b",
)
_MORALIZING: Final = _rx(
    r"\byou (?:should|shouldn'?t|should not) have (?!no\b|any\b)|\bthat'?s what happens when\b|\blearn(?:ed)? your lesson\b",
    r"\b(?:have|has) (?:only )?(?:yourself|themselves) to blame\b|\byour own fault\b|\b(?:nobody|no one) else (?:is )?to blame\b",
    r"\b(?:bad|poor|wrong) (?:choices|decisions)\b|\bstay(?:ing)? out of trouble\b|\bbrought (?:this|it) on yourself\b",
    r"\b(?:make|making) better (?:choices|decisions)\b|\bmejores decisiones\b|\byou deserved?\b|\bdo better\b|\bnext time,? (?:don'?t|think)\b",
    r"\bdeber[ií]as? haber\b|\bno deber[ií]as? haber\b|\beso (?:es lo que )?pasa (?:cuando|por)\b|\baprend\w+ (?:la|tu|su) lecci[oó]n\b",
    r"\b(?:es|fue) (?:tu|su) culpa\b|\bte lo buscaste\b|\bmalas decisiones\b|\bte lo merec\w+\b|\bpor tu culpa\b",
)
_FALSE_REASSURANCE: Final = _rx(
    r"\bdon'?t worry\b|\bdo not worry\b|\bnothing to worry about\b|\beverything (?:will|is going to|'ll) be (?:fine|ok(?:ay)?|alright|all right|great)\b",
    r"\bit(?:'ll| will) (?:all )?(?:be fine|be ok(?:ay)?|work out)\b|\bno big deal\b|\bno problem at all\b|\bit'?s (?:easy|simple)\b",
    r"\bit'?s (?:going|gonna) to be (?:fine|ok(?:ay)?|alright|all right)\b|\brelax\b|\byou'?ll be (?:fine|ok(?:ay)?)\b",
    r"\btranquil[oa],? (?:todo|no pasa)\b|\bno te preocupes\b|\bno se preocupe\b|\btodo (?:va a estar|estar[aá]|saldr[aá]|va a salir) bien\b|\bno pasa nada\b|\bes f[aá]cil\b",
    r"\bnada de qu[eé] preocupar\w*",
)
_PROMPT_LEAK: Final = _rx(
    r"\bsystem prompt\b|\byou are pathways\b|</?(?:instructions|system|developer|evidence|context)>|\bas an ai(?: language)? model\b",
    r"\bignore (?:all |any )?(?:the )?(?:previous|prior|above|earlier) instructions\b|\bmy instructions (?:say|are|tell)\b|\bdeveloper message\b",
    r"\b(?:according to|per|under) my (?:instructions|guidelines|rules|prompt)\b|\bi(?:'m| am| was) (?:instructed|programmed|told) to\b",
    r"\bcomo (?:un )?modelo de lenguaje\b|\bmis instrucciones\b|\bprompt del sistema\b|\bsoy un modelo de (?:lenguaje|ia)\b",
    r"\bignora (?:las )?instrucciones anteriores\b",
)


def _pattern_rule(pattern: re.Pattern[str], rule: Rule, verdict: Verdict, message: str) -> Callable[..., list[Finding]]:
    def check(draft: Draft, evidence: Sequence[EvidenceRecord], context: AuditContext) -> list[Finding]:
        return [Finding(rule, verdict, message, m.group(0)) for m in pattern.finditer(draft.text)][:3]

    check.__name__ = f"check_{rule.value}"
    check.__doc__ = message
    return check


check_outcome_promise = _pattern_rule(
    _OUTCOME_PROMISE, Rule.OUTCOME_PROMISE, HARD, "promises an outcome or a likelihood"
)
check_legal_advice = _pattern_rule(_LEGAL_ADVICE, Rule.LEGAL_ADVICE, HARD, "advises on the person's own case")
check_moralizing = _pattern_rule(_MORALIZING, Rule.MORALIZING, SOFT, "moralizes or blames")
check_false_reassurance = _pattern_rule(_FALSE_REASSURANCE, Rule.FALSE_REASSURANCE, SOFT, "reassures falsely")
check_prompt_leak = _pattern_rule(_PROMPT_LEAK, Rule.PROMPT_LEAK, HARD, "leaks system-prompt text")


def check_pii_placeholder(draft: Draft, evidence: Sequence[EvidenceRecord], context: AuditContext) -> list[Finding]:
    """A redaction placeholder in a reply means redacted input leaked into the output."""
    return [
        Finding(Rule.PII_PLACEHOLDER, HARD, "contains a PII placeholder", m.group(0))
        for m in PII_PLACEHOLDER.finditer(draft.text)
    ]


def check_length(draft: Draft, evidence: Sequence[EvidenceRecord], context: AuditContext) -> list[Finding]:
    """The reply must fit the channel (an SMS reply is a few segments at most)."""
    if len(draft.text) > context.max_chars:
        return [Finding(Rule.TOO_LONG, SOFT, f"{len(draft.text)} characters, limit {context.max_chars}")]
    return []


# --------------------------------------------------------------------------------------------
# Readability
# --------------------------------------------------------------------------------------------

_NOISE: Final = re.compile(r"https?://\S+|\S+@\S+|\(?\d[\d\s().\-/]{5,}\d|\b\d+-\d+-\d+\b")
_WORD: Final = re.compile(r"[A-Za-zÁÉÍÓÚÜÑáéíóúüñ']+")


def _syllables_en(word: str) -> int:
    w = word.lower().strip("'")
    if len(w) <= 3:
        return 1
    w = re.sub(r"(?:[^laeiouy]es|ed|[^laeiouy]e)$", "", w)
    w = re.sub(r"^y", "", w)
    return max(1, len(re.findall(r"[aeiouy]{1,2}", w)))


def _syllables_es(word: str) -> int:
    w = word.lower()
    # Vowel nuclei; a strong-strong pair (a, e, o) or an accented í/ú is a hiatus: two syllables.
    nuclei = re.findall(r"[iuü]?[aeoáéó][iuy]?(?![aeoáéó])|[iuü][aeoáéó]|[iu][iu]|[íú]|[aeoáéóiuü]", w)
    return max(1, len(nuclei))


def readability(text: str, language: str) -> tuple[float, int]:
    """Return (score, words): Flesch-Kincaid grade for English, Fernández-Huerta ease for Spanish."""
    cleaned = _NOISE.sub(" ", _BRACKET.sub(" ", text))
    sentences = [s for s in re.split(r"(?<=[.!?:])\s+|\n+", cleaned) if _WORD.search(s)]
    words = _WORD.findall(cleaned)
    if not words:
        return (0.0, 0) if language != "es" else (100.0, 0)
    n_s = max(1, len(sentences))
    if language == "es":
        syll = sum(_syllables_es(w) for w in words)
        p = 100 * syll / len(words)
        f = 100 * n_s / len(words)
        return 206.84 - 0.60 * p - 1.02 * f, len(words)
    syll = sum(_syllables_en(w) for w in words)
    return 0.39 * len(words) / n_s + 11.8 * syll / len(words) - 15.59, len(words)


def check_readability(draft: Draft, evidence: Sequence[EvidenceRecord], context: AuditContext) -> list[Finding]:
    """Plain language: a reader a week out of prison, on a phone, possibly in a second language."""
    score, words = readability(draft.text, context.language)
    if words < MIN_WORDS_FOR_READABILITY:
        return []
    if context.language == "es" and score < MIN_FERNANDEZ_HUERTA_ES:
        return [
            Finding(
                Rule.READABILITY, SOFT, f"Fernández-Huerta ease {score:.0f} (minimum {MIN_FERNANDEZ_HUERTA_ES:.0f})"
            )
        ]
    if context.language != "es" and score > MAX_GRADE_EN:
        return [Finding(Rule.READABILITY, SOFT, f"grade level {score:.1f} (maximum {MAX_GRADE_EN:.0f})")]
    return []


RULES: Final[tuple[Callable[[Draft, Sequence[EvidenceRecord], AuditContext], list[Finding]], ...]] = (
    check_citations,
    check_scope,
    check_outcome_promise,
    check_legal_advice,
    check_moralizing,
    check_false_reassurance,
    check_readability,
    check_length,
    check_pii_placeholder,
    check_prompt_leak,
)


def tightest(verdicts: Iterable[Verdict]) -> Verdict:
    """Return the most severe verdict (pass when there is none)."""
    return max(verdicts, default=Verdict.PASS)


def check_draft(
    *, draft: str, evidence: Sequence[EvidenceRecord], context: AuditContext, statements: Sequence[Statement] = ()
) -> AuditResult:
    """Run every rule over a draft (and its structured statements, if any); the verdict is the tightest finding's."""
    parsed = Draft.parse(draft, statements)
    findings = tuple(f for rule in RULES for f in rule(parsed, evidence, context))
    return AuditResult(tightest(f.verdict for f in findings), findings)


# --------------------------------------------------------------------------------------------
# The LLM auditor's findings: validated strictly, and they can only tighten
# --------------------------------------------------------------------------------------------


class _LlmFinding(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    rule: Rule
    verdict: Verdict
    message: str = Field(max_length=500)
    span: str = Field(default="", max_length=500)
    entry: str = Field(default="", max_length=80)


class _LlmAuditPayload(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    findings: list[_LlmFinding] = Field(max_length=20)


class _LlmEnvelope(BaseModel):
    """The payload's shape with each finding still unchecked: one bad finding must not discard the others."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    findings: list[dict[str, Any]] = Field(max_length=20)


LLM_FINDINGS_JSON_SCHEMA: Final[dict[str, Any]] = _LlmAuditPayload.model_json_schema()


def _problems(exc: ValidationError) -> str:
    # Field locations and error types only: the payload may quote the draft.
    return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['type']}" for e in exc.errors())


def parse_llm_findings(payload: dict[str, Any]) -> list[Finding]:
    """Validate the LLM auditor's JSON (`{"findings": [{rule, verdict, message, span, entry}]}`).

    A malformed envelope raises ValueError (the caller keeps the rule result). A finding under a
    rule name we do not know is dropped alone — the auditor can only add findings, so dropping one
    never loosens anything the rules found, and the others still count. Any other off-schema
    finding (unknown verdict, extra key, too long) rejects the payload: it is not the auditor we asked.
    """
    if not isinstance(payload, dict):
        raise ValueError("LLM audit payload must be a JSON object")
    try:
        envelope = _LlmEnvelope.model_validate(payload, strict=False)
    except ValidationError as exc:
        raise ValueError(f"LLM audit payload rejected: {_problems(exc)}") from None
    known = {rule.value for rule in Rule}
    findings: list[Finding] = []
    for index, raw in enumerate(envelope.findings):
        if raw.get("rule") not in known:
            continue
        try:
            f = _LlmFinding.model_validate(raw, strict=False)
        except ValidationError as exc:
            raise ValueError(f"LLM audit payload rejected: findings.{index}: {_problems(exc)}") from None
        findings.append(Finding(f.rule, f.verdict, f.message, f.span, f.entry))
    return findings


def combine(rule_result: AuditResult, llm_findings: Sequence[Finding]) -> AuditResult:
    """Add the LLM auditor's findings; the verdict can rise above the rules' verdict, never fall below it."""
    extra = tuple(Finding(Rule(f.rule), Verdict(f.verdict), f.message, f.span, f.entry) for f in llm_findings)
    verdict = tightest([rule_result.verdict, *(f.verdict for f in extra)])
    return AuditResult(verdict, rule_result.findings + extra)
