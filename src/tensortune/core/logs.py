"""TVM's own log lines (printed by its C++ core straight to file descriptor 2) into a file.

A model build prints hundreds of lines such as "Unroll hint get ignore at CodeGenLLVM backend"; a
user wants them kept, not on the console. Python's ``logging`` cannot catch them: they never pass
through Python, so the descriptor itself is pointed at the file for the duration.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Iterator


@contextlib.contextmanager
def native_log(path: str | None) -> Iterator[None]:
    """Within the block, everything written to fd 2 (TVM's C++ logs, warnings) is appended to
    ``path``; with ``path`` None, nothing changes."""
    if path is None:
        yield
        return
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    sys.stderr.flush()
    saved = os.dup(2)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        os.dup2(fd, 2)
        yield
    finally:
        sys.stderr.flush()
        os.dup2(saved, 2)
        os.close(saved)
        os.close(fd)
