#!/usr/bin/env bash
# Runs tools/bazel the way every CI job does:
#
#   tools/ci/bazel_ci.sh COMMAND [ARGS...]
#   = tools/bazel COMMAND --config=ci [--config=buildbuddy] [ARGS...]
#
# --config=ci writes the build event stream to artifacts/bazel-events.json
# (the directory is made here). Trusted builds with $BUILDBUDDY_API_KEY add
# --config=buildbuddy and pass the key as --remote_header in
# buildbuddy-key.bazelrc: a gitignored file, private to this user, removed
# when Bazel is done. The key never reaches the log (the agent's redactor)
# nor the artifacts (not in Bazel's environment; scrubbed from the build
# event file).
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

readonly key_rc="buildbuddy-key.bazelrc"
events="artifacts/bazel-events.json"
configs=(--config=ci)

# repo_id URL: host/owner/name of a git URL in any of its forms.
repo_id() { sed -E 's#^[a-z+]+://##; s#^[^@/]*@##; s#:#/#; s#\.git$##; s#/$##' <<<"$1" | tr '[:upper:]' '[:lower:]'; }
pull_request="${BUILDKITE_PULL_REQUEST:-false}"
untrusted=""
if [[ -n "$pull_request" && "$pull_request" != false &&
  "$(repo_id "${BUILDKITE_PULL_REQUEST_REPO:-}")" != "$(repo_id "${BUILDKITE_REPO:-}")" ]]; then
  untrusted="pull request #$pull_request from ${BUILDKITE_PULL_REQUEST_REPO:-an unknown repository}"
fi
# A key file left by anyone before is never read by this build.
rm -f "$key_rc"
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
  rm -f "$key_rc"
  if [[ -n "$key" && -f "$events" ]]; then
    # Bazel records its whole command line, rc files included, in the
    # build event stream (with "=" as \u003d: the key itself is replaced).
    KEY="$key" perl -pi -e 's/\Q$ENV{KEY}\E/REDACTED/g' "$events"
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
  configs+=(--config=buildbuddy)
  if [[ -n "$untrusted" ]]; then
    configs+=("--remote_header=x-buildbuddy-api-key=$key")
  else
    (
      umask 077
      printf '%s\n' "# Written by tools/ci/bazel_ci.sh from \$BUILDBUDDY_API_KEY; removed after the build." \
        "build --remote_header=x-buildbuddy-api-key=$key" >"$key_rc"
    )
  fi
fi
# After --config=buildbuddy, which turns uploads on.
[[ -z "$untrusted" ]] || configs+=(--noremote_upload_local_results)

status=0
tools/bazel "$command" "${configs[@]}" "$@" || status=$?
exit "$status"
