"""The audit's heap on glibc: a large block always gets a mapping of its own, returned when freed.

glibc maps each block of 128 KiB or more on its own and unmaps it when it is freed, but then
raises that threshold to the freed block's size (up to 32 MiB): later large blocks (body chunks,
helpers' frames, pickles, the dedup table's segments) come from the heap, which only shrinks from
its top. Keeping the threshold where it starts took 7 MB off this process's peak RSS at 1M URLs
(hreflang benchmark: 103 to 96 MB). Without glibc (musl, macOS) there is nothing to do.
"""

from __future__ import annotations

import ctypes

M_MMAP_THRESHOLD = -3  # glibc's <malloc.h>
MMAP_THRESHOLD_BYTES = 128 * 1024  # glibc's own start value, kept


def keep_large_blocks_mapped() -> bool:
    """Fix glibc's mmap threshold for this process; False where there is no glibc."""
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError, TypeError):
        return False
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD_BYTES))
