"""The GSM 03.38 alphabet and SMS segment arithmetic: the one place a text's SMS parts are counted.

One GSM-7 message holds 160 septets, each part of a multi-part one 153 (the rest is the UDH);
UCS-2 holds 70 UTF-16 units, 67 per part (3GPP TS 23.038 / 23.040). Extension characters
(e.g. `€ [ ] { }`) take two septets (escape + code) and, like surrogate pairs in UCS-2, a carrier
never splits them across parts: a part then closes one unit short and the text may need one more
part than a plain division says. The SMS sender and the crisis handoffs (which must arrive whole in
two parts) count with these functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

GSM7_BASIC: Final = frozenset(
    "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿"
    "abcdefghijklmnopqrstuvwxyzäöñüà"
)
GSM7_EXTENDED: Final = frozenset("^{}\\[~]|€\f")

GSM7: Final = "GSM-7"
UCS2: Final = "UCS-2"
SINGLE: Final[dict[str, int]] = {GSM7: 160, UCS2: 70}
PART: Final[dict[str, int]] = {GSM7: 153, UCS2: 67}


@dataclass(frozen=True)
class SegmentInfo:
    """How a text travels: its encoding, the SMS parts it takes and its length in septets or UTF-16 units."""

    encoding: str
    segments: int
    units: int


def is_gsm7(ch: str) -> bool:
    """True when `ch` is in the GSM-7 default alphabet or its extension table."""
    return ch in GSM7_BASIC or ch in GSM7_EXTENDED


def encoding_of(text: str) -> str:
    """'GSM-7' when every character is in the GSM 03.38 default alphabet or its extension, else 'UCS-2'."""
    return GSM7 if all(is_gsm7(ch) for ch in text) else UCS2


def _units(ch: str, encoding: str) -> int:
    if encoding == GSM7:
        return 2 if ch in GSM7_EXTENDED else 1
    return 2 if ord(ch) > 0xFFFF else 1


def segment_info(text: str) -> SegmentInfo:
    """Encoding, number of SMS parts and length in septets (GSM-7) or UTF-16 units (UCS-2)."""
    encoding = encoding_of(text)
    units = sum(_units(ch, encoding) for ch in text)
    if units == 0:
        return SegmentInfo(encoding, 0, 0)
    if units <= SINGLE[encoding]:
        return SegmentInfo(encoding, 1, units)
    part, used, segments = PART[encoding], 0, 1
    for ch in text:
        size = _units(ch, encoding)
        if used + size > part:  # an escape pair or surrogate pair never straddles two parts
            segments += 1
            used = 0
        used += size
    return SegmentInfo(encoding, segments, units)
