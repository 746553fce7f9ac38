#!/usr/bin/env bash
# Proves that tools/bazel's Bazel speaks TLS (grpcs://): Debian's Bazel
# 4.2.3 does once netty finds OpenSSL (tools/bazel), which this test checks
# against a Buildbarn cluster serving grpcs:// with a certificate made for
# the test (`buildbarn certs`: a CA and a certificate for 127.0.0.1).
#
# 1. A grpcs:// endpoint where nothing listens fails with Bazel's
#    connection error, not with the crash (exit status 37, "JDK provider
#    does not support ALPN protocol") of a Bazel without OpenSSL.
# 2. Without the test's CA, Bazel refuses the cluster's certificate: the
#    build fails cleanly (a TLS error, no crash).
# 3. With --tls_certificate=CA, the C++ libraries and unit tests (no Go
#    here: //tools/ci:buildbarn_test covers it, and the Go SDK's standard
#    library is minutes of compiling) build and run on the worker through
#    grpcs:// ("N remote"; each test's log says it ran in the worker's
#    build directory).
# 4. `bazel clean`, the same again: all remote cache hits.
#
# Usage: buildbarn_tls_test.sh WORKSPACE_FILE GO BUILDBARN (runfiles paths; lib.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

copy="$tmp/checkout"
copy_checkout "$copy"
targets=(-- //cc/... -//cc:all) # //cc:all are the parity tests, which run Go stages

echo "== 1. grpcs://127.0.0.1:1 (nothing listens there)"
status=0
nested_bazel "$copy" build --remote_cache=grpcs://127.0.0.1:1 //cc/lab >"$tmp/refused.log" 2>&1 || status=$?
grep -m 1 '^ERROR' "$tmp/refused.log" || true
((status != 0)) || die "a build against grpcs://127.0.0.1:1 succeeded"
((status != 37)) || die "Bazel crashed (exit status 37): $(grep -m 1 -i 'TLS\|ALPN' "$tmp/refused.log")"
grep -q 'Connection refused' "$tmp/refused.log" || die "no connection error (exit status $status; log above)"
echo "exit status $status: Bazel's connection error, no TLS crash"

bb_certs="$tmp/certs"
"$buildbarn" certs -dir "$bb_certs" || die "buildbarn certs failed"
start_buildbarn "$tmp/bb" -tls-cert "$bb_certs/server.pem" -tls-key "$bb_certs/server.key"
[[ "$bb_endpoint" == grpcs://* ]] || die "the cluster serves $bb_endpoint, not grpcs://"
remote=(--config=buildbarn "--remote_executor=$bb_endpoint" "--remote_cache=$bb_endpoint"
  --run_under=//tools/ci:where_test_ran)

echo "== 2. without the test's CA"
status=0
nested_bazel "$copy" test "${remote[@]}" "${targets[@]}" >"$tmp/untrusted.log" 2>&1 || status=$?
grep -m 1 '^ERROR' "$tmp/untrusted.log" || true
((status != 0)) || die "Bazel trusted a certificate of an unknown CA"
((status != 37)) || die "Bazel crashed (exit status 37)"
grep -qiE 'ssl|tls|certificat|handshake' "$tmp/untrusted.log" || die "no TLS error (exit status $status)"
echo "exit status $status: the certificate was refused"

# bazel_step NAME ARGS...: as in buildbarn_test.sh.
bazel_step() {
  local name="$1" start=$SECONDS
  shift
  if ! nested_bazel "$copy" "$@" >"$tmp/$name.log" 2>&1; then
    tail -n 40 "$tmp/$name.log" >&2
    die "tools/bazel $* failed (above)"
  fi
  processes_line "$tmp/$name.log"
  echo "($name: $((SECONDS - start)) s)"
}

echo "== 3. with --tls_certificate: tools/bazel test --config=buildbarn //cc/... (C++ only)"
tls=("--tls_certificate=$bb_certs/ca.pem")
first="$(bazel_step tls-first test "${remote[@]}" "${tls[@]}" "${targets[@]}")"
echo "$first"
[[ "$(head -n 1 <<<"$first")" =~ ([0-9]+)\ remote[,.] ]] || die "no action ran remotely: $first"
grep -E '^(//|Executed)' "$tmp/tls-first.log" | tail -n 3
tests_ran_in "$bb_build_dir" "$copy/bazel-testlogs"

echo "== 4. bazel clean; the same tests"
nested_bazel "$copy" clean >/dev/null 2>&1 || die "bazel clean failed"
second="$(bazel_step tls-second test "${remote[@]}" "${tls[@]}" \
  --execution_log_json_file="$tmp/tls-second.exec.json" "${targets[@]}")"
echo "$second"
only_cache_hits "$(head -n 1 <<<"$second")" "$tmp/tls-second.exec.json"
echo "every action was a remote cache hit"
echo "PASS: Bazel built and tested on Buildbarn over TLS, and refused it without the CA"
