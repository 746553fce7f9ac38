#!/usr/bin/env bash
# Checks that the README's table of stages (its "## The stages" section)
# names every Havlak stage that benchmarks/stages.bzl declares, so that the
# list and the README cannot drift apart.
#
# Usage: stages_readme_test.sh README STAGE_NAMES (runfiles paths; one
# stage name a line)
set -euo pipefail

readme="$1"
names="$2"

# The section, from its heading to the next one.
section="$(awk '/^## / { on = ($0 == "## The stages") } on' "$readme")"
if [[ -z "$section" ]]; then
  echo "FAIL: README.md has no \"## The stages\" section" >&2
  exit 1
fi
missing=()
while read -r name; do
  grep -qF -- "\`$name\`" <<<"$section" || missing+=("$name")
done <"$names"
if ((${#missing[@]} > 0)); then
  echo "FAIL: README.md's stage table does not name ${missing[*]} (benchmarks/stages.bzl declares them)" >&2
  exit 1
fi
echo "PASS: README.md's stage table names all $(wc -l <"$names") stages"
