#!/usr/bin/env bash
# Runs shellcheck (Debian's; tools/bazel test installs it) on every shell
# script of the checkout: files named *.sh and files whose first line runs
# bash or sh, tracked or new (not ignored).
#
# Usage: shellcheck_test.sh WORKSPACE_FILE (a runfiles path)
set -euo pipefail

workspace="$(dirname "$(readlink -f "$1")")"
cd "$workspace"
command -v shellcheck >/dev/null 2>&1 || {
  echo "FAIL: shellcheck not found (Debian package shellcheck; tools/bazel test installs it)" >&2
  exit 1
}

scripts=()
while IFS= read -r -d '' file; do
  [[ -f "$file" && ! -L "$file" ]] || continue
  case "$file" in
    *.sh) scripts+=("$file") ;;
    *) if head -n 1 "$file" | grep -qE '^#!.*\b(ba)?sh\b'; then scripts+=("$file"); fi ;;
  esac
done < <(git ls-files -z --cached --others --exclude-standard)
((${#scripts[@]} > 0)) || {
  echo "FAIL: no shell scripts found in $workspace" >&2
  exit 1
}

printf 'shellcheck %s\n' "${scripts[@]}"
shellcheck -x "${scripts[@]}"
echo "PASS: ${#scripts[@]} scripts are shellcheck-clean"
