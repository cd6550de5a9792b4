"""The package's version: a leaf that every module may import (and the build reads)."""

__version__ = "0.1.0"
