"""Serve the suite's trees on 127.0.0.1 from another process: nginx when installed, else aiohttp.

Each tree (a directory made by site_gen.py) gets its own port. Both servers write one line per
request, "METHOD STATUS", to one access log, which `RequestLog` reads run by run.
"""

from __future__ import annotations

import contextlib
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from measure import descendants
from site_gen import OFF_HOST

HERE = Path(__file__).resolve().parent
START_TIMEOUT_S = 20.0
LOG_FLUSH_S = 0.1  # nginx flushes its access log buffer at least this often

_PAGE = (
    "<!doctype html>\\n<html lang=en><head><meta charset=utf-8><title>Page $1</title></head>\\n"
    "<body><h1>A page</h1><p>Small, static, and 200 OK.</p></body></html>\\n"
)

# One server block per tree; `localhost` on the same port is "another host" with its own
# robots.txt (no Sitemap: line, so no cross-submission waives the host rule).
NGINX_SITE = """
    server {{
        listen 127.0.0.1:{port}{ssl} default_server;
        server_name 127.0.0.1;
        root {root};{certs}
        location = /robots.txt {{ }}
        location ~ ^/p/(\\d+)$ {{ default_type text/html; return 200 "{page}"; }}
        location ~ ^/e404/\\d+$ {{ return 404; }}
        location ~ ^/e500/\\d+$ {{ return 500; }}
        location ~ ^/r1p/(\\d+)$ {{ return 301 /p/$1; }}
        location ~ ^/r2p/(\\d+)$ {{ return 301 /r1p/$1; }}
        location ~ ^/r3p/(\\d+)$ {{ return 301 /r2p/$1; }}
        location ~ ^/r1t/(\\d+)$ {{ return 302 /p/$1; }}
        location ~ ^/r2t/(\\d+)$ {{ return 302 /r1t/$1; }}
        location ~ ^/r3t/(\\d+)$ {{ return 302 /r2t/$1; }}
        location ~ ^/loop/a/(\\d+)$ {{ return 302 /loop/b/$1; }}
        location ~ ^/loop/b/(\\d+)$ {{ return 302 /loop/a/$1; }}
        location /sitemaps/ {{ types {{ application/gzip gz; application/xml xml; }} }}
    }}
    server {{
        listen 127.0.0.1:{port}{ssl};
        server_name {other};
        root {root};{certs}
        location = /robots.txt {{ default_type text/plain; alias {root}/robots-other.txt; }}
        location ~ ^/p/(\\d+)$ {{ default_type text/html; return 200 "{page}"; }}
    }}
"""

# A crawl tree (crawl_gen.py): static pages under clean URLs; a missing page is a 404.
NGINX_CRAWL_SITE = """
    server {{
        listen 127.0.0.1:{port} default_server;
        server_name 127.0.0.1;
        root {root};
        types {{ text/html html; application/xml xml; text/plain txt; }}
        location / {{ try_files $uri $uri.html $uri/index.html =404; }}
    }}
"""

NGINX_CONF = """
daemon off;
master_process on;
worker_processes {workers};
pid {prefix}/nginx.pid;
error_log {prefix}/error.log warn;
events {{ worker_connections 4096; }}
http {{
    types {{ text/plain txt; application/xml xml; application/gzip gz; }}
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    keepalive_requests 1000000;
    keepalive_timeout 120s;
    absolute_redirect off;
    server_tokens off;
    log_format bench '$request_method $status';
    access_log {log} bench buffer=64k flush={flush_ms}ms;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
{sites}
}}
"""


def find_nginx() -> str | None:
    """The nginx binary (Debian's is in /usr/sbin, often off a user's PATH), or None."""
    found = shutil.which("nginx")
    if found is None and Path("/usr/sbin/nginx").exists():
        found = "/usr/sbin/nginx"
    return found


# An HTTPS tree: TLS with HTTP/2 offered through ALPN (RFC 7301), sessions resumable.
NGINX_TLS = """
        ssl_certificate {cert};
        ssl_certificate_key {key};
        ssl_session_cache shared:SSL:4m;
        http2_max_concurrent_streams 128;"""


def nginx_conf(
    trees: Sequence[tuple[Path, int]],
    *,
    prefix: Path,
    log: Path,
    tls: dict[int, tuple[Path, Path]] | None = None,
    workers: int = 1,
    crawl: frozenset[int] = frozenset(),
) -> str:
    """The whole nginx.conf for these trees; the ports in `tls` serve HTTPS with (cert, key);
    those in `crawl` serve crawl trees (crawl_gen.py); `workers` worker processes."""
    tls = tls or {}
    sites = "".join(
        NGINX_CRAWL_SITE.format(port=port, root=root.resolve())
        if port in crawl
        else NGINX_SITE.format(
            port=port,
            root=root.resolve(),
            page=_PAGE,
            other=OFF_HOST,
            ssl=" ssl http2" if port in tls else "",
            certs=NGINX_TLS.format(cert=tls[port][0], key=tls[port][1]) if port in tls else "",
        )
        for root, port in trees
    )
    flush_ms = int(LOG_FLUSH_S * 1000)
    return NGINX_CONF.format(
        prefix=prefix, log=log, flush_ms=flush_ms, sites=sites, workers=workers
    )


def port_free(port: int) -> bool:
    """Whether 127.0.0.1:port can be bound now."""
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as nginx: TIME_WAIT is fine
        try:
            probe.bind(("127.0.0.1", port))
        except OSError:
            return False
    return True


def free_port() -> int:
    """A port the kernel picks (free now; nothing holds it afterwards)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def _accepting(port: int) -> bool:
    with socket.socket() as probe:
        probe.settimeout(0.5)
        return probe.connect_ex(("127.0.0.1", port)) == 0


@dataclass(slots=True)
class RequestLog:
    """The access log, read from where the last run ended."""

    path: Path
    offset: int = 0

    def skip(self) -> None:
        """Forget what is logged so far (after waiting for the server to flush)."""
        time.sleep(LOG_FLUSH_S * 2.5)
        self.offset = self.path.stat().st_size if self.path.exists() else 0

    def since(self) -> Counter[str]:
        """Requests logged since the last call, by "METHOD STATUS", and by method."""
        time.sleep(LOG_FLUSH_S * 2.5)
        counts: Counter[str] = Counter()
        if not self.path.exists():
            return counts
        with self.path.open("rb") as file:
            file.seek(self.offset)
            for line in file:
                text = line.decode(errors="replace").strip()
                counts[text] += 1
                counts[text.partition(" ")[0]] += 1
            self.offset = file.tell()
        return counts


@dataclass(slots=True)
class Server:
    """A running server: which one, its processes (for their CPU), its log."""

    name: str
    process: subprocess.Popen[bytes]
    log: RequestLog
    pids: list[int] = field(default_factory=list)

    def refresh_pids(self) -> None:
        """The master and its workers (nginx) or the one process (aiohttp)."""
        self.pids = descendants(self.process.pid)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.process.send_signal(signal.SIGTERM)
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()


def start_server(
    trees: Sequence[tuple[Path, int]],
    *,
    work: Path,
    prefer_nginx: bool = True,
    tls: dict[int, tuple[Path, Path]] | None = None,
    workers: int = 1,
    crawl: frozenset[int] = frozenset(),
) -> Server:
    """nginx (when found and wanted; `workers` worker processes) or serve_site.py (one
    process) on the trees' ports; waits until ready."""
    work.mkdir(parents=True, exist_ok=True)
    log = work / "access.log"
    log.unlink(missing_ok=True)
    nginx = find_nginx() if prefer_nginx else None
    if nginx is not None:
        (work / "tmp").mkdir(exist_ok=True)
        conf = work / "nginx.conf"
        conf.write_text(
            nginx_conf(trees, prefix=work, log=log, tls=tls, workers=workers, crawl=crawl)
        )
        version = subprocess.run([nginx, "-v"], capture_output=True, text=True, check=False)
        name = f"nginx {version.stderr.strip().rsplit('/', 1)[-1]} ({nginx})"
        argv = [nginx, "-p", str(work), "-c", str(conf), "-e", str(work / "error.log")]
    else:
        why = "nginx not found" if prefer_nginx else "--server aiohttp"
        name = f"aiohttp (benchmarks/serve_site.py; {why})"
        argv = [sys.executable, str(HERE / "serve_site.py"), "--log", str(log)]
        argv += [f"{root}:{port}" for root, port in trees if port not in (tls or {})]
    errors = work / "server-stderr.txt"
    with errors.open("wb") as sink:
        process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=sink)
    deadline = time.monotonic() + START_TIMEOUT_S
    while not all(_accepting(port) for _, port in trees if nginx or port not in (tls or {})):
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            process.wait()
            raise SystemExit(f"the server did not start: {name}\n{errors.read_text()}")
        time.sleep(0.05)
    server = Server(name=name, process=process, log=RequestLog(log))
    server.refresh_pids()
    return server
