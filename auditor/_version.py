"""The package version, one place for pyproject.toml and the report's `tool.version`."""

__version__ = "0.1.0"
