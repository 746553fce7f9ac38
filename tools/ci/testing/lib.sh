# shellcheck shell=bash
# Helpers of the CI tests in tools/ci/testing (sourced, not run). They run
# under `bazel test` (tags local, external: next to the checkout, never
# cached) and start servers and nested Bazel builds, so everything they
# start is bounded in time and stopped on exit.
#
# The test's arguments are runfiles paths of //:WORKSPACE (to find the
# checkout, as //:gazelle_test does) and of the pinned Go SDK's go command.

# The checkout: the real directory of the WORKSPACE runfile.
workspace="$(dirname "$(readlink -f "$1")")"
# The workspace's pinned Go (tools/ci/tools.sh builds the Go tools with it;
# nested Bazel's repository rules find it on PATH).
go_cmd="$(readlink -f "$2")"
export GO="$go_cmd"
tmp="${TEST_TMPDIR:?run me with bazel test}"
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

# wait_for_port PORT PID SECONDS: waits until PORT accepts connections,
# failing if PID exits or SECONDS pass.
wait_for_port() {
  local port="$1" pid="$2" deadline=$((SECONDS + $3))
  until (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || return 1
    ((SECONDS < deadline)) || return 1
    sleep 0.5
  done
}

# start_buildgrid PORT DIR [EXTRA_CONFIG]: BuildGrid (tools/ci/tools.sh bgd)
# on 127.0.0.1:PORT, instance "main": a CAS on disk in DIR/cas, thrown away
# afterwards, and an action cache in memory. Stopped on exit; killed after
# 30 minutes whatever happens.
start_buildgrid() {
  local port="$1" dir="$2" bgd
  bgd="$("${clean_env[@]}" "$tools" bgd)"
  mkdir -p "$dir/cas"
  # One gRPC call per thread, and calls beyond the pool are refused: as many
  # threads as Bazel's --config=local-remote has calls in flight (200).
  cat >"$dir/buildgrid.yml" <<YAML
thread-pool-size: 256
server:
  - !channel
    address: "127.0.0.1:$port"
    insecure-mode: true
storages:
  - !disk-storage &cas
    path: $dir/cas
caches:
  - !lru-action-cache &action-cache
    storage: *cas
    max-cached-refs: 100000
    allow-updates: true
    cache-failed-actions: false
instances:
  - name: main
    services:
      - !action-cache
        cache: *action-cache
      - !cas
        storage: *cas
      - !bytestream
        storage: *cas
YAML
  timeout 1800 "$bgd" server start "$dir/buildgrid.yml" >"$dir/buildgrid.log" 2>&1 &
  buildgrid_pid=$!
  cleanups+=("kill $buildgrid_pid; wait $buildgrid_pid; rm -rf '$dir/cas'")
  if ! wait_for_port "$port" "$buildgrid_pid" 120; then
    tail -n 30 "$dir/buildgrid.log" >&2
    die "BuildGrid did not start on 127.0.0.1:$port"
  fi
}
