#!/usr/bin/env bash
# tools/ci/bazel_ci.sh with a stand-in for tools/bazel and buildkite-agent:
# the key is used only when the agent can hide it, it never stays in the
# checkout or the artifacts, and a killed build leaves it only in the
# private directory, which the next run clears.
#
# Usage: bazel_ci_test.sh BAZEL_CI_SH
set -euo pipefail

script="$(readlink -f "$1")"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
die() {
  echo "FAIL: $*" >&2
  exit 1
}

checkout="$tmp/checkout"
mkdir -p "$checkout/tools/ci" "$tmp/bin" "$tmp/run"
cp "$script" "$checkout/tools/ci/bazel_ci.sh"
chmod +x "$checkout/tools/ci/bazel_ci.sh"
# The stand-in for Bazel records its arguments and the key file it sees,
# writes a build event file holding the key where the last
# --build_event_json_file says, and with KILL_CI kills bazel_ci.sh.
cat >"$checkout/tools/bazel" <<'FAKE'
#!/usr/bin/env bash
printf '%s\n' "$@" >"$SEEN/args"
cat buildbuddy-key.bazelrc >"$SEEN/key_rc" 2>/dev/null || true
events=""
for arg in "$@"; do
  [[ "$arg" != --build_event_json_file=* ]] || events="${arg#*=}"
done
[[ -z "$events" ]] || echo "{\"options\": \"$(cat buildbuddy-key.bazelrc 2>/dev/null || echo "$*")\"}" >"$events"
[[ -z "${KILL_CI:-}" ]] || kill -9 "$PPID"
FAKE
cat >"$tmp/bin/buildkite-agent" <<'FAKE'
#!/usr/bin/env bash
cat >/dev/null
exit "${REDACTOR_STATUS:-0}"
FAKE
chmod +x "$checkout/tools/bazel" "$tmp/bin/buildkite-agent"
key="made-up-write-key-$RANDOM$RANDOM"
private="$tmp/run/havlak-lab-ci-$(id -u)"

ci() {
  rm -f "$tmp"/seen/*
  mkdir -p "$tmp/seen"
  env -i PATH="$tmp/bin:/usr/bin:/bin" HOME="$tmp" XDG_RUNTIME_DIR="$tmp/run" SEEN="$tmp/seen" \
    BUILDKITE=true BUILDBUDDY_API_KEY="$key" "$@" "$checkout/tools/ci/bazel_ci.sh" build //... 2>"$tmp/stderr"
}
no_key_left() {
  local where
  where="$(grep -rlF "$key" "$checkout" "$tmp/run" || true)"
  [[ -z "$where" ]] || die "$1: the key is in $where"
  [[ ! -e "$checkout/buildbuddy-key.bazelrc" && ! -L "$checkout/buildbuddy-key.bazelrc" ]] || die "$1: a key file in the checkout"
}

echo "== the agent cannot hide the key: it is not used"
ci REDACTOR_STATUS=1 || die "bazel_ci.sh failed: $(cat "$tmp/stderr")"
grep -q "redactor add failed" "$tmp/stderr" || die "it did not say why the key is not used"
! grep -q -- --config=buildbuddy "$tmp/seen/args" || die "--config=buildbuddy without a hidden key"
[[ ! -s "$tmp/seen/key_rc" ]] || die "Bazel saw a key file"
no_key_left "no redactor"

echo "== the agent hides it: used, then gone; the event file scrubbed"
ci || die "bazel_ci.sh failed: $(cat "$tmp/stderr")"
grep -qx -- --config=buildbuddy "$tmp/seen/args" || die "no --config=buildbuddy"
grep -qF "x-buildbuddy-api-key=$key" "$tmp/seen/key_rc" || die "Bazel did not see the key file"
grep -qx -- "--build_event_json_file=$private/bazel-events.json" "$tmp/seen/args" ||
  die "Bazel did not write its event file into the private directory"
grep -q REDACTED "$checkout/artifacts/bazel-events.json" || die "the scrubbed event file is not in the artifacts"
no_key_left "a good build"
[[ ! -e "$private" ]] || die "the private directory is left"

echo "== killed: the key and the unscrubbed file stay private, until the next run"
rm -f "$checkout/artifacts/bazel-events.json"
status=0
ci KILL_CI=1 || status=$?
((status == 137)) || die "bazel_ci.sh was not killed: $status"
[[ ! -e "$checkout/artifacts/bazel-events.json" ]] || die "an unscrubbed event file in the artifacts"
[[ "$(stat -c %a "$private")" == 700 ]] || die "the private directory is not private"
grep -rlqF "$key" "$private" || die "the test killed nothing that held the key"
ci REDACTOR_STATUS=1 || die "the next run failed: $(cat "$tmp/stderr")"
no_key_left "after a killed build and the next run"

echo "== a fork's pull request: the write key is not used"
ci BUILDKITE_PULL_REQUEST=17 BUILDKITE_PULL_REQUEST_REPO=git://github.com/a-fork/havlak-lab.git \
  BUILDKITE_REPO=git@github.com:havlak/havlak-lab.git || die "bazel_ci.sh failed: $(cat "$tmp/stderr")"
! grep -q -- --config=buildbuddy "$tmp/seen/args" || die "a fork's build used the write key"
grep -qx -- --noremote_upload_local_results "$tmp/seen/args" || die "a fork's build may upload"
no_key_left "a fork"
echo PASS
