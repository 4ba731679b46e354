"""A Scrapy spider that fetches a URL list: what users would otherwise reach for.

    python benchmarks/crawl/scrapy_fetch.py --urls URLS.txt --port PORT --ca CA.pem \
        --concurrency 32 --per-host 1 --result OUT.json [--no-verify-tls]

It yields one request per URL (``dont_filter``: the list has no duplicates) and its
callback only counts the status: Scrapy fetches, it does not parse, validate or store.

How it reaches the benchmark server while keeping TLS comparable to agentdex's:

- Scrapy has no ``--connect-to``. Each URL gets the server's port
  (``https://site-00001.synthetic.test:PORT/…``) and a resolver (``TWISTED_DNS_RESOLVER``)
  answers ``127.0.0.1`` for every name. The TLS client still sends the host name as SNI;
  the Host header carries ``:PORT``, which nginx ignores for server selection.
- Certificates are verified against the benchmark's CA, host name included (Scrapy's
  default skips verification; ``--no-verify-tls`` measures that default instead).

Settings: ``CONCURRENT_REQUESTS`` = concurrency, ``CONCURRENT_REQUESTS_PER_DOMAIN`` =
per-host, no download delay, no AutoThrottle, 2 retries (agentdex's), no cookies, no
robots.txt middleware (robots.txt is in the URL list like any URL), no telnet console,
every HTTP status handed to the callback.
"""

from __future__ import annotations

import sys
import time
from collections import Counter
from urllib.parse import urlsplit, urlunsplit

import scrapy
from fetch_args import fetcher_parser, write_result  # beside this script (its folder is on sys.path)
from scrapy import signals
from scrapy.core.downloader.contextfactory import BrowserLikeContextFactory
from scrapy.crawler import CrawlerProcess
from scrapy.resolver import CachingThreadedResolver
from twisted.internet import defer
from twisted.internet import ssl as tssl

CA_PEM: bytes = b""  # set by main() before the crawler starts


class LoopbackResolver(CachingThreadedResolver):
    """Every host name resolves to 127.0.0.1 (the benchmark server)."""

    def getHostByName(self, name, timeout=()):  # noqa: N802 - Twisted's interface
        """127.0.0.1, at once."""
        return defer.succeed("127.0.0.1")


class BenchmarkCAContextFactory(BrowserLikeContextFactory):
    """Verifies the server's certificate and host name against the benchmark's CA."""

    _trust = None

    def creatorForNetloc(self, hostname: bytes, port: int):  # noqa: N802 - Scrapy's interface
        """Twisted's verifying client options, trusting only the benchmark CA."""
        if BenchmarkCAContextFactory._trust is None:
            BenchmarkCAContextFactory._trust = tssl.Certificate.loadPEM(CA_PEM)
        return tssl.optionsForClientTLS(
            hostname.decode("ascii"),
            trustRoot=BenchmarkCAContextFactory._trust,
            extraCertificateOptions=self._get_cert_options_kwargs(),
        )


class ListSpider(scrapy.Spider):
    """GET every URL of a list; count statuses."""

    name = "url_list"

    def __init__(self, urls: list[str], **kwargs) -> None:
        super().__init__(**kwargs)
        self.urls = urls
        self.statuses: Counter = Counter()
        self.phase: dict[str, float] = {}

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        """Hook the open/close signals: they bound the measured crawl phase."""
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider.opened, signal=signals.spider_opened)
        crawler.signals.connect(spider.closed_at, signal=signals.spider_closed)
        return spider

    def opened(self, spider) -> None:
        self.phase["cpu0"], self.phase["wall0"] = time.process_time(), time.perf_counter()

    def closed_at(self, spider, reason) -> None:
        self.phase["cpu1"], self.phase["wall1"] = time.process_time(), time.perf_counter()
        self.close_reason = reason

    async def start(self):
        """One request per URL, in list order."""
        for url in self.urls:
            yield scrapy.Request(url, callback=self.parse, errback=self.failed, dont_filter=True)

    def parse(self, response):
        """Count the status; nothing else."""
        self.statuses[response.status] += 1

    def failed(self, failure):
        """Count a request that got no answer."""
        self.statuses["error"] += 1


def with_port(url: str, port: int) -> str:
    """``url`` with the benchmark server's port."""
    parts = urlsplit(url)
    return urlunsplit((parts.scheme, f"{parts.hostname}:{port}", parts.path, parts.query, ""))


def settings(concurrency: int, per_host: int, verify_tls: bool, max_seconds: float = 0.0) -> dict:
    """The Scrapy settings described in the module docstring."""
    chosen = {
        "CONCURRENT_REQUESTS": concurrency,
        "CONCURRENT_REQUESTS_PER_DOMAIN": per_host,
        "DOWNLOAD_DELAY": 0,
        "AUTOTHROTTLE_ENABLED": False,
        "RETRY_ENABLED": True,
        "RETRY_TIMES": 2,
        "COOKIES_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "TELNETCONSOLE_ENABLED": False,
        "HTTPERROR_ALLOW_ALL": True,
        "LOG_LEVEL": "WARNING",
        "DOWNLOAD_TIMEOUT": 15,
        "USER_AGENT": "scrapy-benchmark",
        "TWISTED_DNS_RESOLVER": LoopbackResolver,
    }
    if max_seconds > 0:  # the benchmark's time cap: Scrapy closes the spider, figures kept
        chosen["CLOSESPIDER_TIMEOUT"] = max_seconds
    if verify_tls:
        chosen["DOWNLOADER_CLIENTCONTEXTFACTORY"] = BenchmarkCAContextFactory
        chosen["DOWNLOAD_VERIFY_CERTIFICATES"] = True
    return chosen


def main(argv: list[str] | None = None) -> int:
    """Crawl the URL list, write the result file."""
    global CA_PEM
    parser = fetcher_parser(__doc__.split("\n\n")[0])
    parser.add_argument("--no-verify-tls", action="store_true")
    args = parser.parse_args(argv)
    CA_PEM = args.ca.read_bytes()
    urls = [with_port(u, args.port) for u in args.urls.read_text("utf-8").split()]
    process = CrawlerProcess(settings(args.concurrency, args.per_host, not args.no_verify_tls, args.max_seconds))
    crawler = process.create_crawler(ListSpider)
    process.crawl(crawler, urls=urls)
    process.start()
    spider, stats = crawler.spider, crawler.stats.get_stats()
    write_result(
        args.result,
        wall=spider.phase["wall1"] - spider.phase["wall0"],
        cpu=spider.phase["cpu1"] - spider.phase["cpu0"],
        statuses=spider.statuses,
        planned=len(urls),
        requests=stats.get("downloader/request_count", 0),
        stopped=getattr(spider, "close_reason", "") == "closespider_timeout",
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
