"""Where a command's output may go: checked before any work, so a bad ``--output`` costs
nothing and never replaces what it should not.

``-`` is standard output for every command. Refused, each with one line naming the path:
an output that is one of the command's inputs (``analyze log.jsonl -o log.jsonl`` would
replace the traffic log), a folder (existing, or written with a trailing ``/``), a
read-only file (the atomic rename would replace it regardless of its mode, even as root),
a symlink loop, a name the file system cannot take, a folder that does not exist (never
created: a typo such as ``-o ouputs/a.md`` would otherwise put the report where nobody looks).
Extra files (the capacity-curve PNG) go beside a regular output only: never ``/dev/null.png``.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Iterable

from advisor.errors import AdvisorError

NAME_MAX = 255


def is_stdout(output: Path | str | None) -> bool:
    return output is None or str(output) == "-"


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except (OSError, ValueError):
        return os.path.realpath(a) == os.path.realpath(b)


def _inside(path: str, folder: str) -> bool:
    real, root = os.path.realpath(path), os.path.realpath(folder)
    return real != root and os.path.commonpath([real, root]) == root


def _typed_as_folder(shown: str) -> bool:
    from advisor.cli import ARGV

    for i, arg in enumerate(ARGV):
        value = arg.split("=", 1)[1] if arg.startswith("--output=") else arg
        if value.endswith("/") and value.rstrip("/") and Path(value) == Path(shown):
            return i > 0 and (ARGV[i - 1] in ("-o", "--output") or arg.startswith("--output="))
    return False


def model_inputs(model: str | None, model_dir: Path | str | None) -> list[Path | str]:
    """The model a command reads (a config.json given by path, a model folder), as inputs the
    output must not replace."""
    return [*([model] if model else []), *([model_dir] if model_dir else [])]


def _check_folder(shown: str) -> None:
    """Refuse a new output whose folder does not exist, naming that folder."""
    folder = os.path.dirname(shown) or os.curdir
    if os.path.islink(shown):
        # A dangling symlink: the file is written where the link points (``emit_bytes``).
        folder = os.path.dirname(os.path.realpath(shown))
    if not os.path.isdir(folder):
        raise AdvisorError(f"{shown}: folder {folder} does not exist (advisor does not create folders)")


def check_output(output: Path | str | None, inputs: Iterable[Path | str] = ()) -> None:
    """Refuse a destination the report must not be written to (see the module's docstring)."""
    if is_stdout(output):
        return
    shown = str(output)
    try:
        os.fsencode(shown)
    except UnicodeError:
        raise AdvisorError(f"{shown!r}: output path cannot be encoded for the file system") from None
    if shown.endswith(("/", os.sep)) or _typed_as_folder(shown):
        raise AdvisorError(f"{shown}: is a folder; give a file name for the output")
    if any(len(os.fsencode(part)) > NAME_MAX for part in Path(shown).parts):
        raise AdvisorError(f"{shown[:80]}...: output file name is longer than {NAME_MAX} bytes")
    exists = os.path.lexists(shown)
    for item in inputs:
        if str(item) == "-":
            continue
        if _same(shown, str(item)):
            raise AdvisorError(f"{shown}: the output is one of the inputs; refusing to replace it")
        if exists and os.path.isdir(str(item)) and _inside(shown, str(item)):
            raise AdvisorError(f"{shown}: is a file inside the input folder {item}; refusing to replace it")
    try:
        info = os.stat(shown)
    except FileNotFoundError:
        _check_folder(shown)
        return
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise AdvisorError(f"{shown}: is a symlink loop") from None
        if exc.errno == errno.ENAMETOOLONG:
            raise AdvisorError(f"{shown[:80]}...: output path is too long") from None
        if exc.errno in (errno.ENOTDIR, errno.EACCES):
            raise AdvisorError(f"{shown}: cannot write output ({exc.strerror})") from None
        return
    if stat.S_ISDIR(info.st_mode):
        raise AdvisorError(f"{shown}: is a folder; give a file name for the output")
    if stat.S_ISREG(info.st_mode) and not info.st_mode & 0o222:
        raise AdvisorError(f"{shown}: is read-only (mode {stat.S_IMODE(info.st_mode):o}); not replacing it")


def regular_destination(output: Path | str | None) -> bool:
    """Whether ``output`` is (or will be) a regular file, so extra files may go beside it."""
    if is_stdout(output):
        return False
    try:
        return stat.S_ISREG(os.stat(str(output)).st_mode)
    except FileNotFoundError:
        return True
    except OSError:
        return False
