"""`--baseline`: the comparison with an earlier report."""
