"""Character n-gram features shared by the message model's trainer and its runtime.

One analyzer for both sides, so a feature the pipeline learned is the feature the hook computes:
accent-folded, lower-cased words padded with spaces, n-grams of 2 to 5 characters (robust to the
typos, dropped accents and run-together words of SMS). Pure Python, no dependencies.
"""

from __future__ import annotations

import re
from itertools import pairwise
from typing import Final

from vocab import fold as accent_fold

NGRAM_MIN: Final = 2
NGRAM_MAX: Final = 5
MAX_CHARS: Final = 2000  # the longest message a turn accepts
_WORD: Final = re.compile(r"[a-z0-9ñ']+|[^\sa-z0-9ñ']")
_REPEAT: Final = re.compile(r"(.)\1{2,}")


def fold(text: str) -> str:
    """Lower-case, strip accents (keeping ñ) and squeeze letters repeated 3+ times ("nooooo" → "noo")."""
    stripped = accent_fold(text.lower().replace("ñ", "\x00")).replace("\x00", "ñ")
    return _REPEAT.sub(r"\1\1", stripped)


def analyze(text: str) -> list[str]:
    """Return the message's features: word unigrams and bigrams plus padded character n-grams."""
    words = _WORD.findall(fold(str(text)[:MAX_CHARS]))
    grams: list[str] = [f"w:{word}" for word in words]
    grams.extend(f"b:{a} {b}" for a, b in pairwise(words))
    for word in words:
        padded = f" {word} "
        for n in range(NGRAM_MIN, NGRAM_MAX + 1):
            if len(padded) < n:
                break
            grams.extend(padded[i : i + n] for i in range(len(padded) - n + 1))
    return grams
