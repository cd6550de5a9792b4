"""The link store's SQL: its tables, and the joins that judge the run's hreflang at the end.

Strings only (auditor.wings.hreflang.link_store runs them). Pure: no I/O.
"""

# One row per page naming alternates; one per link of each cluster (the set of links its pages
# name), gathered in memory while the cluster's pages come (most often one after another). A
# link is `settled` when the page it names came, in the same cluster, under the same language:
# nothing left to judge. A cluster whose every link settled while gathered, and whose every page
# names itself, is closed: its links are not written (a link to one of its pages from another
# set is judged on the pages, and none of them can be in that set), but for x-default's, which
# may be another set's return link. Tables are only appended to (a cluster met again after
# others pushed it out of memory is written again); indexes are made when the walk is over,
# and only when something is left to judge.
# A page's `own` languages are written " en en-ie " (NULL: none), so that instr() finds one.
# `again`: the row of a URL listed before (its rows, in several clusters, make one page).
SCHEMA = """
CREATE TABLE pages (
    page INTEGER, loc TEXT, sitemap INTEGER, own TEXT, cluster INTEGER, again INTEGER
);
CREATE TABLE members (cluster INTEGER, target INTEGER, lang TEXT, href TEXT, settled INTEGER);
CREATE TABLE sitemaps (id INTEGER PRIMARY KEY, url TEXT);
"""
# The only pages a judging query can reach: those of a written cluster, or named by one of its
# links. When the written links are few (most clusters closed as they were read), those pages
# are copied out in one scan, and only they are indexed: not the run's millions.
NEAR = """
ALTER TABLE pages RENAME TO every_page;
CREATE TABLE pages AS SELECT * FROM every_page
WHERE cluster IN (SELECT cluster FROM members) OR page IN (SELECT target FROM members){again};
"""
# With URLs listed again, every row of theirs: a page naming a written cluster may also be in a
# closed one (whose membership its rows answer).
NEAR_AGAIN = " OR page IN (SELECT page FROM every_page WHERE again = 1)"
INDEXES = """
CREATE INDEX pages_by_page ON pages (page);
CREATE INDEX pages_by_cluster ON pages (cluster);
CREATE INDEX members_by_cluster ON members (cluster, target);
"""
UNSETTLED = "SELECT EXISTS (SELECT 1 FROM members WHERE settled = 0 AND lang != ?)"
SELFLESS = "SELECT EXISTS (SELECT 1 FROM pages WHERE own IS NULL)"
# Page A (a row of cluster C) names B as L (not x-default). The links that may owe a finding,
# each once (a cluster written twice has its rows twice): all but those B settles itself by
# naming the very set C under L (A, naming itself in C, is then named back).
SUSPECTS = """
CREATE TABLE suspects AS
SELECT m.cluster, m.target, m.lang, MIN(m.href) AS href FROM members m
WHERE m.settled = 0 AND m.lang != ?
AND NOT EXISTS (
    SELECT 1 FROM pages b WHERE b.page = m.target AND b.cluster = m.cluster
    AND instr(b.own, ' ' || m.lang || ' ') > 0
)
GROUP BY m.cluster, m.target, m.lang
"""
# B, a page naming alternates, names A back in none of its clusters. The pairs to look at: the
# suspects, and every link of a page that does not name itself (its set cannot hold it). A is
# a member of B's cluster X when X's written links name it, or when A names itself in X (a
# closed cluster's links are not written: its pages, each naming itself, are its members).
NO_RETURN = """
WITH pairs AS (
    SELECT a.page AS a_page, a.loc AS loc, a.sitemap AS sitemap, m.target AS target,
        m.lang AS lang, m.href AS href
    FROM suspects m CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
    UNION ALL
    SELECT a.page, a.loc, a.sitemap, m.target, m.lang, m.href FROM pages a
    CROSS JOIN members m ON m.cluster = a.cluster AND m.target != a.page
    WHERE a.own IS NULL AND m.lang != ?
)
SELECT MIN(loc), MIN(sitemap), lang, MIN(href) FROM pairs
WHERE EXISTS (SELECT 1 FROM pages b WHERE b.page = target)
AND NOT EXISTS (
    SELECT 1 FROM pages b WHERE b.page = target AND (
        EXISTS (SELECT 1 FROM members r WHERE r.cluster = b.cluster AND r.target = a_page)
        OR EXISTS (
            SELECT 1 FROM pages p
            WHERE p.page = a_page AND p.cluster = b.cluster AND p.own IS NOT NULL
        )
    )
)
GROUP BY a_page, target, lang
"""
# B is no page naming alternates: listed without hreflang (no return link), or nowhere.
NO_CLUSTER = """
SELECT MIN(a.loc), MIN(a.sitemap), m.target, m.lang, MIN(m.href) FROM suspects m
CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
WHERE NOT EXISTS (SELECT 1 FROM pages b WHERE b.page = m.target)
GROUP BY a.page, m.target, m.lang
"""
# A names B as language L, where B calls itself M (and never L).
CONFLICTS = """
SELECT MIN(a.loc), MIN(a.sitemap), m.lang, group_concat(b.own, ''), MIN(m.href) FROM suspects m
CROSS JOIN pages b ON b.page = m.target AND b.own IS NOT NULL
CROSS JOIN pages a ON a.cluster = m.cluster AND a.page != m.target
WHERE NOT EXISTS (
    SELECT 1 FROM pages c WHERE c.page = m.target AND instr(c.own, ' ' || m.lang || ' ') > 0
)
GROUP BY a.page, m.target, m.lang
"""


# Where alternates lead: each link to a URL whose check says it is not indexable, once per
# (page naming it, URL). The written links name it, or (a closed cluster, whose links are not
# written) it is a page of the cluster that names itself.
TARGETS = """
SELECT MIN(a.loc), MIN(a.sitemap), MIN(m.lang), MIN(m.href), MIN(bad.reason) FROM bad
CROSS JOIN members m ON m.target = bad.page
CROSS JOIN {pages} a ON a.cluster = m.cluster AND a.page != m.target
GROUP BY a.page, m.target
UNION
SELECT MIN(a.loc), MIN(a.sitemap), MIN(trim(b.own)), MIN(b.loc), MIN(bad.reason) FROM bad
CROSS JOIN {pages} b ON b.page = bad.page AND b.own IS NOT NULL
CROSS JOIN {pages} a ON a.cluster = b.cluster AND a.page != b.page
WHERE NOT EXISTS (SELECT 1 FROM members m WHERE m.cluster = b.cluster AND m.target = b.page)
GROUP BY a.page, b.page
"""
TARGET_INDEXES = """
CREATE INDEX IF NOT EXISTS {pages}_by_page ON {pages} (page);
CREATE INDEX IF NOT EXISTS {pages}_by_cluster ON {pages} (cluster);
CREATE INDEX IF NOT EXISTS members_by_target ON members (target);
CREATE INDEX IF NOT EXISTS members_by_cluster ON members (cluster, target);
"""
