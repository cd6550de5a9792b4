"""Fleets of sites (`--fleet`): each site's audit a task of Dask distributed (DESIGN §11)."""
