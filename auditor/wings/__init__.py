"""The wings: each optional feature of a run in a package of its own, folded in by the run.

The protocol every wing follows is auditor.wings.feature; auditor.flow.registry lists them.
"""
