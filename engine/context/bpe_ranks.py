"""tiktoken's ``.tiktoken`` rank files (one ``<base64 token> <rank>`` per line, optionally gzipped), read and
checked for ``engine.context.tokens``.

The file is parsed in slices of whole lines, each split and decoded at C speed: twice as fast as line by line (the
load runs in a thread while a turn streams, and holds the interpreter while it parses), with no list of every line
beside the dict, and a slice is short enough (a few tenths of a millisecond) for the interpreter to switch threads
between two.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
from pathlib import Path

# The size of the slices a data file is parsed in (about 1,000 ranks, a few tenths of a millisecond each).
SLICE_BYTES = 16 * 1024


def read_ranks(path: Path, sha256: str) -> dict[bytes, int]:
    """tiktoken's ``.tiktoken`` format: one ``<base64 token> <rank>`` per line, optionally gzipped."""
    data = path.read_bytes()
    if path.suffix == ".gz":
        try:
            data = gzip.decompress(data)
        except (gzip.BadGzipFile, EOFError) as exc:
            raise ValueError(f"not a valid gzip file: {exc}") from exc
    if hashlib.sha256(data).hexdigest() != sha256:
        raise ValueError("checksum mismatch (a damaged or different file)")
    ranks: dict[bytes, int] = {}
    start = 0
    while start < len(data):
        end = data.find(b"\n", start + SLICE_BYTES) + 1 or len(data)
        fields = data[start:end].split()
        if len(fields) % 2:
            raise ValueError("a line is not a token and its rank")
        ranks.update(zip(map(binascii.a2b_base64, fields[0::2]), map(int, fields[1::2])))
        start = end
    return ranks
