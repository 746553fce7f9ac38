#!/usr/bin/env bash
# Runs tools/bazel the way every CI job does:
#
#   tools/ci/bazel_ci.sh COMMAND [ARGS...]
#   = tools/bazel COMMAND --config=ci [--config=buildbuddy] [ARGS...]
#
# --config=ci writes the build event stream to artifacts/bazel-events.json
# (the directory is made here). With $BUILDBUDDY_API_KEY set, it also adds
# --config=buildbuddy and passes the key as --remote_header in
# buildbuddy-key.bazelrc: a gitignored file, private to this user, removed
# when Bazel is done. The key never reaches the log (the agent's redactor)
# nor the artifacts (scrubbed from the build event file).
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

readonly key_rc="buildbuddy-key.bazelrc"
readonly events="artifacts/bazel-events.json"
mkdir -p artifacts
configs=(--config=ci)
key="${BUILDBUDDY_API_KEY:-}"

# shellcheck disable=SC2317 # called by the EXIT trap
cleanup() {
  rm -f "$key_rc"
  if [[ -n "$key" && -f "$events" ]]; then
    # Bazel records its whole command line, rc files included, in the
    # build event stream.
    sed -i "s/x-buildbuddy-api-key=[^\" ]*/x-buildbuddy-api-key=REDACTED/g" "$events"
  fi
}
trap cleanup EXIT

if [[ -n "$key" ]]; then
  # --announce_rc prints rc files' options: hide the key in the job's log.
  # The agent's default redacted-vars patterns (*_TOKEN, *_SECRET, ...) do
  # not match BUILDBUDDY_API_KEY.
  if [[ -n "${BUILDKITE:-}" ]] && command -v buildkite-agent >/dev/null 2>&1; then
    printf '%s' "$key" | buildkite-agent redactor add >/dev/null 2>&1 || true
  fi
  (
    umask 077
    printf '%s\n' "# Written by tools/ci/bazel_ci.sh from \$BUILDBUDDY_API_KEY; removed after the build." \
      "build --remote_header=x-buildbuddy-api-key=$key" >"$key_rc"
  )
  configs+=(--config=buildbuddy)
fi

status=0
tools/bazel "$command" "${configs[@]}" "$@" || status=$?
exit "$status"
