"""A faster exact encoder for tiktoken vocabularies (Llama 3, cl100k, Qwen, a user's file).

On traffic that shares nothing, BPE is the floor of ``analyze``: every prompt is new text.
riptoken reimplements tiktoken's encoder (the same ranks, the same split pattern through
the same kind of backtracking regex) and encodes about 1.8 times as fast on one core here,
releasing the GIL as tiktoken does. Exact is checked, not assumed: riptoken's encoder is
kept only when it gives exactly tiktoken's ids on ``PROBE`` (many scripts, code, digits,
whitespace runs, emoji, combining marks); otherwise, or when riptoken is not installed or
not asked for, tiktoken encodes as before. The tests compare the two id for id on
a larger corpus and on random text for every family.

It is off unless ``ADVISOR_FAST_BPE=1``: riptoken holds a second copy of the vocabulary
(about 36 MB more at the peak on the demo traffic, 123 -> 159 MB), which would put
``analyze``'s memory above the peer tools' median, and it only pays on traffic that shares
little (on the demo traffic the memo leaves it nothing to gain).

tokie, faster still (3.5x tiktoken here), was measured and left out: its pre-tokenizer
splits whitespace runs differently (``"\\n   \\n"`` is one piece to tiktoken, two to tokie),
and 10% of random whitespace-heavy strings came out with other ids.
"""

from __future__ import annotations

import os
from array import array
from typing import Any, Callable

from advisor.ingest.ids import TYPECODE

# Text that exercises every alternative of the split patterns and the byte-level paths:
# contractions in both cases, letters of several scripts, digit runs of every length, marks
# and symbols, whitespace runs before words, newlines in runs, emoji joined and not.
PROBE = (
    "Hello, world! It's DON'T we'll they'VE I'm you'D she'S   spaced    words\n\n\n  indented\n"
    "\tTab\t\tdouble tabs \r\n CRLF line\r\rcarriage 1 12 123 1234 12345 3.14159 -42 1e10 0x1F\n"
    "def f(x):\n    return {'k': [1, 2, 3], \"v\": x ** 2}  # comment\n\n\n\n"
    "Größe Übergröße naïve café résumé façade Ærø ŒUVRE İstanbul ıi ß ẞ\n"
    "Привет, мир! Съешь же ещё этих мягких булок. Ελληνικά κείμενα.\n"
    "日本語のテキストと漢字、カタカナ。中文文本，標點符號！한국어 텍스트입니다.\n"
    "العربية نص تجريبي ١٢٣ עברית טקסט हिन्दी पाठ ไทยภาษา\n"
    "emoji 👍🏽 👨‍👩‍👧‍👦 🇩🇪 ✔️ ©®™ — – … «quotes» “curly” ‘single’\n"
    "combining e\u0301 a\u0308 n\u0303 zero\u200bwidth nbsp\u00a0here\u3000ideographic\n"
    "   \n \n\n   trailing spaces   \t \n<|not_special|> <<<>>> ##### ---- ==== ____ ....\n"
    "URL https://example.com/a/b?c=1&d=2#frag email a.b+c@ex.co path C:\\Users\\x\\y.txt\n"
    '{"json": true, "n": null, "list": [1.5, -2, "s"], "nested": {"a": {"b": []}}}\n'
    "SELECT id, name FROM users WHERE age >= 21 ORDER BY name DESC;\n"
    + "x" * 300 + " " + "ab" * 150 + "\n" + " " * 40 + "end " + "9" * 41 + "\n"
)


def fast_ordinary(encoding: Any, enabled: bool | None = None) -> Callable[[str], bytes] | None:
    """``encoding.encode_ordinary`` as packed uint32 ids through riptoken, or None where it
    is not ``enabled`` (default: ``ADVISOR_FAST_BPE=1``), missing, or not exact on the probe
    for this vocabulary."""
    if not (enabled if enabled is not None else os.environ.get("ADVISOR_FAST_BPE") == "1"):
        return None
    try:
        import riptoken
    except ImportError:
        return None
    try:
        core = riptoken.CoreBPE(encoding._mergeable_ranks, {}, encoding._pat_str)
    except Exception:  # a pattern or vocabulary it cannot take: tiktoken's path stays
        return None
    encode = core.encode_ordinary
    if any(encode(text) != encoding.encode_ordinary(text) for text in probe_texts()):
        return None

    def ordinary(piece: str) -> bytes:
        return array(TYPECODE, encode(piece)).tobytes()

    return ordinary


def probe_texts() -> list[str]:
    """The probe whole, by line, and every line after its first character (pieces start
    anywhere in a prompt)."""
    lines = PROBE.splitlines(keepends=True)
    return [PROBE, *lines, *(line[1:] for line in lines)]
