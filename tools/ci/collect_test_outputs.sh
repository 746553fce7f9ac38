#!/usr/bin/env bash
# Copies every test's undeclared outputs (outputs.zip) named in a Bazel
# build event file into DEST/<test name>/outputs.zip, a real directory that
# artifact_paths can upload (bazel-testlogs is a symlink out of the checkout,
# and its contents change with the next build).
#
#   tools/ci/collect_test_outputs.sh BUILD_EVENT_JSON_FILE DEST
#
# <test name> is the target's name (//benchmarks:havlak6_test -> havlak6_test;
# tests of other packages with the same name would collide, and fail here).
# Prints the directories it made, one a line. Tests without outputs.zip are
# skipped; a test that ran several times (--runs_per_test, flaky retries)
# keeps its last attempt.
set -euo pipefail

die() {
  echo "collect_test_outputs: $*" >&2
  exit 1
}

(($# == 2)) || die "usage: collect_test_outputs.sh BUILD_EVENT_JSON_FILE DEST"
events="$1"
dest="$2"
[[ -f "$events" ]] || die "$events: no such file (was bazel run with --config=ci?)"
command -v jq >/dev/null 2>&1 || die "jq not found (tools/bazel test installs it)"

# One line per test attempt: label, then the outputs.zip URI, in stream order.
rows="$(jq -r 'select(.id.testResult) |
  .id.testResult.label as $target |
  .testResult.testActionOutput[]? |
  select(.name == "test.outputs__outputs.zip") |
  "\($target)\t\(.uri)"' "$events")" || die "$events: not a build event JSON file"

declare -A zip_of=()
while IFS=$'\t' read -r label uri; do
  [[ -n "$label" ]] || continue
  zip_of["$label"]="$uri"
done <<<"$rows"

declare -A label_of=()
for label in "${!zip_of[@]}"; do
  name="${label##*:}"
  [[ -z "${label_of[$name]:-}" ]] || die "two tests named $name: $label and ${label_of[$name]}"
  label_of["$name"]="$label"
  uri="${zip_of[$label]}"
  case "$uri" in
    file://*) path="${uri#file://}" ;;
    *) die "$label: outputs.zip is at $uri, not a local file (--remote_download_minimal?)" ;;
  esac
  [[ -f "$path" ]] || die "$label: $path does not exist"
  mkdir -p "$dest/$name"
  cp "$path" "$dest/$name/outputs.zip"
  echo "$dest/$name"
done | sort
