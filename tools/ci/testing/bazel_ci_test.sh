#!/usr/bin/env bash
# tools/ci/bazel_ci.sh with a stand-in for tools/bazel and buildkite-agent:
# the key is used only when the agent can hide it, reaches Bazel through an
# rc file outside the checkout named on its command line, never stays in
# the checkout or the artifacts, and a killed build leaves it only in its
# step's private directory, which the next step clears (a running step's
# directory stays).
#
# Usage: bazel_ci_test.sh BAZEL_CI_SH
# with $STEPDIR, tools/ci/stepdir (//tools/ci:bazel_ci_test passes it), or
# else $GO (default go) to build it from BAZEL_CI_SH's checkout.
set -euo pipefail

script="$(readlink -f "$1")"
tmp="$(mktemp -d)"
sleeper=""
trap '[[ -z "$sleeper" ]] || kill "$sleeper"; rm -rf "$tmp"' EXIT
die() {
  echo "FAIL: $*" >&2
  exit 1
}
stepdir="$tmp/stepdir"
if [[ -n "${STEPDIR:-}" ]]; then
  cp "$STEPDIR" "$stepdir"
else
  (cd "$(dirname "$script")/../.." && "${GO:-go}" build -o "$stepdir" ./tools/ci/stepdir) || die "could not build tools/ci/stepdir"
fi

checkout="$tmp/checkout"
mkdir -p "$checkout/tools/ci" "$tmp/bin" "$tmp/run"
cp "$script" "$checkout/tools/ci/bazel_ci.sh"
chmod +x "$checkout/tools/ci/bazel_ci.sh"
# The stand-in for Bazel runs stepdir for `run //tools/ci/stepdir --`;
# otherwise it records its arguments, the rc file named by
# --bazelrc and whether the checkout holds a key file, writes a build event
# file holding the key where the last --build_event_json_file says, and
# with KILL_CI kills bazel_ci.sh.
cat >"$checkout/tools/bazel" <<'FAKE'
#!/usr/bin/env bash
if [[ "$1 $2 $3" == "run //tools/ci/stepdir --" ]]; then
  shift 3
  exec "$STEPDIR" "$@"
fi
printf '%s\n' "$@" >"$SEEN/args"
rc=""
[[ "$1" != --bazelrc=* ]] || rc="${1#*=}"
[[ -z "$rc" ]] || cat "$rc" >"$SEEN/key_rc"
[[ ! -e buildbuddy-key.bazelrc && ! -L buildbuddy-key.bazelrc ]] || echo yes >"$SEEN/key_in_checkout"
events=""
for arg in "$@"; do
  [[ "$arg" != --build_event_json_file=* ]] || events="${arg#*=}"
done
[[ -z "$events" ]] || echo "{\"options\": \"$(cat "$rc" 2>/dev/null || echo "$*")\"}" >"$events"
[[ -z "${KILL_CI:-}" ]] || kill -9 "$PPID"
FAKE
cat >"$tmp/bin/buildkite-agent" <<'FAKE'
#!/usr/bin/env bash
cat >/dev/null
exit "${REDACTOR_STATUS:-0}"
FAKE
chmod +x "$checkout/tools/bazel" "$tmp/bin/buildkite-agent"
key="made-up-write-key-$RANDOM$RANDOM"
base="$tmp/run/havlak-lab-ci-$(id -u)"

ci() {
  rm -f "$tmp"/seen/*
  mkdir -p "$tmp/seen"
  env -i PATH="$tmp/bin:/usr/bin:/bin" HOME="$tmp" XDG_RUNTIME_DIR="$tmp/run" SEEN="$tmp/seen" \
    STEPDIR="$stepdir" BUILDKITE=true BUILDBUDDY_API_KEY="$key" "$@" "$checkout/tools/ci/bazel_ci.sh" build //... 2>"$tmp/stderr"
}
# no_key_in WHAT DIR...: the key is in no file under DIR..., and the
# checkout has no key file, not even a dangling link.
no_key_in() {
  local what="$1" where
  shift
  where="$(grep -rlF "$key" "$@" || true)"
  [[ -z "$where" ]] || die "$what: the key is in $where"
  [[ ! -e "$checkout/buildbuddy-key.bazelrc" && ! -L "$checkout/buildbuddy-key.bazelrc" ]] || die "$what: a key file in the checkout"
}
# started PID: the process's start time, as bazel_ci.sh reads it.
started() {
  local stat fields
  stat="$(cat "/proc/$1/stat")"
  read -r -a fields <<<"${stat##*) }"
  echo "${fields[19]}"
}

echo "== the agent cannot hide the key: it is not used"
ci REDACTOR_STATUS=1 || die "bazel_ci.sh failed: $(cat "$tmp/stderr")"
grep -q "redactor add failed" "$tmp/stderr" || die "it did not say why the key is not used"
! grep -q -- --config=buildbuddy "$tmp/seen/args" || die "--config=buildbuddy without a hidden key"
! grep -q -- --bazelrc "$tmp/seen/args" || die "Bazel was given a key file"
no_key_in "no redactor" "$checkout" "$tmp/run"

echo "== the agent hides it: used through a private rc file, then gone; the event file scrubbed"
ci || die "bazel_ci.sh failed: $(cat "$tmp/stderr")"
grep -qx -- --config=buildbuddy "$tmp/seen/args" || die "no --config=buildbuddy"
rc="$(head -n 1 "$tmp/seen/args")"
[[ "$rc" == "--bazelrc=$base/step-"*/buildbuddy-key.bazelrc ]] ||
  die "Bazel's first argument is $rc, not --bazelrc= a file in a step's private directory"
private="$(dirname "${rc#*=}")"
grep -qF "x-buildbuddy-api-key=$key" "$tmp/seen/key_rc" || die "Bazel did not see the key in $rc"
[[ ! -e "$tmp/seen/key_in_checkout" ]] || die "a key file in the checkout during the build"
grep -qx -- --noannounce_rc "$tmp/seen/args" || die "--announce_rc would print the key"
! grep -qF -- "$key" "$tmp/seen/args" || die "the key is on Bazel's command line"
grep -qx -- "--build_event_json_file=$private/bazel-events.json" "$tmp/seen/args" ||
  die "Bazel did not write its event file into the private directory"
grep -q REDACTED "$checkout/artifacts/bazel-events.json" || die "the scrubbed event file is not in the artifacts"
no_key_in "a good build" "$checkout" "$tmp/run"
[[ ! -e "$private" ]] || die "the private directory is left"

echo "== killed (kill -9): nothing in the checkout; the key stays private until the next step"
rm -f "$checkout/artifacts/bazel-events.json"
status=0
ci KILL_CI=1 || status=$?
((status == 137)) || die "bazel_ci.sh was not killed: $status"
rc="$(head -n 1 "$tmp/seen/args")"
private="$(dirname "${rc#*=}")"
no_key_in "after kill -9" "$checkout"
[[ ! -e "$checkout/artifacts/bazel-events.json" ]] || die "an unscrubbed event file in the artifacts"
[[ "$(stat -c %a "$base")" == 700 && "$(stat -c %a "$private")" == 700 ]] || die "the private directories are not private"
grep -rlqF "$key" "$private" || die "the test killed nothing that held the key"
# A step running beside it, of another agent of this user, keeps its own.
sleep 600 &
sleeper=$!
running="$base/step-$sleeper-$(started "$sleeper")"
mkdir -m 700 "$running"
touch "$running/bazel-events.json" "$base/buildbuddy-key.bazelrc"
ci REDACTOR_STATUS=1 || die "the next run failed: $(cat "$tmp/stderr")"
no_key_in "after a killed build and the next run" "$checkout" "$tmp/run"
[[ ! -e "$private" ]] || die "the killed step's directory is left"
[[ ! -e "$base/buildbuddy-key.bazelrc" ]] || die "an older bazel_ci.sh's key file is left"
[[ -e "$running/bazel-events.json" ]] || die "the next step removed a running step's directory"
kill "$sleeper"
sleeper=""

echo "== an older bazel_ci.sh's key link in the checkout: removed before Bazel runs"
ln -s "$base/gone/buildbuddy-key.bazelrc" "$checkout/buildbuddy-key.bazelrc"
ci || die "bazel_ci.sh failed: $(cat "$tmp/stderr")"
[[ ! -e "$tmp/seen/key_in_checkout" ]] || die "Bazel ran with the old link in the checkout"
grep -q "removing buildbuddy-key.bazelrc" "$tmp/stderr" || die "it did not say it removed the old link"
no_key_in "an old link" "$checkout" "$tmp/run"

echo "== a fork's pull request: the write key is not used"
ci BUILDKITE_PULL_REQUEST=17 BUILDKITE_PULL_REQUEST_REPO=git://github.com/a-fork/havlak-lab.git \
  BUILDKITE_REPO=git@github.com:havlak/havlak-lab.git || die "bazel_ci.sh failed: $(cat "$tmp/stderr")"
! grep -q -- --config=buildbuddy "$tmp/seen/args" || die "a fork's build used the write key"
grep -qx -- --noremote_upload_local_results "$tmp/seen/args" || die "a fork's build may upload"
no_key_in "a fork" "$checkout" "$tmp/run"
echo PASS
