"""The environment that tests installing tools with tools/ci/tools.sh inherit.

tools.sh caches what it installs in the lab's cache directory (internal/labcache:
$HAVLAK_LAB_CACHE, else ${XDG_CACHE_HOME:-$HOME/.cache}/havlak-lab), and go and pip read their proxy, index and
certificate settings from the environment: a test that runs it needs the
user's (`env_inherit`, which only native test rules such as sh_test have).
"""

TOOLS_ENV = [
    "HOME",
    "XDG_CACHE_HOME",
    "HAVLAK_LAB_CACHE",
    "GOPROXY",
    "GOSUMDB",
    "GONOSUMDB",
    "GOPRIVATE",
    "GOMODCACHE",
    "http_proxy",
    "https_proxy",
    "no_proxy",
    "HTTP_PROXY",
    "HTTPS_PROXY",
    "NO_PROXY",
    "PIP_INDEX_URL",
    "PIP_EXTRA_INDEX_URL",
    "PIP_FIND_LINKS",
    "PIP_CERT",
    "SSL_CERT_FILE",
]
