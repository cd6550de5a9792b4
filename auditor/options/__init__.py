"""The options: declared once (table), read as keys (values), made into an AuditConfig (build)."""
