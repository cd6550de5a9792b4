"""The documentation: its pages, the hooks that generate their reference parts, screenshots."""
