"""`--workers`: parse helpers, and how the run's processes talk."""
