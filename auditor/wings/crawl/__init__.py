"""The crawl (`--crawl`): the site read link by link, held against its sitemaps (coverage).

See docs/how-to/coverage.md.
"""
