"""Output files that appear whole or not at all.

A compiler that dies half way (an error, Ctrl-C, a crash in native code) must not leave a truncated
`.mlir` or `.vmfb` where a build system would take it for a result. Writers get a temporary file in
the destination's directory (same file system, so the final rename is atomic) and the rename
happens only when the block finishes without an exception.
"""

import contextlib
import os
from pathlib import Path

from strata.errors import StrataError

TEMP_PREFIX = ".strata-tmp-"


@contextlib.contextmanager
def atomic_write(path, mode: str = "w", *, encoding: str | None = None):
    """Yields a file object; on success it replaces `path`, on any exception it is removed."""
    path = Path(path)
    directory = path.parent if str(path.parent) else Path(".")
    if not directory.is_dir():
        raise StrataError(f"cannot write '{path}': directory '{directory}' does not exist")
    import tempfile  # here, not at the top: it costs every tool ~10 ms of start-up

    try:
        fd, tmp = tempfile.mkstemp(prefix=TEMP_PREFIX + path.name + ".", dir=directory)
    except OSError as e:
        raise StrataError(f"cannot write '{path}': {e.strerror}") from None
    try:
        with os.fdopen(fd, mode, encoding=encoding if "b" not in mode else None) as f:
            f.temp_path = tmp  # so a supervising process can remove it if this one crashes
            yield f
        os.chmod(tmp, 0o644)
        try:
            os.replace(tmp, path)
        except OSError as e:
            raise StrataError(f"cannot write '{path}': {e.strerror}") from None
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def write_bytes_atomic(path, data: bytes) -> None:
    with atomic_write(path, "wb") as f:
        f.write(data)


def write_text_atomic(path, text: str) -> None:
    with atomic_write(path, "w", encoding="utf-8") as f:
        f.write(text)
