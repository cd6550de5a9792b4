"""The sitemap side: documents read, parsed, validated and walked as a tree."""
