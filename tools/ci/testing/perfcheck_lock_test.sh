#!/usr/bin/env bash
# tools/ci/perfcheck.sh's lock on the base's worktree, with a stand-in for
# the base's tools/bazel that leaves a daemon behind, as a Bazel server
# does (it inherits its client's open descriptors and lives for hours):
#   - a second check, started while the first one's "server" still runs,
#     is not held by it: it ends long before the server would;
#   - two checks started at once both end, and never use the worktree at
#     the same time.
# Usage: perfcheck_lock_test.sh PERFCHECK_SH LABCACHE_SH (runfiles)
set -euo pipefail
perfcheck="$(readlink -f "$1")"
labcache="$(readlink -f "$2")"
tmp="${TEST_TMPDIR:?run me with bazel test}"

die() {
  echo "FAIL: $*" >&2
  exit 1
}

# The stand-ins' daemons write their process IDs here; all are stopped on
# exit, whatever the outcome.
daemons="$tmp/daemons"
: >"$daemons"
stop_daemons() {
  local pid
  while read -r pid; do
    kill "$pid" 2>/dev/null || true
  done <"$daemons"
}
trap stop_daemons EXIT

export HAVLAK_LAB_CACHE="$tmp/cache"
export GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.invalid
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.invalid
unset BUILDKITE BUILDKITE_PULL_REQUEST_BASE_BRANCH

# A repository whose main holds the two files the script takes from the
# base (the cache directory's rule, tools/bazel), and a docs-only change.
repo="$tmp/repo"
git init --quiet --initial-branch=main "$repo"
mkdir -p "$repo/internal/labcache" "$repo/tools" "$repo/docs"
cp "$labcache" "$repo/internal/labcache/labcache.sh"
# The base's tools/bazel: marks the worktree busy (mkdir is atomic), leaves
# a daemon holding whatever descriptors it was given, works a moment, and
# writes the comment where --out says.
cat >"$repo/tools/bazel" <<EOF
#!/usr/bin/env bash
set -euo pipefail
busy="$tmp/busy"
mkdir "\$busy" 2>/dev/null || { echo "two checks in the base's worktree at once" >"$tmp/overlap"; exit 1; }
setsid sleep 120 </dev/null >/dev/null 2>&1 &
echo "\$!" >>"$daemons"
out=""
while (("\$#")); do
  [[ "\$1" != --out ]] || out="\$2"
  shift
done
sleep 1
mkdir -p "\$out"
echo "no benchmark affected" >"\$out/pr-comment.md"
echo "\$(date +%s.%N) \$out" >>"$tmp/checks"
rmdir "\$busy"
EOF
chmod +x "$repo/tools/bazel"
echo "# docs" >"$repo/docs/index.md"
git -C "$repo" add -A
git -C "$repo" commit --quiet -m base
git -C "$repo" checkout --quiet -b change
echo "more words" >>"$repo/docs/index.md"
git -C "$repo" commit --quiet -am "docs only"

# check NAME: one perf check in the change's checkout, bounded well under
# the stand-in server's life, its log in $tmp/NAME.log.
check() {
  (cd "$repo" && timeout 60 bash "$perfcheck" "$tmp/out-$1") >"$tmp/$1.log" 2>&1
}

echo "one check, then another while the first one's server runs"
check first || die "the first check failed: $(cat "$tmp/first.log")"
[[ -s "$tmp/out-first/pr-comment.md" ]] || die "the first check wrote no comment"
start=$SECONDS
check second || die "the second check did not end (a daemon of the first holds the lock?): $(cat "$tmp/second.log")"
((SECONDS - start < 30)) || die "the second check took $((SECONDS - start)) s"
grep -q "waiting for it to end" "$tmp/second.log" && die "the second check waited for a lock no check held: $(cat "$tmp/second.log")"

echo "two checks at once"
check third &
third=$!
check fourth &
fourth=$!
wait "$third" || die "the third check failed: $(cat "$tmp/third.log")"
wait "$fourth" || die "the fourth check failed: $(cat "$tmp/fourth.log")"
[[ ! -e "$tmp/overlap" ]] || die "$(cat "$tmp/overlap")"
[[ -s "$tmp/out-third/pr-comment.md" && -s "$tmp/out-fourth/pr-comment.md" ]] || die "a check of the two at once wrote no comment"
(($(wc -l <"$tmp/checks") == 4)) || die "$(wc -l <"$tmp/checks") checks ran, want 4"
cat "$tmp/third.log" "$tmp/fourth.log" | grep -q "waiting for it to end" ||
  die "neither of two checks at once said it waited for the other"
# The row of docs/records/faults.md: every check ended and wrote its comment.
told="$(cat "$tmp/third.log" "$tmp/fourth.log" | grep -m1 "waiting for it to end" | sed "s|$tmp|TMP|g")"
echo "fault matrix: two perf checks on one machine: trials 2 (4 checks: two one after the other," \
  "the second while the first one's server runs; two at once), lost 0, misreported 0, told: $told"
echo "PASS"
