#!/usr/bin/env bash
# Tests tools/bazel's bootstrap with fake dpkg-query, apt-get, id and Bazel,
# so that it never installs anything: the one-line reasons when packages are
# missing and cannot be installed, the installs it asks apt-get for, and the
# hand-over of the arguments to Bazel.
set -euo pipefail

wrapper="$PWD/$1"
fakes="$TEST_TMPDIR/bin"
mkdir -p "$fakes"
for tool in bash cat cmp cp dirname env grep head mkdir mktemp mv readlink rm tail; do
  ln -s "$(command -v "$tool")" "$fakes/$tool"
done
# dpkg-query -W -f=... PKG: installed unless PKG is listed in $MISSING.
# dpkg-query -L libnetty-tcnative-jni: the fake library made below.
cat >"$fakes/dpkg-query" <<FAKE
#!/bin/bash
[[ "\$1" != -L ]] || { echo "$TEST_TMPDIR/jni/libnetty-tcnative.so"; exit; }
FAKE
cat >>"$fakes/dpkg-query" <<'FAKE'
pkg="${!#}"
case " $MISSING " in *" $pkg "*) printf 'un ' ;; *) printf 'ii ' ;; esac
FAKE
mkdir -p "$TEST_TMPDIR/jni"
echo "tcnative v1" >"$TEST_TMPDIR/jni/libnetty-tcnative.so"
cat >"$fakes/id" <<'FAKE'
#!/bin/bash
echo "${FAKE_UID:-0}"
FAKE
# apt-get records what it was asked, in $APT_LOG.
cat >"$fakes/apt-get" <<'FAKE'
#!/bin/bash
echo "apt-get $*" >>"$APT_LOG"
FAKE
cat >"$fakes/go" <<'FAKE'
#!/bin/bash
FAKE
cat >"$fakes/bazel" <<'FAKE'
#!/bin/bash
echo "bazel $* in $PWD"
FAKE
chmod +x "$fakes"/{dpkg-query,id,apt-get,go,bazel}

failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# run_wrapper ARGS...: runs tools/bazel with only the fakes on PATH; sets
# status, out, err.
run_wrapper() {
  status=0
  out="$(env -i PATH="$fakes" BAZEL_REAL="$fakes/bazel" APT_LOG="$TEST_TMPDIR/apt.log" \
    MISSING="${MISSING:-}" FAKE_UID="${FAKE_UID:-0}" HAVLAK_LAB_CACHE="$TEST_TMPDIR/cache" \
    HAVLAK_LAB_DEBIAN_BAZEL="${DEBIAN_BAZEL:-/nonexistent}" \
    "$wrapper" "$@" 2>"$TEST_TMPDIR/err")" || status=$?
  err="$(cat "$TEST_TMPDIR/err")"
  rm -f "$TEST_TMPDIR/err"
}

expect_one_line_error() {
  local want="$1"
  ((status != 0)) || fail "exit status 0, want a failure ($want)"
  [[ "$(printf '%s\n' "$err" | wc -l)" == 1 ]] || fail "want one line, got: $err"
  [[ "$err" == *"$want"* ]] || fail "want '$want' in: $err"
}

# Everything installed: straight to Bazel, arguments intact.
MISSING="" run_wrapper build //... --config="a b"
[[ "$status" == 0 && "$out" == "bazel build //... --config=a b in "* ]] ||
  fail "hand-over to Bazel: status $status, output $out"
[[ ! -e "$TEST_TMPDIR/apt.log" ]] || fail "apt-get ran although nothing was missing"

# Debian's Bazel gets netty-tcnative under the name netty looks for, and the
# startup option that points the JVM at it, before the arguments.
jni="$TEST_TMPDIR/cache/netty-tcnative"
DEBIAN_BAZEL="$fakes/bazel" run_wrapper build //...
[[ "$status" == 0 && "$out" == "bazel --host_jvm_args=-Djava.library.path=$jni build //... in "* ]] ||
  fail "Debian's Bazel without the TLS startup option: status $status, output $out"
[[ "$(cat "$jni/libnetty_tcnative.so" 2>/dev/null)" == "tcnative v1" && ! -L "$jni/libnetty_tcnative.so" ]] ||
  fail "no copy of libnetty-tcnative.so as $jni/libnetty_tcnative.so"
# A new package version replaces the copy.
echo "tcnative v2" >"$TEST_TMPDIR/jni/libnetty-tcnative.so"
DEBIAN_BAZEL="$fakes/bazel" run_wrapper build //...
[[ "$(cat "$jni/libnetty_tcnative.so")" == "tcnative v2" ]] || fail "the copy was not updated"

# A package missing and no apt-get.
mv "$fakes/apt-get" "$fakes/apt-get.off"
MISSING="zip" run_wrapper build //...
expect_one_line_error "tools/bazel: missing Debian packages: zip; apt-get is not available to install them"
mv "$fakes/apt-get.off" "$fakes/apt-get"

# Missing, not root, and no sudo.
MISSING="zip bazel-bootstrap" FAKE_UID=1000 run_wrapper build //...
expect_one_line_error "missing Debian packages: bazel-bootstrap zip; run as root or install them"

# Missing as root: apt-get installs exactly what is missing, then Bazel runs.
MISSING="zip graphviz" run_wrapper build //...
[[ "$status" == 0 && "$out" == "bazel build //..."* ]] || fail "after installing: status $status, $out"
grep -q "install .* zip$" "$TEST_TMPDIR/apt.log" || fail "apt-get did not install zip: $(cat "$TEST_TMPDIR/apt.log")"
! grep -q graphviz "$TEST_TMPDIR/apt.log" || fail "a build installed the test-only graphviz"
[[ "$err" == "tools/bazel: installing Debian packages (once): zip" ]] || fail "progress line: $err"
rm -f "$TEST_TMPDIR/apt.log"

# Tests also need the test packages, whatever startup options come first.
MISSING="graphviz" run_wrapper --nohome_rc test //...
grep -q "install .* graphviz$" "$TEST_TMPDIR/apt.log" || fail "bazel test did not install graphviz"
rm -f "$TEST_TMPDIR/apt.log"

# apt-get failing: its last lines, then a one-line reason.
cat >"$fakes/apt-get" <<'FAKE'
#!/bin/bash
echo "E: Unable to locate package zip"
exit 100
FAKE
MISSING="zip" run_wrapper build //...
((status != 0)) || fail "apt-get failed but the wrapper went on"
[[ "$err" == *"E: Unable to locate package zip"*"tools/bazel: apt-get install zip failed"* ]] ||
  fail "apt-get failure report: $err"

# A key file an older tools/ci/bazel_ci.sh left in the workspace, as a
# link (even dangling) or a file: refused, and Bazel never runs.
workspace="$TEST_TMPDIR/workspace"
mkdir -p "$workspace/tools"
cp "$wrapper" "$workspace/tools/bazel"
ln -s "$TEST_TMPDIR/gone/buildbuddy-key.bazelrc" "$workspace/buildbuddy-key.bazelrc"
for kind in link file; do
  wrapper="$workspace/tools/bazel" run_wrapper build --announce_rc //...
  expect_one_line_error "tools/bazel: $workspace/buildbuddy-key.bazelrc is there: a CI key file"
  [[ "$err" == *"remove it (rm $workspace/buildbuddy-key.bazelrc)"* ]] || fail "a stale $kind: no way out in: $err"
  [[ -z "$out" ]] || fail "a stale $kind: Bazel ran: $out"
  rm -f "$workspace/buildbuddy-key.bazelrc"
  echo "build --remote_header=x-buildbuddy-api-key=stale" >"$workspace/buildbuddy-key.bazelrc"
done
rm -f "$workspace/buildbuddy-key.bazelrc"
wrapper="$workspace/tools/bazel" run_wrapper build //...
[[ "$status" == 0 && "$out" == "bazel build //... in "* ]] || fail "once removed: status $status, output $out"

((failures == 0)) || exit 1
echo "PASS"
