"""`--workers`: checker processes and parse helpers, and how they talk."""
