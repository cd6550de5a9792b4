"""The protocol's numbers, and the bounds of our own that several packages share.

Every number of sitemaps.org and of Google's documentation that a rule enforces is here, with
its source; a rule module imports it, never repeats it. Pure: no I/O.
"""

from __future__ import annotations

# --- sitemaps.org (protocol page, FAQ) and Google Search Central ("Build and submit a sitemap")

# sitemaps.org: a sitemap or an index is at most 52,428,800 bytes uncompressed.
MAX_SITEMAP_BYTES = 52_428_800
# sitemaps.org: at most 50,000 URLs per sitemap, and 50,000 sitemaps per index.
MAX_ENTRIES = 50_000
# sitemaps.org: <loc> "must be less than 2,048 characters" (the XSD allows 2,048; the prose wins).
MAX_LOC_CHARS = 2048
# Google reads the first 500 KiB of a robots.txt and ignores the rest (RFC 9309 §2.5 allows it).
ROBOTS_MAX_BYTES = 500 * 1024

# --- our own bounds (every read is bounded: docs/explanation/design.md#safety) -------------

# A value longer than this is cut here (its length is still reported): a hostile 50 MiB <loc>
# must not be copied into entries, findings and the report. Far above any valid value. A URL
# cut here is never requested.
MAX_FIELD_CHARS = 8192
# An ETag or Last-Modified longer than this is not kept to be sent back (--history): real ones
# are a few dozen characters.
MAX_VALIDATOR_CHARS = 256
# Files the user gives as input, read whole: each far above any real one, far below what would
# cost the run its memory (`/dev/zero` named as one is refused at once: not a regular file).
MAX_CONFIG_BYTES = 1 << 20  # --config: a TOML file of options
MAX_ACCEPT_FILE_BYTES = 4 << 20  # --accept-file: tens of thousands of known issues
MAX_FLEET_FILE_BYTES = 64 << 20  # --fleet: a million sites, a line each
MAX_CA_FILE_BYTES = 16 << 20  # --ca-file: PEM certificates
MAX_FLEET_SUMMARY_BYTES = 256 << 20  # a fleet's --baseline: an earlier fleet summary
