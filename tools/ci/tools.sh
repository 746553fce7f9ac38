#!/usr/bin/env bash
# Installs, once, the pinned tools that the CI checks run, and prints the path
# of the one asked for:
#
#   tools/ci/tools.sh check-jsonschema   # PyPI, in a venv
#   tools/ci/tools.sh otava              # Apache Otava (tools/changepoint), PyPI, in a venv
#   tools/ci/tools.sh buildkite-agent    # go install, from the Go module proxy
#   tools/ci/tools.sh bk                 # Buildkite CLI (bk local run), go build
#
# Everything lands in the lab's cache directory ($HAVLAK_LAB_CACHE, else
# ${XDG_CACHE_HOME:-$HOME/.cache}/havlak-lab: internal/labcache owns the
# rule, labcache.sh gives it to this script), one directory per tool and
# version, so a new pin installs next to the old one and a half-finished
# install is never used. pip and go use their own configuration (index,
# proxy, module cache); installs are quiet unless they fail.
#
# Environment: GO, the go command to build with (default: go on PATH; the
# Bazel tests pass the workspace's pinned Go SDK); PYTHON, a Python 3 with
# the venv module (default /usr/bin/python3, Debian's python3-venv).
set -euo pipefail

readonly self="tools/ci/tools.sh"
readonly check_jsonschema_version="0.37.2"
readonly otava_version="0.8.0"
readonly agent_version="v3.78.0"
readonly bk_version="v1.2.0"

die() {
  echo "$self: $*" >&2
  exit 1
}

(($# == 1)) || die "usage: $self check-jsonschema|otava|buildkite-agent|bk"
# shellcheck source-path=SCRIPTDIR source=../../internal/labcache/labcache.sh
source "$(dirname "${BASH_SOURCE[0]}")/../../internal/labcache/labcache.sh"
cache="$(labcache_dir "")" || die "no cache directory (the line above says why)"
mkdir -p "$cache"
go="${GO:-go}"
python="${PYTHON:-/usr/bin/python3}"

# quietly LOG COMMAND...: runs COMMAND with its output in LOG, shown (the
# last lines) only if it fails.
quietly() {
  local log="$1"
  shift
  if ! "$@" >"$log" 2>&1; then
    tail -n 30 "$log" >&2
    die "failed: $* (the last lines of $log are above)"
  fi
}

# venv_tool DIR PROGRAM REQUIREMENT: a venv in DIR with REQUIREMENT installed
# from PyPI; prints DIR/bin/PROGRAM.
venv_tool() {
  local dir="$cache/$1" program="$2" requirement="$3"
  # The stamp is written last: a venv without it is half-made, and redone.
  if [[ ! -e "$dir/.installed" ]]; then
    rm -rf "$dir"
    echo "$self: installing $requirement into $dir (once)" >&2
    quietly "$dir.log" "$python" -m venv "$dir"
    quietly "$dir.log" "$dir/bin/python" -m pip install --disable-pip-version-check \
      --no-input "$requirement"
    touch "$dir/.installed"
  fi
  echo "$dir/bin/$program"
}

# go_tool NAME BINARY BUILD...: builds a Go program into
# $cache/NAME/BINARY with the BUILD function, once; prints its path.
go_tool() {
  local dir="$cache/$1" binary="$2" build="$3"
  if [[ ! -x "$dir/$binary" ]]; then
    command -v "$go" >/dev/null 2>&1 || die "no go command ($go) to build $1"
    rm -rf "$dir.tmp"
    mkdir -p "$dir.tmp"
    echo "$self: building $1 into $dir (once, minutes on 2 cores)" >&2
    "$build" "$dir.tmp"
    rm -rf "$dir"
    mv "$dir.tmp" "$dir"
  fi
  echo "$dir/$binary"
}

build_agent() {
  # GOFLAGS is cleared: the pinned version's own go.mod decides.
  quietly "$1.log" env GOBIN="$1" GOFLAGS= GOTOOLCHAIN=local \
    "$go" install "github.com/buildkite/agent/v3@$agent_version"
  mv "$1/agent" "$1/buildkite-agent"
}

build_bk() {
  # go install refuses the module (its go.mod has a replace directive):
  # build it from a writable copy of the downloaded module instead.
  local module dir
  module="$(cd "$1" && env GOFLAGS= GO111MODULE=on GOTOOLCHAIN=local \
    "$go" mod download -json "github.com/buildkite/cli@$bk_version")" ||
    die "go mod download github.com/buildkite/cli@$bk_version failed"
  dir="$(printf '%s\n' "$module" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p')"
  [[ -d "$dir" ]] || die "go mod download printed no Dir for github.com/buildkite/cli@$bk_version"
  cp -r "$dir" "$1/src"
  chmod -R u+w "$1/src"
  (cd "$1/src" && quietly "$1.log" env GOFLAGS=-mod=mod GOTOOLCHAIN=local \
    "$go" build -o "$1/bk" ./cmd/bk)
  rm -rf "$1/src"
}

# One install at a time per cache, whoever runs it (tests, CI steps, users).
exec 9>"$cache/.lock"
flock -w 1800 9 || die "waited 30 minutes for $cache/.lock"

case "$1" in
  check-jsonschema)
    venv_tool "check-jsonschema-$check_jsonschema_version" check-jsonschema \
      "check-jsonschema==$check_jsonschema_version"
    ;;
  otava) venv_tool "otava-$otava_version" otava "apache-otava==$otava_version" ;;
  buildkite-agent) go_tool "buildkite-agent-$agent_version" buildkite-agent build_agent ;;
  bk) go_tool "bk-$bk_version" bk build_bk ;;
  *) die "unknown tool $1 (check-jsonschema, otava, buildkite-agent, bk)" ;;
esac
