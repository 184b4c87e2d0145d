"""The one way advisor opens a path that came from untrusted input or an untrusted tree.

advisor runs in CI on pull requests: a template folder, a lint tree, a record's
``template`` name or an ``{% include %}`` is written by someone else. So a path is opened
only if:

* it is a regular file, checked with ``fstat`` on the opened descriptor (a swap of the
  path between a check and the open cannot race it); ``O_NONBLOCK`` makes the open of a
  FIFO return at once instead of waiting for a writer, and the ``fstat`` then refuses it.
  Traffic given on the command line may also be a pipe (``advisor analyze <(zcat log.gz)``);
* it is no bigger than a cap that fits what it is (a template, a config), with a one-line
  error past it, so a committed ``evil.j2`` of gigabytes is refused, not read;
* found inside a folder, it resolves (symlinks followed) to a path inside that folder, and
  the last component is opened with ``O_NOFOLLOW`` so it cannot be swapped for a link;
* named by untrusted data, the name is one plain path component: no separator, no ``..``,
  no NUL, not absolute, not absurdly long;
* found in a model folder (``--model-dir``: its tokenizer, configs and chat template), it
  stays inside the folder's ``model_root`` wherever it is opened later: ``model_file``
  records the root with the path, and every open of that path here applies it.

Every refusal is an ``AdvisorError`` naming the path.
"""

from __future__ import annotations

import io
import json
import os
import stat
from pathlib import Path
from typing import Any, BinaryIO

from advisor.errors import AdvisorError

KiB = 1 << 10
MiB = 1 << 20
# HF chat templates are ~10-30 KB; a tokenizer_config.json with its added tokens a few MB.
MAX_TEMPLATE_BYTES = 16 * MiB
MAX_CONFIG_BYTES = 4 * MiB
# tokenizer.json of the large-vocabulary models is ~10-30 MB.
MAX_TOKENIZER_BYTES = 256 * MiB
# Longest name a record may give for a template (a file stem); 255 is the usual file-name limit.
MAX_NAME_CHARS = 200
READ_BUFFER = 1 << 20


class UnsafePath(AdvisorError):
    """A path refused before anything was read from it."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a folder"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISCHR(mode):
        return "a character device"
    if stat.S_ISBLK(mode):
        return "a block device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _size(n: int) -> str:
    return f"{n // MiB} MiB" if n >= MiB else f"{n // KiB} KiB"


def check_name(name: str, what: str = "template name") -> str:
    """A name taken from untrusted data and looked up in a folder: one plain component."""
    if not isinstance(name, str) or not name:
        raise UnsafePath(f"{what} is empty")
    if len(name) > MAX_NAME_CHARS:
        raise UnsafePath(f"{what} is {len(name)} characters long (at most {MAX_NAME_CHARS})")
    shown = name if len(name) <= 60 else name[:60] + "..."
    if "/" in name or "\\" in name or "\0" in name:
        raise UnsafePath(f"{what} {shown!r} has a path separator: only a file name is allowed")
    if name in (".", "..") or name.startswith(".."):
        raise UnsafePath(f"{what} {shown!r} is not a plain file name")
    return name


# The files found in a model folder, by absolute path as named, with the root each must resolve
# inside. The path (a string of the tokenizer spec, a chat-template option, a --model) travels
# through many callers after the folder is forgotten; so the root is kept here, where the
# file is opened, rather than handed along by each of them. Only ever narrows what an open admits.
_CONFINED: dict[str, str] = {}


def _key(path: Path | str) -> str:
    try:
        return os.path.abspath(os.fspath(path))
    except OSError:  # the working folder is gone: a relative path names nothing now anyway
        return os.path.normpath(os.fspath(path))


def model_root(folder: Path | str) -> Path:
    """The folder a model folder's files must resolve inside: the folder itself, or, for a
    HuggingFace cache snapshot (``models--org--name/snapshots/<rev>``, whose files are links
    to ``../../blobs/<sha>``), the ``models--org--name`` folder. Nothing else widens it."""
    real = Path(os.path.realpath(folder))
    repo = real.parent.parent
    if real.parent.name == "snapshots" and repo.name.startswith("models--") and len(repo.name) > len("models--"):
        return repo
    return real


def model_file(folder: Path | str, name: str) -> Path:
    """``folder/name``, confined from now on (in this process) to ``model_root(folder)``:
    every open of the path through this module refuses it if it resolves outside."""
    path = Path(folder) / name
    _CONFINED[_key(path)] = str(model_root(folder))
    return path


def confined_files() -> tuple[tuple[str, str], ...]:
    """The ``model_file`` paths and roots, for a worker process to confine them too."""
    return tuple(sorted(_CONFINED.items()))


def confine(files: tuple[tuple[str, str], ...]) -> None:
    """Take on ``confined_files()`` of another process."""
    _CONFINED.update(files)


def resolve_inside(path: Path | str, folder: Path | str) -> Path:
    """``path`` with every symlink resolved; refused unless it stays inside ``folder``."""
    root = os.path.realpath(folder)
    real = os.path.realpath(path)
    try:
        inside = os.path.commonpath([real, root]) == root
    except ValueError:  # different drives (Windows) or a mix of absolute and relative
        inside = False
    if not inside:
        raise UnsafePath(f"{path}: resolves to a path outside {folder} (symlinks may not leave the folder)")
    return Path(real)


def _open_fd(path: Path | str, within: Path | str | None, allow_pipe: bool, what: str,
             shown: str | None = None) -> tuple[int, os.stat_result]:
    root = _CONFINED.get(_key(path)) if _CONFINED else None
    if root is not None:
        if within is not None:
            resolve_inside(path, within)  # both folders hold it
        within = root
    target: Path | str = resolve_inside(path, within) if within is not None else path
    path = shown if shown is not None else path
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOCTTY", 0)
    if not allow_pipe:
        # A FIFO opens at once instead of waiting for a writer, and is refused below. A pipe
        # named on the command line is waited for, as `cat` would.
        flags |= os.O_NONBLOCK
    if within is not None:
        # Resolved already: a link in the last component now can only be a swap after the check.
        flags |= getattr(os, "O_NOFOLLOW", 0)
    try:
        fd = os.open(target, flags)
    except IsADirectoryError:
        raise UnsafePath(f"{path}: is a folder, not {what}") from None
    except FileNotFoundError:
        raise UnsafePath(f"{path}: no such file") from None
    except OSError as exc:
        raise UnsafePath(f"{path}: cannot read {what} ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        mode = info.st_mode
        if stat.S_ISREG(mode):
            pass
        elif allow_pipe and (stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)):
            pass
        else:
            allowed = "a regular file or a pipe" if allow_pipe else "a regular file"
            raise UnsafePath(f"{path}: is {_kind(mode)}, not {allowed}; refused as {what}")
    except BaseException:
        os.close(fd)
        raise
    return fd, info


def open_binary(path: Path | str, *, what: str = "file", within: Path | str | None = None,
                allow_pipe: bool = False, buffering: int = READ_BUFFER, shown: str | None = None) -> BinaryIO:
    """A buffered binary reader of a regular file (or a pipe, when ``allow_pipe``)."""
    fd, _ = _open_fd(path, within, allow_pipe, what, shown)
    return os.fdopen(fd, "rb", buffering=buffering)


def _check_size(path: Path | str, info: os.stat_result, max_bytes: int, what: str) -> None:
    if info.st_size > max_bytes:
        raise UnsafePath(f"{path}: {what} is {_size(info.st_size)}, over the {_size(max_bytes)} limit")


def check_file(path: Path | str, *, max_bytes: int, what: str = "file", within: Path | str | None = None) -> int:
    """Refuse now what reading ``path`` later would refuse (its kind, where it resolves, its
    size), without reading it; its size in bytes."""
    fd, info = _open_fd(path, within, False, what)
    os.close(fd)
    _check_size(path, info, max_bytes, what)
    return info.st_size


def read_bytes(path: Path | str, *, max_bytes: int, what: str = "file",
               within: Path | str | None = None, shown: str | None = None) -> bytes:
    """The whole content of a regular file of at most ``max_bytes`` (errors name ``shown``
    when given, else ``path``)."""
    fd, info = _open_fd(path, within, False, what, shown)
    if shown is not None:
        path = shown
    with os.fdopen(fd, "rb", buffering=0) as handle:
        _check_size(path, info, max_bytes, what)
        buf = io.BytesIO()
        # Read one byte past the cap: a file that grew after the fstat is still refused.
        while buf.tell() <= max_bytes:
            chunk = handle.read(min(READ_BUFFER, max_bytes + 1 - buf.tell()))
            if not chunk:
                break
            buf.write(chunk)
        if buf.tell() > max_bytes:
            raise UnsafePath(f"{path}: {what} is over the {_size(max_bytes)} limit")
        return buf.getvalue()


def read_text(path: Path | str, *, max_bytes: int, what: str = "file",
              within: Path | str | None = None, shown: str | None = None) -> str:
    """``read_bytes`` decoded as UTF-8 (a leading BOM dropped); bad UTF-8 names its line."""
    data = read_bytes(path, max_bytes=max_bytes, what=what, within=within, shown=shown)
    if shown is not None:
        path = shown
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise AdvisorError(f"{path}:{line}: cannot read {what} (not UTF-8 text)") from None


def parse_json(text: str | bytes, path: Path | str) -> Any:
    """JSON from a file's text; invalid or too deeply nested JSON is one line naming ``path``."""
    try:
        return json.loads(text)
    except RecursionError:  # the decoder recurses once per [ or {: a few MB of them is enough
        raise AdvisorError(f"{path}: not valid JSON (nested too deeply)") from None
    except ValueError as exc:
        raise AdvisorError(f"{path}: not valid JSON ({exc})") from None


def read_json(path: Path | str, *, max_bytes: int, what: str = "file", within: Path | str | None = None) -> Any:
    """``read_text`` parsed as JSON (``parse_json``)."""
    return parse_json(read_text(path, max_bytes=max_bytes, what=what, within=within), path)


def find_in(folders: list[Path], name: str, suffixes: tuple[str, ...]) -> tuple[Path, Path] | None:
    """The first ``folder/name+suffix`` that exists, as (path, folder); ``name`` is checked
    first. Existence only: opening it goes through ``read_text(..., within=folder)``."""
    check_name(name)
    for folder in folders:
        for suffix in suffixes:
            candidate = folder / f"{name}{suffix}"
            try:
                if os.path.lexists(candidate):
                    return candidate, folder
            except (OSError, ValueError):
                continue
    return None
