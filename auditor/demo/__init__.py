"""The embedded demo site (`sitemap-audit --demo`), also the tests' loopback server."""
