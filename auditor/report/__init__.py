"""Reports: the streamed JSON report (DESIGN §5); the HTML report comes from the same records."""
