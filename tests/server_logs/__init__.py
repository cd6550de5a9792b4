"""Tests of the access logs (auditor.server_logs)."""
