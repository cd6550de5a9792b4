"""Fleets of sites (`--fleet`): each site's audit a task of Dask distributed.

See docs/explanation/design.md#fleet.
"""
