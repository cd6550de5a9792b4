"""The compact digest table behind tree-wide deduplication."""

from __future__ import annotations

import random

from auditor.results.digest_table import DigestTable


def test_digest_table_setdefault() -> None:
    table = DigestTable()
    assert len(table) == 0
    assert table.setdefault(42, 7) is None
    assert table.setdefault(42, 8) == 7  # the stored value, not the new one
    assert table.setdefault(43, 0) is None
    assert table.setdefault(43, 5) == 0
    assert table.setdefault(2**64 - 1, 2**32 - 1) is None
    assert table.setdefault(2**64 - 1, 1) == 2**32 - 1
    assert len(table) == 3


def test_digest_table_grows_and_keeps_every_value() -> None:
    rng = random.Random(1234)
    digests = list({rng.getrandbits(64) or 1 for _ in range(100_000)})
    table = DigestTable()
    for value, digest in enumerate(digests):
        assert table.setdefault(digest, value % 2**32) is None
    assert len(table) == len(digests)
    assert len(digests) > 99_000  # several resizes of every segment past its 256 first slots
    for value, digest in enumerate(digests):
        assert table.setdefault(digest, 0) == value
    assert len(table) == len(digests)
    assert sorted(table.digests()) == sorted(digests)


def test_digest_table_colliding_low_bits_and_wraparound() -> None:
    table = DigestTable()
    # One segment (the same top bits), the same low 12 bits: every digest aims at the last
    # slot, so probing wraps to slot 0, and the segment grows on its own.
    digests = [(n << 32) | 0xFFF for n in range(1, 400)]
    for value, digest in enumerate(digests):
        assert table.setdefault(digest, value) is None
    for value, digest in enumerate(digests):
        assert table.setdefault(digest, 99_999) == value
    assert len(table) == len(digests)


def test_a_frozen_table_answers_as_the_open_one_and_leaves_it_empty() -> None:
    rng = random.Random(99)
    digests = list({rng.getrandbits(64) or 1 for _ in range(50_000)})
    digests += [(n << 32) | 0xFFF for n in range(1, 300)]  # one segment, colliding low bits
    digests += [1, 2**64 - 1]  # the smallest and the largest digest
    table = DigestTable()
    for value, digest in enumerate(digests):
        table.setdefault(digest, value % 2**32)
    table.replace(digests[0], 12345)
    frozen = table.frozen()
    assert len(frozen) == len(set(digests))
    assert frozen.get(digests[0]) == 12345
    for value, digest in enumerate(digests[1:], start=1):
        assert frozen.get(digest) == value % 2**32
    absent = {rng.getrandbits(64) or 1 for _ in range(5_000)} - set(digests)
    assert all(frozen.get(digest) is None for digest in absent)
    assert len(table) == 0
    assert table.get(digests[1]) is None
    assert table.setdefault(7, 1) is None  # the emptied table still works
