"""Scrapy's crawl of the crawl task's site: a minimal CrawlSpider with a LinkExtractor.

    .venv-peers/bin/python benchmarks/peer_crawl.py http://127.0.0.1:PORT --concurrency C

Run in the peers' venv. The settings match the auditor's row: the same requests in flight (in
total and per host), robots.txt obeyed, no retries, no delay, no cookies, redirects followed,
breadth first (Scrapy's documented settings for it: a FIFO queue, DEPTH_PRIORITY 1). Prints one
JSON line: the pages it received and the requests it made.
"""

from __future__ import annotations

import argparse
import json
from urllib.parse import urlsplit

from scrapy import Request  # type: ignore[import-not-found] # the peers' venv
from scrapy.crawler import CrawlerProcess  # type: ignore[import-not-found]
from scrapy.linkextractors import LinkExtractor  # type: ignore[import-not-found]
from scrapy.spiders import CrawlSpider, Rule  # type: ignore[import-not-found]


class SiteSpider(CrawlSpider):  # type: ignore[misc]
    name = "site"
    rules = (Rule(LinkExtractor(), callback="parse_page", follow=True),)

    def __init__(self, start: str, **kwargs: object) -> None:
        self.start_urls = [start]
        self.allowed_domains = [urlsplit(start).hostname or ""]
        super().__init__(**kwargs)
        self.pages = 0

    def start_requests(self):  # type: ignore[no-untyped-def]
        # Filtered as every other request (Scrapy's default start request is not): a link back
        # to the home page is not a second request for it.
        yield Request(self.start_urls[0])

    async def start(self):  # type: ignore[no-untyped-def]
        for request in self.start_requests():  # type: ignore[no-untyped-call]
            yield request

    def parse_start_url(self, response):  # type: ignore[no-untyped-def]  # noqa: ARG002
        self.pages += 1
        return []

    def parse_page(self, response):  # type: ignore[no-untyped-def]  # noqa: ARG002
        self.pages += 1
        return []


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("--concurrency", type=int, default=128)
    args = parser.parse_args()
    c = args.concurrency
    process = CrawlerProcess(
        settings={
            "CONCURRENT_REQUESTS": c,
            "CONCURRENT_REQUESTS_PER_DOMAIN": c,
            "ROBOTSTXT_OBEY": True,
            "RETRY_ENABLED": False,
            "DOWNLOAD_DELAY": 0,
            "COOKIES_ENABLED": False,
            "TELNETCONSOLE_ENABLED": False,
            "LOG_LEVEL": "ERROR",
            "DEPTH_PRIORITY": 1,
            "SCHEDULER_DISK_QUEUE": "scrapy.squeues.PickleFifoDiskQueue",
            "SCHEDULER_MEMORY_QUEUE": "scrapy.squeues.FifoMemoryQueue",
            "HTTPERROR_ALLOW_ALL": True,  # a 404 is a page received, as for the auditor
            "DOWNLOAD_MAXSIZE": 2 * 1024 * 1024,
        }
    )
    crawler = process.create_crawler(SiteSpider)
    process.crawl(crawler, start=f"{args.base}/")
    process.start()
    stats = crawler.stats.get_stats() if crawler.stats is not None else {}
    spider = crawler.spider
    print(
        json.dumps(
            {
                "pages": getattr(spider, "pages", -1),
                "requests": stats.get("downloader/request_count", -1),
                "responses": stats.get("downloader/response_count", -1),
            }
        )
    )


if __name__ == "__main__":
    main()
