"""`--history`: every URL's last verdict kept across runs, a request budget, and resume.

`history_rows` (what a URL's row holds, and the check it rebuilds) and `order` (which URLs a
budget requests first) are pure; `verdict_store` is the sqlite file kept between runs, `park`
the run's own file of URLs waiting for the budget's decision, `plan` what ties them to the check
stage, `history_wing` what ties them to the run.

See docs/how-to/big-sites.md.
"""
