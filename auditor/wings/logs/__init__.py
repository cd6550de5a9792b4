"""Server access logs held against the sitemaps (`--access-log`): what Googlebot really crawls.

A wing of the run (auditor.wings.feature; its rows and Feature in `logs_wing`). Pure core:
`crawler_names` (who a user agent claims to be), `crawler_ranges` (whether the address
agrees), `log_formats` and `log_times` (what a line says), `log_targets` (the URL a request
names, keyed as the sitemaps' URLs are), `log_tally` (per URL: verified hits, the last one, its
status), `log_feed` (bytes in, the tally fed), `log_join` (each URL record joined, the `logs.*`
findings), `log_report`, `log_section` (the report's typed part) and `log_view` (its HTML
part). I/O: `log_files` (files, folders, globs, stdin, gzip as a stream), `log_helpers` (helper
processes, --workers), `url_spool`, `log_history` (the last hits kept with `--history`) and
`access_logs`, the run's logs.

See docs/how-to/server-logs.md and docs/explanation/rules.md#server-logs.
"""
