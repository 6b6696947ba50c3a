"""Text files in the encodings people's tools write, and binary files told apart from text.

Windows tools often write UTF-16 with a byte-order mark, older ones cp1252 or Latin-1; a
file renamed to ``.txt`` may be anything. The order of the checks matters:

1. A byte-order mark names the encoding outright (UTF-32 before UTF-16: the UTF-32 LE mark
   begins with the UTF-16 LE one).
2. Strict UTF-8 next: most text is UTF-8, and valid UTF-8 is rarely anything else.
3. A NUL byte without a mark means binary: no single-byte text encoding uses it.
4. Windows-1252 (a superset of Latin-1's printable range, and the web's default for
   legacy Western text) when every byte is defined there and the text reads as Western:
   most letters plain ASCII, the rest accented Latin letters and typographic marks. Short
   Western texts are where statistical detectors guess worst (curly quotes and a euro sign
   alone look like a dozen code pages).
5. Otherwise charset-normalizer (the detector ``requests`` relies on) picks the most
   coherent encoding (Cyrillic, Greek, Central European ...); when it finds none, or the
   decoded text is mostly control characters, the file is binary.
"""

from __future__ import annotations

import codecs
import unicodedata
from dataclasses import dataclass

import charset_normalizer

_BOMS: tuple[tuple[bytes, str], ...] = (
    (codecs.BOM_UTF32_LE, "utf-32-le"),
    (codecs.BOM_UTF32_BE, "utf-32-be"),
    (codecs.BOM_UTF8, "utf-8-sig"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)
_TEXT_CONTROLS = frozenset("\n\r\t\f\v")
MAX_NON_ASCII_LETTER_SHARE = 0.3
"""Western text: at most this share of its letters are not plain ASCII."""
MAX_CONTROL_SHARE = 0.01
"""Above this share of control characters (other than line breaks and tabs), not text."""


class NotText(ValueError):
    """The bytes are not text in any encoding this module reads; the message says why."""


@dataclass(frozen=True)
class DecodedText:
    """A file's text and the encoding it was read with (Python's codec name)."""

    text: str
    encoding: str


def decode_text(data: bytes) -> DecodedText:
    """Decode a text file's bytes, detecting the encoding.

    Raises:
        NotText: the bytes look binary, or no encoding decodes them coherently.
    """
    for bom, encoding in _BOMS:
        if data.startswith(bom):
            try:
                return _checked(data[len(bom) :].decode(encoding), encoding.removesuffix("-sig"))
            except UnicodeDecodeError as exc:
                raise NotText(
                    f"starts with a {encoding} byte-order mark but is not {encoding}"
                ) from exc
    try:
        return _checked(data.decode("utf-8"), "utf-8")
    except UnicodeDecodeError:
        pass
    if b"\x00" in data:
        raise NotText("binary data (NUL bytes), not text")
    western = _as_western(data)
    if western is not None:
        return _checked(western, "cp1252")
    best = charset_normalizer.from_bytes(data).best()
    if best is None:
        raise NotText("binary data or an unknown text encoding")
    return _checked(str(best), best.encoding)


def _as_western(data: bytes) -> str | None:
    """The bytes as Windows-1252 text when they read as Western text, else None."""
    try:
        text = data.decode("cp1252")
    except UnicodeDecodeError:  # a byte cp1252 leaves undefined
        return None
    letters = [ch for ch in text if ch.isalpha()]
    foreign = [ch for ch in letters if not ch.isascii()]
    if not letters or len(foreign) > MAX_NON_ASCII_LETTER_SHARE * len(letters):
        return None
    if any("LATIN" not in unicodedata.name(ch, "") for ch in foreign):
        return None
    return text


def _checked(text: str, encoding: str) -> DecodedText:
    if "\x00" in text:
        raise NotText("binary data (NUL bytes), not text")
    if text:
        controls = sum(1 for ch in text if ch < " " and ch not in _TEXT_CONTROLS)
        if controls / len(text) > MAX_CONTROL_SHARE:
            raise NotText(f"binary data (control characters), not {encoding} text")
    return DecodedText(text=text, encoding=encoding)
