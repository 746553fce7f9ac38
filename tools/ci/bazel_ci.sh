#!/usr/bin/env bash
# Runs tools/bazel the way every CI job does:
#
#   tools/ci/bazel_ci.sh COMMAND [ARGS...]
#   = tools/bazel COMMAND --config=ci [--config=buildbuddy] [ARGS...]
#
# --config=ci writes the build event stream to artifacts/bazel-events.json
# (the directory is made here). Trusted builds with $BUILDBUDDY_API_KEY add
# --config=buildbuddy and pass the key as --remote_header in an rc file in
# this step's private directory, outside the checkout, which Bazel reads
# only because this script names it (startup option --bazelrc=FILE): a
# plain tools/bazel in the checkout never reads it, even when a killed step
# left it behind. The step's directory is removed when Bazel is done, and
# a killed step's by the next step's start (steps running at the same time
# keep theirs). The key never reaches the log (--noannounce_rc while it is
# used; on Buildkite also the agent's redactor: a key it cannot hide is not
# used) nor the artifacts (not in Bazel's environment; Bazel writes the
# build event file into the private directory, and it is scrubbed before
# it is moved to the artifacts).
#
# A pull request from a fork (BUILDKITE_PULL_REQUEST_REPO is not
# BUILDKITE_REPO; docs/security.md) is untrusted: $BUILDBUDDY_API_KEY is
# ignored, $BUILDBUDDY_READONLY_API_KEY is used if given (on the
# command line, never in a file), --noremote_upload_local_results is added,
# and the build event file goes to untrusted-artifacts/.
#
# Runs the same locally, from the checkout: the key is optional.
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/../.."
(($# > 0)) || {
  echo "usage: tools/ci/bazel_ci.sh COMMAND [ARGS...]" >&2
  exit 2
}
command="$1"
shift

events="artifacts/bazel-events.json"
configs=(--config=ci)
die() {
  echo "bazel_ci.sh: $*" >&2
  exit 1
}

# repo_id URL: host/owner/name of a git URL in any of its forms.
repo_id() { sed -E 's#^[a-z+]+://##; s#^[^@/]*@##; s#:#/#; s#\.git$##; s#/$##' <<<"$1" | tr '[:upper:]' '[:lower:]'; }
pull_request="${BUILDKITE_PULL_REQUEST:-false}"
untrusted=""
if [[ -n "$pull_request" && "$pull_request" != false &&
  "$(repo_id "${BUILDKITE_PULL_REQUEST_REPO:-}")" != "$(repo_id "${BUILDKITE_REPO:-}")" ]]; then
  untrusted="pull request #$pull_request from ${BUILDKITE_PULL_REQUEST_REPO:-an unknown repository}"
fi

# started PID: when process PID started (clock ticks after boot, field 22
# of /proc/PID/stat), nothing if there is no such process. With the PID it
# names one process: a PID given out again belongs to a later start.
started() {
  local stat fields
  stat="$(cat "/proc/$1/stat" 2>/dev/null)" || return 0
  # The fields after the command name, which may hold spaces and ")".
  read -r -a fields <<<"${stat##*) }"
  echo "${fields[19]}"
}

# Each step's private directory, step-PID-START (this script's process),
# is in a directory of this user's alone, outside the checkout.
private_base="${XDG_RUNTIME_DIR:-${TMPDIR:-/tmp}}/havlak-lab-ci-$(id -u)"
[[ -d "$private_base" && ! -L "$private_base" ]] || mkdir -m 700 "$private_base"
[[ "$(stat -c '%u %a' "$private_base")" == "$(id -u) 700" ]] ||
  die "$private_base is not this user's alone (owner, mode: $(stat -c '%U %a' "$private_base")): remove it"
me="$(started $$)"
[[ -n "$me" ]] || die "no /proc/$$/stat: the private directories need Linux's /proc"
# A step killed before its cleanup (kill -9, a lost agent) left its
# directory, maybe with the key and the unscrubbed build event file: it
# goes now, unless its step still runs (agents of one user run steps side
# by side). Anything else in there is an older bazel_ci.sh's.
for dir in "$private_base"/* "$private_base"/.[!.]*; do
  [[ -e "$dir" || -L "$dir" ]] || continue
  name="$(basename "$dir")"
  if [[ "$name" =~ ^step-([0-9]+)-([0-9]+)$ && "$(started "${BASH_REMATCH[1]}")" == "${BASH_REMATCH[2]}" ]]; then
    continue
  fi
  rm -rf "$dir"
done
private_dir="$private_base/step-$$-$me"
readonly private_dir
mkdir -m 700 "$private_dir"
# An older bazel_ci.sh linked the key file into the checkout as
# buildbuddy-key.bazelrc; tools/bazel refuses to run while one is there.
if [[ -e buildbuddy-key.bazelrc || -L buildbuddy-key.bazelrc ]]; then
  echo "bazel_ci.sh: removing buildbuddy-key.bazelrc, an older bazel_ci.sh's key file, from the checkout" >&2
  rm -f buildbuddy-key.bazelrc
fi
if [[ -n "$untrusted" ]]; then
  echo "bazel_ci.sh: untrusted build ($untrusted): no write key, no uploads to the cache" >&2
  key="${BUILDBUDDY_READONLY_API_KEY:-}"
  events="untrusted-artifacts/bazel-events.json"
  configs+=("--build_event_json_file=$events")
else
  key="${BUILDBUDDY_API_KEY:-}"
fi
mkdir -p "$(dirname "$events")"
# Bazel records its whole environment in the build event file (--client_env).
unset BUILDBUDDY_API_KEY BUILDBUDDY_READONLY_API_KEY

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  if [[ -n "$key" && -f "$private_dir/bazel-events.json" ]]; then
    # Bazel records its whole command line, rc files included, in the
    # build event stream (with "=" as \u003d: the key itself is replaced).
    KEY="$key" perl -pi -e 's/\Q$ENV{KEY}\E/REDACTED/g' "$private_dir/bazel-events.json"
    mv "$private_dir/bazel-events.json" "$events"
  fi
  rm -rf "$private_dir"
}
trap cleanup EXIT

# On Buildkite the key must also be hidden in the job's log, should Bazel
# ever print it, and the agent's default redacted-vars patterns (*_TOKEN,
# *_SECRET, ...) do not match BUILDBUDDY_API_KEY. A key the agent cannot
# hide is not used: the build goes on without BuildBuddy.
if [[ -n "$key" && -n "${BUILDKITE:-}" ]] &&
  ! { command -v buildkite-agent >/dev/null 2>&1 && printf '%s' "$key" | buildkite-agent redactor add >/dev/null 2>&1; }; then
  echo "bazel_ci.sh: buildkite-agent redactor add failed: the key could not be hidden from the log, so it is not used (no BuildBuddy for this build)" >&2
  key=""
fi
startup=()
if [[ -n "$key" ]]; then
  # Bazel writes the unscrubbed build event file here; cleanup scrubs it.
  configs+=("--build_event_json_file=$private_dir/bazel-events.json")
  configs+=(--config=buildbuddy)
  if [[ -n "$untrusted" ]]; then
    configs+=("--remote_header=x-buildbuddy-api-key=$key")
  else
    # Read after every other rc file, and only by this command: Bazel 4.2.3
    # takes one --bazelrc, besides the workspace's and the user's rc files.
    (
      umask 077
      printf '%s\n' "# Written by tools/ci/bazel_ci.sh from \$BUILDBUDDY_API_KEY; removed after the build." \
        "build --remote_header=x-buildbuddy-api-key=$key" >"$private_dir/buildbuddy-key.bazelrc"
    )
    startup+=("--bazelrc=$private_dir/buildbuddy-key.bazelrc")
  fi
  # --announce_rc (--config=ci) prints every rc file's options, the key's
  # too: not while a key is used. What ran is in the build event file
  # (optionsParsed; scrubbed) and on BuildBuddy's results page.
  configs+=(--noannounce_rc)
fi
# After --config=buildbuddy, which turns uploads on.
[[ -z "$untrusted" ]] || configs+=(--noremote_upload_local_results)

status=0
tools/bazel "${startup[@]}" "$command" "${configs[@]}" "$@" || status=$?
exit "$status"
