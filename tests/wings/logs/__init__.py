"""Tests of the access logs (auditor.wings.logs)."""
