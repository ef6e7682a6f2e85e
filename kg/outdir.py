"""A build's output folder: one writer at a time, a temporary sibling, an atomic swap, no litter.

A build holds an exclusive ``flock`` on ``.OUT.lock`` beside ``OUT`` from start to swap.  The
kernel drops the lock when the process dies, SIGKILL included, so the holder knows that every
``.OUT.tmp-*`` and ``.OUT.old-*`` sibling was left by a dead build and may be removed; a second build
into the same ``OUT`` fails at once with a message naming the first.  The swap exchanges the new
folder with ``OUT`` in one ``renameat2(RENAME_EXCHANGE)`` where the kernel and file system offer it,
so a reader sees the old graph or the new one and never no graph; elsewhere it falls back to two
renames, and the next build puts a folder stranded between them back.
"""

from __future__ import annotations

import ctypes
import errno
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from kg.errors import BuildError

_AT_FDCWD = -100
_RENAME_EXCHANGE = 2


@contextmanager
def exclusive(out: Path) -> Iterator[None]:
    """Hold ``out``'s build lock, after clearing what dead builds left; fail clearly if it is held."""
    out.parent.mkdir(parents=True, exist_ok=True)
    lock = out.parent / f".{out.name}.lock"
    fd = _acquire(lock, out)
    try:
        _recover(out)
        yield
    finally:
        # Unlink while still holding the lock: _acquire's inode check makes a waiter that opened the
        # old file try again, so two holders are impossible.
        lock.unlink(missing_ok=True)
        os.close(fd)


def _acquire(lock: Path, out: Path) -> int:
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = os.read(fd, 32).decode("ascii", "replace").strip() or "unknown"
            os.close(fd)
            raise BuildError(
                f"another kg build (pid {holder}) is writing {out}; wait for it to finish or choose another -o"
            ) from None
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            os.ftruncate(fd, 0)
            os.write(fd, str(os.getpid()).encode("ascii"))
            return fd
        os.close(fd)  # the holder we waited on removed this file; lock the new one


def _recover(out: Path) -> None:
    """Put back a graph stranded between two renames, then remove every dead build's folder."""
    olds = sorted(out.parent.glob(f".{out.name}.old-*"), key=lambda p: p.stat().st_mtime)
    if not out.exists() and olds:
        olds.pop().rename(out)
    for litter in [*olds, *out.parent.glob(f".{out.name}.tmp-*")]:
        shutil.rmtree(litter, ignore_errors=True)


def temporary(out: Path) -> Path:
    """A new, empty sibling of ``out`` to write into (same file system, so the swap is a rename)."""
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.name}.tmp-", dir=out.parent))
    tmp.chmod(0o755)
    return tmp


def swap(tmp: Path, out: Path) -> None:
    """Replace ``out`` by the complete folder ``tmp``; readers never see a half-written folder."""
    if out.exists() and not (out / "summary.json").exists() and any(out.iterdir()):
        raise BuildError(f"{out} exists and is not a paperkg output folder; choose another -o")
    if out.exists() and _exchange(tmp, out):
        shutil.rmtree(tmp, ignore_errors=True)  # tmp now holds the previous graph
        return
    old = out.with_name(f".{out.name}.old-{os.getpid()}")
    if out.exists():
        out.rename(old)
    tmp.rename(out)
    shutil.rmtree(old, ignore_errors=True)


def _exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically; False where the platform or file system cannot."""
    renameat2 = getattr(ctypes.CDLL(None, use_errno=True), "renameat2", None)
    if renameat2 is None:
        return False
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    err = ctypes.get_errno()
    if err in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP):
        return False
    raise OSError(err, os.strerror(err), str(b))
