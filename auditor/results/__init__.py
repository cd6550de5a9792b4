"""Everything counted once: the sink, URL dedup, summary, samples and the verdict."""
