"""glibc's mmap threshold kept fixed (auditor.processes.heap), seen in a child's own heap."""

from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from auditor.processes.heap import keep_large_blocks_mapped

# Frees an 8 MiB block (glibc then raises its threshold to 8 MiB, unless it is kept), then takes
# 16 MiB in 256 KiB blocks: how much of that the heap took, in KiB.
PROBE = """
import sys
from auditor.processes.heap import keep_large_blocks_mapped
if sys.argv[1] == "kept":
    assert keep_large_blocks_mapped()
def heap_kib():
    total, inside = 0, False
    for line in open("/proc/self/smaps"):
        head = line.split()[0]
        if "-" in head and ":" not in head:
            inside = line.rstrip().endswith("[heap]")
        elif inside and head == "Rss:":
            total += int(line.split()[1])
    return total
big = bytearray(8 << 20)
del big
before = heap_kib()
blocks = [b"x" * (256 << 10) for _ in range(64)]  # written: calloc'd pages would not count
print(heap_kib() - before)
"""

glibc_only = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="glibc's malloc")


def heap_growth(mode: str) -> int:
    # Without glibc's MALLOC_* settings: any of them turns its moving threshold off, and Dask's
    # nanny leaves MALLOC_TRIM_THRESHOLD_ in this process's environment once a fleet test ran.
    env = {name: value for name, value in os.environ.items() if not name.startswith("MALLOC_")}
    command = [sys.executable, "-c", PROBE, mode]
    done = subprocess.run(command, capture_output=True, text=True, check=True, env=env)
    return int(done.stdout)


@glibc_only
def test_large_blocks_stay_out_of_the_heap_once_the_threshold_is_kept() -> None:
    assert heap_growth("glibc") > 8 * 1024  # the default: a freed mapping moved the threshold
    assert heap_growth("kept") < 1024


def test_the_threshold_is_kept_where_glibc_is_and_nowhere_else() -> None:
    assert keep_large_blocks_mapped() is (platform.libc_ver()[0] == "glibc")
