"""Leases: one process per run, one measurer per machine at a time.

Both are open-file-description locks (Linux ``F_OFD_SETLK``): the kernel drops them when the holder
exits, however it exits (SIGKILL included), so a crashed run never leaves a stale lease behind, and
two holders in one process exclude each other as two processes do.

- A **run lease** is a one-byte lock at an offset derived from the run id in ``<db>-lease`` beside
  the database: a second process on the same run is refused (or waits), processes on other runs of
  the same database go on.
- The **measure lock** is one lock for the machine (``$TENSORTUNE_LOCK_DIR`` or the temp dir, per
  user): a measurer holds it while it builds and times a batch, so two tuning runs never time kernels
  on the same cores at once; the other waits for it.
"""

from __future__ import annotations

import errno
import fcntl
import hashlib
import os
import struct
import tempfile
import time
from pathlib import Path


class LeaseBusy(Exception):
    """Another process holds the lease."""


def _flock(kind: int, start: int) -> bytes:
    # struct flock: l_type, l_whence, l_start, l_len, l_pid (0 for OFD locks); native layout and padding
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, start, 1, 0)


class _OfdLock:
    def __init__(self, path: str | os.PathLike[str], offset: int) -> None:
        self.path, self.offset = str(path), offset
        self.fd: int | None = None

    def acquire(self, wait: bool | float = False) -> None:
        """Take the lock; ``wait`` False refuses at once, True waits for ever, a number waits that many
        seconds. Raises :class:`LeaseBusy` when it cannot be had."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
        deadline = None if wait is True else time.monotonic() + float(wait or 0)
        try:
            while True:
                try:
                    fcntl.fcntl(fd, fcntl.F_OFD_SETLK, _flock(fcntl.F_WRLCK, self.offset))
                    break
                except OSError as e:
                    if e.errno not in (errno.EAGAIN, errno.EACCES):
                        raise
                    if deadline is not None and time.monotonic() >= deadline:
                        raise LeaseBusy(self.path) from None
                    time.sleep(0.05)
        except BaseException:
            os.close(fd)
            raise
        self.fd = fd

    def release(self) -> None:
        if self.fd is not None:
            os.close(self.fd)  # closing the last descriptor of the description drops its locks
            self.fd = None

    def __enter__(self) -> _OfdLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def run_lease(db_path: str | os.PathLike[str], run_id: str) -> _OfdLock:
    """The lease of ``run_id`` in the database at ``db_path`` (not yet taken)."""
    offset = int.from_bytes(hashlib.sha256(run_id.encode()).digest()[:5], "big")  # 40 bits: no collisions in practice
    return _OfdLock(Path(str(db_path) + "-lease"), offset)


def measure_lock_path() -> Path:
    base = os.environ.get("TENSORTUNE_LOCK_DIR") or tempfile.gettempdir()
    return Path(base) / f"tensortune-{os.getuid()}-measure.lock"


def measure_lock() -> _OfdLock:
    """The machine's measure lock (not yet taken)."""
    return _OfdLock(measure_lock_path(), 0)
