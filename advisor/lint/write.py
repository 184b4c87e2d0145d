"""Writing a fixed template back without losing anything the user owns.

A fix is written as soon as it is computed, one file at a time, and only over the very
file it was computed from: the file's identity (device, inode), size, modification time
and content hash are taken before it is read and checked again just before the atomic
replace, under an exclusive lock on the folder (so two advisor runs fixing one folder take
turns); a file edited in between is refused with a message naming it, and the edit stays.
The new file keeps the old one's mode, owner and extended attributes. A file with other
hard links is refused: a replace would split them, and an in-place rewrite is not atomic;
so is a read-only file.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import stat
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from advisor.errors import AdvisorError


# Reads a file's bytes the one safe way (lint.sources.read_bytes).
ReadBytes = Callable[[Path], bytes]


class Refused(AdvisorError):
    """A fix that was computed but not written; the file is as it was."""


@dataclass(frozen=True)
class Snapshot:
    """A file as it was read: what a write-back checks it against."""

    path: Path
    data: bytes
    info: os.stat_result

    @property
    def digest(self) -> bytes:
        return hashlib.sha256(self.data).digest()


def _same(a: os.stat_result, b: os.stat_result) -> bool:
    # The change time moves with any chmod, chown or xattr edit too: a mode the user changed
    # meanwhile is never put back to the one read.
    keys = ("st_dev", "st_ino", "st_size", "st_mtime_ns", "st_ctime_ns", "st_mode", "st_uid", "st_gid")
    return all(getattr(a, k) == getattr(b, k) for k in keys)


def take(path: Path, read: ReadBytes) -> Snapshot:
    """Stat, then read: if the file changes in between, the stat is older than the content
    and the check before writing refuses it (the safe direction)."""
    try:
        info = os.stat(path, follow_symlinks=False)
    except OSError as exc:
        raise AdvisorError(f"{path}: cannot read ({exc.strerror or exc})") from None
    return Snapshot(path, read(path), info)


def write_back(snap: Snapshot, data: bytes, shown: str, read: ReadBytes) -> None:
    """Replace ``snap.path`` with ``data`` if it still is the file ``snap`` saw."""
    info = snap.info
    if info.st_nlink > 1:
        raise Refused(f"{shown}: not fixed: the file has {info.st_nlink} hard links, which a rewrite would split "
                      "(apply the fix with --diff and patch)")
    if not info.st_mode & (stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH):
        # A rename replaces a file whatever its mode, even as root: a read-only file says no.
        raise Refused(f"{shown}: not fixed: the file is read-only")
    folder = snap.path.parent
    try:
        dir_fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as exc:
        raise Refused(f"{shown}: not fixed: cannot open its folder ({exc.strerror or exc})") from None
    tmp: str | None = None
    try:
        fcntl.flock(dir_fd, fcntl.LOCK_EX)
        fd, tmp = tempfile.mkstemp(prefix=f".{snap.path.name}.", suffix=".advisor-fix", dir=folder)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            _keep_attributes(handle.fileno(), snap.path, info, shown)
            os.fsync(handle.fileno())
        _check_unchanged(snap, shown, read)
        os.replace(tmp, snap.path)
        tmp = None
        os.fsync(dir_fd)
    except OSError as exc:
        raise Refused(f"{shown}: not fixed: cannot write ({exc.strerror or exc})") from None
    finally:
        if tmp is not None:
            try:
                os.unlink(tmp)
            except OSError:
                pass
        os.close(dir_fd)  # closing the descriptor releases the lock


def _check_unchanged(snap: Snapshot, shown: str, read: ReadBytes) -> None:
    changed = Refused(f"{shown}: not fixed: the file changed while advisor was fixing it (run the fix again)")
    try:
        now = os.stat(snap.path, follow_symlinks=False)
    except FileNotFoundError:
        raise changed from None
    if not stat.S_ISREG(now.st_mode) or not _same(now, snap.info):
        raise changed
    try:
        again = read(snap.path)
    except AdvisorError:
        raise changed from None
    if hashlib.sha256(again).digest() != snap.digest:
        raise changed


def _keep_attributes(fd: int, path: Path, info: os.stat_result, shown: str) -> None:
    """The new file gets the old one's permission bits, owner and extended attributes
    (ACLs and security labels live there on Linux)."""
    if (info.st_uid, info.st_gid) != (os.geteuid(), os.getegid()):
        try:
            os.fchown(fd, info.st_uid, info.st_gid)
        except PermissionError:
            raise Refused(f"{shown}: not fixed: it belongs to another user, and a rewrite by this one "
                          "would change its owner") from None
    # After the owner: a chown clears the set-user-ID and set-group-ID bits.
    os.fchmod(fd, stat.S_IMODE(info.st_mode))
    if not hasattr(os, "listxattr"):
        return
    try:
        names = os.listxattr(path, follow_symlinks=False)
    except OSError as exc:
        if exc.errno in (errno.ENOTSUP, errno.EOPNOTSUPP):
            return
        raise
    for name in names:
        try:
            os.setxattr(fd, name, os.getxattr(path, name, follow_symlinks=False))
        except OSError as exc:
            raise Refused(f"{shown}: not fixed: cannot keep its extended attribute {name} "
                          f"({exc.strerror or exc})") from None
