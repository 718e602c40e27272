"""Named numpy arrays in one file, memory-mapped back (the embedded store's persisted indexes).

Layout: ``RAGDARR1``, an 8-byte little-endian header length, a JSON header (a ``meta``
dict and, per array, its dtype, shape and offset), then each array's bytes at a 64-byte
aligned offset. A file is written whole to a temporary name and moved into place with
``os.replace``, so a reader sees the old file or the new one, never half of one.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np

MAGIC = b"RAGDARR1"
_ALIGN = 64


def write_arrays(path: Path, meta: Mapping[str, Any], arrays: Mapping[str, np.ndarray]) -> None:
    """Write ``arrays`` (C-contiguous copies are made as needed) and ``meta`` to ``path``
    atomically."""
    specs: dict[str, dict[str, Any]] = {}
    offset = 0
    prepared = {}
    for name, array in arrays.items():
        a = np.ascontiguousarray(array)
        offset = -(-offset // _ALIGN) * _ALIGN
        specs[name] = {"dtype": a.dtype.str, "shape": list(a.shape), "offset": offset}
        prepared[name] = a
        offset += a.nbytes
    header = json.dumps({"meta": dict(meta), "arrays": specs}).encode()
    start = -(-(len(MAGIC) + 8 + len(header)) // _ALIGN) * _ALIGN
    fd, tmp = tempfile.mkstemp(prefix=path.name + ".", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o644)  # readable like the store file (mkstemp makes it private)
        with os.fdopen(fd, "wb") as f:
            f.write(MAGIC + len(header).to_bytes(8, "little") + header)
            for name, a in prepared.items():
                f.seek(start + specs[name]["offset"])
                f.write(memoryview(a).cast("B") if a.nbytes else b"")
            f.truncate(start + offset)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def read_arrays(path: Path) -> tuple[dict[str, Any], dict[str, np.ndarray]] | None:
    """``(meta, arrays)`` of a file written by :func:`write_arrays`, the arrays memory-mapped
    read-only (plain ndarray views of the mapping: arithmetic on ``np.memmap`` objects
    pays for the subclass at every call); None when the file is missing or not such a
    file."""
    try:
        with path.open("rb") as f:
            if f.read(len(MAGIC)) != MAGIC:
                return None
            size = int.from_bytes(f.read(8), "little")
            header = json.loads(f.read(size))
        start = -(-(len(MAGIC) + 8 + size) // _ALIGN) * _ALIGN
        arrays = {}
        for name, spec in header["arrays"].items():
            shape = tuple(spec["shape"])
            if int(np.prod(shape)) == 0:
                arrays[name] = np.zeros(shape, dtype=spec["dtype"])
            else:
                arrays[name] = np.asarray(np.memmap(path, dtype=spec["dtype"], mode="r",
                                                    shape=shape, offset=start + spec["offset"]))
        return header["meta"], arrays
    except (OSError, ValueError, KeyError, TypeError):
        return None


class PackedKeys(Sequence[tuple[str, int]]):
    """(doc_id, chunk_index) keys stored as arrays: the UTF-8 doc_ids end to end with their
    offsets, and the chunk indexes; a key is decoded only when asked for."""

    def __init__(self, blob: np.ndarray, offsets: np.ndarray, indexes: np.ndarray) -> None:
        self.blob, self.offsets, self.indexes = blob, offsets, indexes
        self._bytes = memoryview(blob).cast("B") if blob.size else memoryview(b"")

    @classmethod
    def pack(cls, keys: Sequence[tuple[str, int]]) -> "PackedKeys":
        encoded = [k[0].encode() for k in keys]
        offsets = np.zeros(len(keys) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        blob = np.frombuffer(b"".join(encoded), dtype=np.uint8)
        return cls(blob, offsets, np.array([k[1] for k in keys], dtype=np.int64))

    def __len__(self) -> int:
        return len(self.indexes)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        lo, hi = self.offsets[i:i + 2].tolist()  # one call for both ends (keys are decoded
        return (str(self._bytes[lo:hi], "utf-8"), int(self.indexes[i]))  # per result)

    def take(self, rows: np.ndarray) -> list[tuple[str, int]]:
        """The keys at ``rows`` (non-negative), their ends looked up in one pass."""
        rows = np.asarray(rows, dtype=np.intp)
        data = self._bytes
        return [(str(data[lo:hi], "utf-8"), i) for lo, hi, i in zip(
            self.offsets[rows].tolist(), self.offsets[rows + 1].tolist(),
            self.indexes[rows].tolist())]


class ChainedKeys(Sequence[tuple[str, int]]):
    """A key sequence followed by more keys (a persisted segment's, then a delta's)."""

    def __init__(self, base: Sequence[tuple[str, int]], extra: Sequence[tuple[str, int]] = ()
                 ) -> None:
        self.base, self.extra = base, list(extra)
        self._n = len(base)

    def plus(self, more: Sequence[tuple[str, int]]) -> "ChainedKeys":
        return ChainedKeys(self.base, self.extra + list(more))

    def __len__(self) -> int:
        return len(self.base) + len(self.extra)

    def __getitem__(self, i):  # type: ignore[override]
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        n = self._n
        if 0 <= i < n:
            return self.base[i]
        if i < 0:
            i += len(self)
        return self.base[i] if i < n else self.extra[i - n]

    def take(self, rows: np.ndarray) -> list[tuple[str, int]]:
        """The keys at ``rows`` (non-negative), in order."""
        rows = np.asarray(rows, dtype=np.intp)
        if not len(rows) or rows.max() >= self._n:
            return [self[int(i)] for i in rows]
        return take_keys(self.base, rows)


def take_keys(keys: Sequence[tuple[str, int]], rows: np.ndarray) -> list[tuple[str, int]]:
    """``[keys[i] for i in rows]``, in one pass where the sequence can (packed keys)."""
    take = getattr(keys, "take", None)
    return take(rows) if take is not None else [keys[i] for i in np.asarray(rows).tolist()]
