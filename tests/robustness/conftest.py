"""Helpers of the robustness suite: build bad files, run commands, check what they print."""

from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
import zlib
from pathlib import Path

import yaml

HERE = Path(__file__).resolve().parent
CASES = yaml.safe_load((HERE / "cases.yaml").read_text(encoding="utf-8"))
GOOD = '{"prompt": "You are a careful assistant. Answer briefly and cite the manual. Question: hello"}'
GOOD_LINE = GOOD + "\n"


def report_available() -> bool:
    try:
        import advisor.commands.report  # noqa: F401
    except ImportError:
        return False
    return True


# How each traffic command is run on one file, and where its JSON says how many requests it used.
TRAFFIC_COMMANDS = {
    "analyze": (lambda f, extra: ["analyze", f, "-f", "json", *extra], lambda d: d["requests"]),
    "simulate": (lambda f, extra: ["simulate", f, "-f", "json", *extra], lambda d: d["input"]["requests"]),
    "prescribe": (lambda f, extra: ["prescribe", f, "-f", "json", *extra], lambda d: d["requests"]),
}
if report_available():
    TRAFFIC_COMMANDS["report"] = (
        lambda f, extra: ["report", "-t", f, "-f", "json", "-o", "-",
                          *[("--record-templates" if a == "--templates" else a) for a in extra]],
        lambda d: d["traffic"]["requests"],
    )


def yaml_bomb(levels: int = 9, width: int = 9) -> str:
    """Billion laughs: each anchor aliased ``width`` times by the next, ``levels`` deep."""
    lines = ["a0: &a0 [" + ", ".join(['"lol"'] * width) + "]"]
    for i in range(1, levels):
        lines.append(f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * width) + "]")
    return "\n".join(lines) + "\n"


def truncated_gzip(n: int = 400) -> tuple[bytes, int]:
    """A gzip stream cut in the middle, and how many whole lines it still holds."""
    import random

    rng = random.Random(7)
    lines = "".join(
        json.dumps({"prompt": "shared header. " + " ".join(rng.choice("abcdefghijklmnop") * 3 for _ in range(40))}) + "\n"
        for _ in range(n)
    ).encode()
    data = gzip.compress(lines, mtime=0)
    cut = data[: len(data) // 2]
    body = zlib.decompressobj(31).decompress(cut)
    return cut, body.count(b"\n")


def build_traffic(case: dict, path: Path) -> tuple[int, dict[int, str]]:
    """Write the case's traffic file; return (good records expected, skips expected)."""
    make = case.get("make")
    skips = {int(k): v for k, v in (case.get("skips") or {}).items()}
    good = case.get("good", 2)
    if make is None:
        body = "".join(line + "\n" for line in case["lines"])
        path.write_text(GOOD_LINE + body + GOOD_LINE if case.get("wrap", True) else body, encoding="utf-8")
        return good, skips
    head, tail = GOOD_LINE.encode(), GOOD_LINE.encode()
    if make == "deep-nesting":
        middle = b"[" * 200_000 + b"]" * 200_000 + b"\n"
    elif make == "nested-prompt":
        middle = b'{"prompt": ' + b'{"a": ' * 500 + b"1" + b"}" * 500 + b"}\n"
    elif make == "nul-bytes":
        middle = b'{"prompt": "a\x00b"}\n\x00\x00\x00\x00\n'
        good = 2
    elif make == "invalid-utf8":
        middle = b'{"prompt": "caf\xe9 \xff\xfe"}\n'
    elif make == "huge-line":
        middle = b'{"prompt": "' + b"lorem ipsum " * (50_000_000 // 12) + b'"}\n'
    elif make == "crlf":
        path.write_bytes((GOOD + "\r\n").encode() * 3)
        return 3, {}
    elif make == "empty":
        path.write_bytes(b"")
        return 0, {}
    elif make == "blank-only":
        path.write_bytes(b"\n\n   \n\t\n\r\n")
        return 0, {}
    elif make == "not-gzip":
        path.write_bytes(GOOD_LINE.encode() * 3)
        return 0, {}
    elif make == "truncated-gzip":
        cut, whole = truncated_gzip()
        path.write_bytes(cut)
        return whole, {whole + 1: "gzip stream is corrupt or truncated"}
    elif make == "gzip-garbage":
        path.write_bytes(gzip.compress(GOOD_LINE.encode() * 5, mtime=0) + b"this is not gzip")
        return 5, {6: "gzip stream is corrupt or truncated"}
    elif make == "deep-arguments":
        args: object = 1
        for _ in range(1000):
            args = {"a": args}
        call = {"function": {"name": "f", "arguments": "__ARGS__"}}
        record = {"messages": [{"role": "user", "content": "x"}, {"role": "assistant", "tool_calls": [call]}]}
        middle = json.dumps(record).replace('"__ARGS__"', "{\"a\": " * 1000 + "1" + "}" * 1000).encode() + b"\n"
    elif make == "deep-tools":
        params = '{"p": ' * 990 + "1" + "}" * 990
        tool = '{"type": "function", "function": {"name": "f", "parameters": ' + params + "}}"
        middle = ('{"messages": [{"role": "user", "content": "x"}], "tools": [' + tool + "]}\n").encode()
    elif make == "bom":
        path.write_bytes(b"\xef\xbb\xbf" + GOOD_LINE.encode() * 3)
        return 3, {}
    elif make in ("gzip-unnamed", "bzip2", "xz", "zstd"):
        import bz2
        import lzma

        body = GOOD_LINE.encode() * 3
        packed = {"gzip-unnamed": lambda b: gzip.compress(b, mtime=0), "bzip2": bz2.compress, "xz": lzma.compress,
                  "zstd": lambda b: b"\x28\xb5\x2f\xfd" + b"\x00" * 16}[make](body)
        path.write_bytes(packed)
        return (0 if make == "zstd" else 3), {}
    elif make == "gzip-blank":
        # ~870 MB of blank lines in ~850 KB of gzip, between two records.
        comp = zlib.compressobj(9, zlib.DEFLATED, 31)
        parts = [comp.compress(GOOD_LINE.encode())]
        block = b"\n" * (1 << 20)
        for _ in range(830):
            parts.append(comp.compress(block))
        parts.append(comp.compress(GOOD_LINE.encode()))
        parts.append(comp.flush())
        path.write_bytes(b"".join(parts))
        return 2, {}
    else:
        raise AssertionError(f"unknown make {make!r}")
    path.write_bytes(head + middle + tail)
    return good, skips


def build_text(case: dict) -> bytes:
    if "bytes" in case:
        return case["bytes"].encode("latin-1")
    make = case.get("make")
    if make is None:
        return case["text"].encode("utf-8")
    if make == "yaml-bomb":
        return yaml_bomb().encode()
    if make == "yaml-bomb-prompt":
        return (yaml_bomb() + "messages:\n  - role: system\n    content: *a8\n").encode()
    if make == "yaml-bomb-prompty":
        return ("---\n" + yaml_bomb() + "---\nsystem:\nYou help. {{ question }}\n").encode()
    if make == "deep-expression":
        return ("{{ " + "(" * 5000 + "1" + ")" * 5000 + " }}").encode()
    if make == "deep-blocks":
        return ("{% if a %}" * 3000 + "x" + "{% endif %}" * 3000).encode()
    if make == "deep-nesting-json":
        return b"[" * 100_000 + b"]" * 100_000
    raise AssertionError(f"unknown make {make!r}")


_SKIP_LINE = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?P<reason>.+)$")


def check_stderr(err: str) -> list[str]:
    """No traceback, and every line is a skip report or an ``advisor:`` line; return the lines."""
    assert "Traceback" not in err, err
    lines = [ln for ln in err.splitlines() if ln.strip()]
    for ln in lines:
        assert ln.startswith("advisor: ") or ln.startswith("... and ") or _SKIP_LINE.match(ln), ln
    return lines


def error_lines(err: str) -> list[str]:
    return [ln for ln in err.splitlines() if ln.startswith("advisor: error: ")]


_PEAK = ("import resource, subprocess, sys\n"
         "rc = subprocess.run(sys.argv[2:]).returncode\n"
         "open(sys.argv[1], 'w').write(str(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))\n"
         "sys.exit(rc)\n")


def run_with_peak(cmd: list[str], peak_file: Path, **kwargs) -> tuple[subprocess.CompletedProcess, int]:
    """Run ``cmd`` under a small parent of its own and return its result and the peak RSS
    (KiB) of its process tree alone. ``RUSAGE_CHILDREN`` of the test process would hold the
    largest child any earlier test of the same worker ran, so a test's memory bound would
    depend on the order the tests ran in."""
    proc = subprocess.run([sys.executable, "-c", _PEAK, str(peak_file), *cmd], **kwargs)
    return proc, int(peak_file.read_text())
