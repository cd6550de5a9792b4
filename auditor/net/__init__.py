"""The network edge: one request sent, retried, paced, guarded and followed hop by hop."""
