#!/usr/bin/env bash
# Proves that tools/bazel's Bazel speaks TLS (grpcs://): Debian's Bazel
# 4.2.3 does once netty finds OpenSSL (tools/bazel), which this test checks
# against a Buildbarn cluster serving grpcs:// with certificates made for
# the test (`buildbarn certs`: a CA, a certificate for 127.0.0.1, and the
# client certificates of a trusted and an untrusted client); and that the
# cluster enforces who may write its action cache (docs/security.md).
#
# 1. A grpcs:// endpoint where nothing listens fails with Bazel's
#    connection error, not with the crash (exit status 37, "JDK provider
#    does not support ALPN protocol") of a Bazel without OpenSSL.
# 2. Without the test's CA, Bazel refuses the cluster's certificate: the
#    build fails cleanly (a TLS error, no crash).
# 3. Without a client certificate, the server refuses Bazel
#    (UNAUTHENTICATED).
# 4. With --tls_certificate=CA and the trusted client's certificate, the
#    C++ libraries and unit tests (no Go here: //tools/ci:buildbarn_test
#    covers it, and the Go SDK's standard library is minutes of compiling)
#    build and run on the worker through grpcs:// ("N remote"; each test's
#    log says it ran in the worker's build directory).
# 5. `bazel clean`, the same again: all remote cache hits.
# 6. `bazel clean`; the untrusted client reads the cache and executes
#    remotely: one changed compile action of //cc/lab runs on the worker,
#    the rest are cache hits. With --remote_upload_local_results it gets no build at
#    all: the server says it may not update the action cache.
# 7. Without Bazel (acwrite, a REAPI client built with Buildbarn), the
#    untrusted client's direct write of a forged action result is denied
#    by the server; the trusted client then finds no result for that
#    action, has the worker execute it, and finds the worker's result.
# 8. `bazel clean`, the trusted client builds what the untrusted one had
#    executed: all remote cache hits, the results the worker wrote.
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
start_buildbarn "$tmp/bb" -tls-cert "$bb_certs/server.pem" -tls-key "$bb_certs/server.key" \
  -client-ca "$bb_certs/ca.pem"
[[ "$bb_endpoint" == grpcs://* ]] || die "the cluster serves $bb_endpoint, not grpcs://"
remote=(--config=buildbarn "--remote_executor=$bb_endpoint" "--remote_cache=$bb_endpoint"
  --run_under=//tools/ci:where_test_ran)
tls=("--tls_certificate=$bb_certs/ca.pem")
# identity NAME: Bazel's flags for a client certificate of `buildbarn certs`.
identity() {
  echo "--tls_client_certificate=$bb_certs/$1.pem"
  echo "--tls_client_key=$bb_certs/$1.key"
}
mapfile -t trusted < <(identity trusted)
mapfile -t untrusted < <(identity untrusted)

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

echo "== 3. with --tls_certificate, without a client certificate"
status=0
nested_bazel "$copy" build "${remote[@]}" "${tls[@]}" //cc/lab >"$tmp/anonymous.log" 2>&1 || status=$?
grep -m 1 '^ERROR' "$tmp/anonymous.log" || true
((status != 0)) || die "the cluster served a client without a certificate"
grep -q 'UNAUTHENTICATED' "$tmp/anonymous.log" || die "no UNAUTHENTICATED from the server (exit status $status)"
echo "exit status $status: the server wants a client certificate"

echo "== 4. the trusted client: tools/bazel test --config=buildbarn //cc/... (C++ only)"
first="$(bazel_step tls-first test "${remote[@]}" "${tls[@]}" "${trusted[@]}" "${targets[@]}")"
echo "$first"
[[ "$(head -n 1 <<<"$first")" =~ ([0-9]+)\ remote[,.] ]] || die "no action ran remotely: $first"
grep -E '^(//|Executed)' "$tmp/tls-first.log" | tail -n 3
tests_ran_in "$bb_build_dir" "$copy/bazel-testlogs"

echo "== 5. bazel clean; the same tests"
nested_bazel "$copy" clean >/dev/null 2>&1 || die "bazel clean failed"
second="$(bazel_step tls-second test "${remote[@]}" "${tls[@]}" "${trusted[@]}" \
  --execution_log_json_file="$tmp/tls-second.exec.json" "${targets[@]}")"
echo "$second"
only_cache_hits "$(head -n 1 <<<"$second")" "$tmp/tls-second.exec.json"
echo "every action was a remote cache hit"

# One compile action (and the archive) of //cc/lab that nobody built yet.
probe=(--per_file_copt=cc/lab/quote.cc@-DHAVLAK_LAB_UNTRUSTED_PROBE //cc/lab)
echo "== 6. bazel clean; the untrusted client: tools/bazel build --config=buildbarn //cc/lab, one file changed"
nested_bazel "$copy" clean >/dev/null 2>&1 || die "bazel clean failed"
untrusted_build="$(bazel_step untrusted build "${remote[@]}" "${tls[@]}" "${untrusted[@]}" \
  --noremote_upload_local_results "${probe[@]}")"
echo "$untrusted_build"
line="$(head -n 1 <<<"$untrusted_build")"
[[ "$line" =~ [0-9]+\ remote\ cache\ hit && "$line" =~ [0-9]+\ remote[,.] ]] ||
  die "the untrusted client did not both read the cache and execute remotely: $line"
status=0
nested_bazel "$copy" build --config=buildbarn-cache "--remote_cache=$bb_endpoint" --disk_cache= "${tls[@]}" \
  "${untrusted[@]}" --remote_upload_local_results "${probe[@]}" >"$tmp/untrusted-upload.log" 2>&1 || status=$?
((status != 0)) || die "the untrusted client was let upload local results"
grep -m 1 'not authorized to write local results' "$tmp/untrusted-upload.log" ||
  die "no refusal of --remote_upload_local_results (exit status $status; $tmp/untrusted-upload.log)"
echo "exit status $status: the server's capabilities deny the untrusted client action cache updates"

echo "== 7. acwrite: a forged action result, written without Bazel"
bb_bin="$("${clean_env[@]}" "$buildbarn" build -src "$workspace/tools/buildbarn")" || die "buildbarn build failed"
nonce="buildbarn_tls_test-$$"
# acwrite NAME OP...: acwrite as the client NAME, on one action of its own.
acwrite() {
  local name="$1"
  shift
  "$bb_bin/acwrite" -endpoint "${bb_endpoint#grpcs://}" -ca "$bb_certs/ca.pem" \
    -cert "$bb_certs/$name.pem" -key "$bb_certs/$name.key" -nonce "$nonce" "$@"
}
acwrite untrusted write >"$tmp/acwrite-untrusted.txt" || true
cat "$tmp/acwrite-untrusted.txt"
grep -q '^write as untrusted.client.havlak-lab.invalid: refused: PermissionDenied: ' "$tmp/acwrite-untrusted.txt" ||
  die "the server did not deny the untrusted client's write"
acwrite trusted read execute read >"$tmp/acwrite-trusted.txt" || true
cat "$tmp/acwrite-trusted.txt"
expected=(
  "^read as trusted.client.havlak-lab.invalid: refused: NotFound: "
  "^execute as trusted.client.havlak-lab.invalid: executed by a worker: exit code 0, stdout \"acwrite $nonce\\\\n\""
  "^read as trusted.client.havlak-lab.invalid: found: exit code 0, stdout \"acwrite $nonce\\\\n\", worker "
)
for ((i = 0; i < ${#expected[@]}; i++)); do
  sed -n "$((i + 2))p" "$tmp/acwrite-trusted.txt" | grep -qE "${expected[$i]}" ||
    die "acwrite as the trusted client, line $((i + 2)): want ${expected[$i]}"
done
echo "the forged result never reached the action cache; the worker's did"

echo "== 8. bazel clean; the trusted client builds what the untrusted one executed"
nested_bazel "$copy" clean >/dev/null 2>&1 || die "bazel clean failed"
third="$(bazel_step trusted-probe build "${remote[@]}" "${tls[@]}" "${trusted[@]}" \
  --execution_log_json_file="$tmp/trusted-probe.exec.json" "${probe[@]}")"
echo "$third"
only_cache_hits "$(head -n 1 <<<"$third")" "$tmp/trusted-probe.exec.json"
echo "PASS: Bazel built and tested on Buildbarn over TLS, refused it without the CA; the cluster wants"
echo "client certificates, lets only the trusted client and its workers write the action cache"
