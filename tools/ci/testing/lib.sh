# shellcheck shell=bash
# Helpers of the CI tests in tools/ci/testing (sourced, not run). They run
# under `bazel test` (tags local, external: next to the checkout, never
# cached) and start servers and nested Bazel builds, so everything they
# start is bounded in time and stopped on exit.
#
# The test's arguments are runfiles paths of //:WORKSPACE (to find the
# checkout, as //:gazelle_test does), of the pinned Go SDK's go command and,
# for the Buildbarn tests, of //tools/buildbarn.

# The checkout: the real directory of the WORKSPACE runfile.
workspace="$(dirname "$(readlink -f "$1")")"
# The workspace's pinned Go (tools/ci/tools.sh builds the Go tools with it;
# nested Bazel's repository rules find it on PATH).
go_cmd="$(readlink -f "$2")"
# //tools/buildbarn, for the tests that start a cluster (optional).
buildbarn="${3:+$(readlink -f "$3")}"
export GO="$go_cmd"
tmp="${TEST_TMPDIR:?run me with bazel test}"
# shellcheck disable=SC2034 # for the scripts that source this file
tools="$workspace/tools/ci/tools.sh"

die() {
  echo "FAIL: $*" >&2
  exit 1
}

# Things to undo on exit, last first.
cleanups=()
on_exit() {
  local i
  for ((i = ${#cleanups[@]} - 1; i >= 0; i--)); do
    eval "${cleanups[$i]}" || true
  done
}
trap on_exit EXIT

# clean_env: the environment for nested commands: no Bazel test variables
# (a nested Bazel would take TEST_TMPDIR for its own), the user's home and
# the go/pip/proxy settings the test inherited, the pinned Go first on PATH.
clean_env=(env -i "PATH=$(dirname "$go_cmd"):/bin:/usr/bin:/usr/local/bin" "TMPDIR=$tmp")
for var in HOME USER LOGNAME LANG XDG_CACHE_HOME HAVLAK_LAB_CACHE \
  GOPROXY GOSUMDB GONOSUMDB GOPRIVATE GONOPROXY GOINSECURE GOMODCACHE \
  http_proxy https_proxy no_proxy HTTP_PROXY HTTPS_PROXY NO_PROXY \
  PIP_INDEX_URL PIP_EXTRA_INDEX_URL PIP_FIND_LINKS PIP_CERT SSL_CERT_FILE SSL_CERT_DIR; do
  [[ -z "${!var:-}" ]] || clean_env+=("$var=${!var}")
done

# copy_checkout DIR: a disposable copy of the checkout in DIR: tracked and
# untracked files, not ignored ones (no bazel-* symlinks, no user.bazelrc).
# Its user.bazelrc gives its Bazel an output root of its own under DIR.root,
# never the outer Bazel's, and a short idle time in case a stop is missed.
copy_checkout() {
  local dir="$1"
  mkdir -p "$dir"
  local file
  git -C "$workspace" ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' file; do
      # Deleted but not yet committed files are listed too.
      if [[ -e "$workspace/$file" || -L "$workspace/$file" ]]; then
        printf '%s\0' "$file"
      fi
    done | tar -C "$workspace" --null -T - -cf - | tar -xf - -C "$dir"
  printf '%s\n' "startup --output_user_root=$dir.root" "startup --max_idle_secs=600" \
    >"$dir/user.bazelrc"
  cleanups+=("stop_bazel '$dir'")
}

# stop_bazel DIR: stops the copy's Bazel server and removes its output root
# (Bazel leaves read-only files).
stop_bazel() {
  (cd "$1" && "${clean_env[@]}" timeout 120 tools/bazel shutdown) >/dev/null 2>&1 || true
  chmod -R u+w "$1.root" 2>/dev/null || true
  rm -rf "$1.root"
}

# nested_bazel DIR ARGS...: tools/bazel ARGS in the copy DIR, bounded in time.
nested_bazel() {
  local dir="$1"
  shift
  (cd "$dir" && "${clean_env[@]}" timeout 1500 tools/bazel "$@")
}

# free_port: a TCP port on 127.0.0.1 that nothing listens on now.
free_port() {
  /usr/bin/python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# start_buildbarn STATE [FLAGS...]: a Buildbarn cluster (tools/buildbarn,
# the binary given as the test's third argument) on a free port of
# 127.0.0.1, its storage and build directories in STATE; FLAGS go to
# `buildbarn start` (-tls-cert, -tls-key, -client-ca). Sets bb_endpoint (grpc://… or
# grpcs://…) and bb_build_dir (where the worker runs actions). The first
# start on a machine builds Buildbarn (minutes; cached). Stopped on exit,
# the worker first; stops by itself after 45 minutes whatever happens.
start_buildbarn() {
  local state="$1"
  shift
  [[ -n "$buildbarn" ]] || die "start_buildbarn needs //tools/buildbarn as the test's third argument"
  local start=$SECONDS
  cleanups+=("stop_buildbarn '$state'")
  bb_endpoint="$("${clean_env[@]}" "$buildbarn" start -src "$workspace/tools/buildbarn" \
    -state "$state" -port 0 -timeout 45m "$@")" || die "buildbarn start failed (above)"
  # shellcheck disable=SC2034 # for the scripts that source this file
  bb_build_dir="$state/worker/build"
  echo "== Buildbarn at $bb_endpoint, ready in $((SECONDS - start)) s (logs: $state/logs)"
}

# stop_buildbarn STATE: stops the cluster (the worker first) and removes
# its state.
stop_buildbarn() {
  "${clean_env[@]}" timeout 300 "$buildbarn" stop -state "$1" || true
  chmod -R u+w "$1" 2>/dev/null || true
  rm -rf "$1"
}

# processes_line LOG: Bazel's "INFO: N processes: ..." summary in LOG.
processes_line() {
  grep -E '^INFO: [0-9]+ process(es)?[:.]' "$1" | tail -n 1
}

# only_cache_hits LINE EXEC_LOG: fails unless the processes LINE names
# nothing but remote cache hits and Bazel-internal actions (symlinks, file
# writes), listing from the JSON EXEC_LOG the actions that ran instead.
only_cache_hits() {
  local line="$1" exec_log="$2" others
  [[ "$line" =~ ([0-9]+)\ remote\ cache\ hit ]] || die "no remote cache hit in: $line"
  others="$(sed -E 's/^INFO: [0-9]+ processes?: //; s/\.$//' <<<"$line" | tr ',' '\n' |
    sed 's/^ *//' | grep -vE '^[0-9]+ (remote cache hit|internal)$' || true)"
  if [[ -n "$others" ]]; then
    echo "Actions that ran (execution log):" >&2
    jq -r 'select(.remoteCacheHit == false) | "  \(.mnemonic) \(.actualOutputs[0].path // "")"' \
      "$exec_log" >&2 || true
    die "actions ran instead of hitting the cache: $others"
  fi
}

# tests_ran_in DIR LOG_ROOT: fails unless every test.log under LOG_ROOT
# (a copy's bazel-testlogs) says, through --run_under=//tools/ci:where_test_ran,
# that its test ran under DIR; prints how many did.
tests_ran_in() {
  local dir="$1" root="$2" log first="" n=0
  while IFS= read -r -d '' log; do
    grep -q "^test ran in: $dir/" "$log" || {
      grep -m 1 '^test ran in:' "$log" >&2 || true
      die "${log#"$root"/} did not run under $dir"
    }
    first="${first:-$log}"
    n=$((n + 1))
  done < <(find -L "$root" -name test.log -print0)
  ((n > 0)) || die "no test.log under $root"
  echo "$n tests ran in the worker's build directory $dir, e.g. ${first#"$root"/}:"
  grep -m 1 '^test ran in:' "$first"
}
