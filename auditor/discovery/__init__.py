"""What the user asked for, and where its sitemaps are: targets, robots.txt, probes."""
