"""A compact set of URL digests, each with a small value: the tree-wide dedup.

Open addressing over flat arrays costs 12 bytes a slot (about 18-36 bytes a URL), where a
Python dict of ints costs over 100: at 2M URLs that is 50 MB instead of 200. Pure: no I/O.

See docs/explanation/design.md#pipeline.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterator

# 64 segments chosen by a digest's top bits, each its own open-addressing table: a segment
# doubles on its own, so growing never holds the old and the new copy of the whole table at
# once (at 1M URLs that moment cost 12 MB over the table's 24).
_SEGMENT_BITS = 6
_SHIFT = 64 - _SEGMENT_BITS
_MIN_SLOTS = 256  # per segment: 200 KB for an empty table


class DigestTable:
    """Maps non-zero 64-bit digests to 32-bit values; 0 marks an empty slot."""

    def __init__(self) -> None:
        self._keys: list[array[int]] = []
        self._values: list[array[int]] = []
        self._filled: list[int] = []
        self._count = 0
        self._clear()

    def _clear(self) -> None:
        segments = range(1 << _SEGMENT_BITS)
        self._keys = [array("Q", bytes(8 * _MIN_SLOTS)) for _ in segments]
        self._values = [array("I", bytes(4 * _MIN_SLOTS)) for _ in segments]
        self._filled = [0 for _ in segments]
        self._count = 0

    def __len__(self) -> int:
        return self._count

    def setdefault(self, digest: int, value: int) -> int | None:
        """Store `digest -> value` unless present; return the stored value when it was present."""
        segment = digest >> _SHIFT
        keys = self._keys[segment]
        mask = len(keys) - 1
        slot = digest & mask
        while True:
            key = keys[slot]
            if key == digest:
                return self._values[segment][slot]
            if key == 0:
                break
            slot = (slot + 1) & mask  # linear probing: cache-friendly, fine below 2/3 load
        keys[slot] = digest
        self._values[segment][slot] = value
        self._count += 1
        self._filled[segment] += 1
        if self._filled[segment] * 3 > len(keys) * 2:
            self._grow(segment)
        return None

    def _slot(self, digest: int) -> tuple[int, int] | None:
        segment = digest >> _SHIFT
        keys = self._keys[segment]
        mask = len(keys) - 1
        slot = digest & mask
        while (key := keys[slot]) != digest:
            if key == 0:
                return None
            slot = (slot + 1) & mask
        return segment, slot

    def get(self, digest: int) -> int | None:
        """The value stored for `digest`, if any."""
        found = self._slot(digest)
        return None if found is None else self._values[found[0]][found[1]]

    def digests(self) -> Iterator[int]:
        """Every stored digest, segment by segment in slot order."""
        return (key for keys in self._keys for key in keys if key)

    def items(self) -> Iterator[tuple[int, int]]:
        """Every stored (digest, value), segment by segment in slot order."""
        for keys, values in zip(self._keys, self._values, strict=True):
            yield from ((key, values[slot]) for slot, key in enumerate(keys) if key)

    def replace(self, digest: int, value: int) -> bool:
        """Change the value of a stored digest; False when it is not stored."""
        found = self._slot(digest)
        if found is None:
            return False
        self._values[found[0]][found[1]] = value
        return True

    def merge(self, digest: int, keep: int, bits: int) -> bool:
        """Set a stored digest's value to `(value & keep) | bits`; False when it is not stored."""
        segment = digest >> _SHIFT
        keys = self._keys[segment]
        mask = len(keys) - 1
        slot = digest & mask
        while (key := keys[slot]) != digest:
            if key == 0:
                return False
            slot = (slot + 1) & mask
        values = self._values[segment]
        values[slot] = (values[slot] & keep) | bits
        return True

    def frozen(self) -> FrozenDigests:
        """This table's entries, read-only in 12 bytes each (no empty slot); leaves it empty."""
        return FrozenDigests(self)

    def _grow(self, segment: int) -> None:
        old_keys, old_values = self._keys[segment], self._values[segment]
        size = len(old_keys) * 2
        self._keys[segment] = keys = array("Q", bytes(8 * size))
        self._values[segment] = values = array("I", bytes(4 * size))
        mask = size - 1
        for key, value in zip(old_keys, old_values, strict=True):
            if key:
                slot = key & mask
                while keys[slot]:
                    slot = (slot + 1) & mask
                keys[slot] = key
                values[slot] = value


class FrozenDigests:
    """A DigestTable's entries, sorted per segment: look-ups only, in half its memory or less.

    For a table whose filling is over (the crawl's seen set once the crawl ends): an open
    table is a third to two thirds full, this one has no empty slot.
    """

    def __init__(self, table: DigestTable) -> None:
        self._keys: list[array[int]] = []
        self._values: list[array[int]] = []
        for segment, keys in enumerate(table._keys):  # noqa: SLF001 - its own kind
            values = table._values[segment]  # noqa: SLF001
            order = sorted((slot for slot, key in enumerate(keys) if key), key=keys.__getitem__)
            self._keys.append(array("Q", (keys[slot] for slot in order)))
            self._values.append(array("I", (values[slot] for slot in order)))
            # the segment's open copy freed as this one is made: memory never holds both whole
            table._keys[segment], table._values[segment] = array("Q"), array("I")  # noqa: SLF001
        self._count = len(table)
        table._clear()  # noqa: SLF001

    def __len__(self) -> int:
        return self._count

    def items(self) -> Iterator[tuple[int, int]]:
        """Every stored (digest, value), in digest order."""
        for keys, values in zip(self._keys, self._values, strict=True):
            yield from zip(keys, values, strict=True)

    def get(self, digest: int) -> int | None:
        """The value stored for `digest`, if any."""
        segment = digest >> _SHIFT
        keys = self._keys[segment]
        at = bisect_left(keys, digest)
        if at < len(keys) and keys[at] == digest:
            return self._values[segment][at]
        return None
