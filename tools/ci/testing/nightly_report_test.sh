#!/usr/bin/env bash
# Tests tools/ci/nightly_report.sh on real benchmark outputs (the report's
# fixtures) and a Go benchmark's: the first night becomes the baseline; an
# unchanged night passes; a stage three times slower, or a Go benchmark that
# allocates more, fails the night and leaves the baseline alone; so does a
# night whose tests failed.
#
# Usage: nightly_report_test.sh REPORT BENCHGATE NIGHTLY_REPORT FIXTURE_ZIP...
set -euo pipefail

report="$PWD/$1"
benchgate="$PWD/$2"
nightly_report="$PWD/$3"
shift 3
fixtures=("$@")
tmp="$TEST_TMPDIR"
export HAVLAK_LAB_BASELINE="$tmp/baseline" REPORT="$report" BENCHGATE="$benchgate"
unset BUILDKITE

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

# go_bench ALLOCS: outputs.zip of a go_benchmark run, 6 runs of two
# sub-benchmarks allocating ALLOCS times each.
go_bench() {
  local dir i
  dir="$(mktemp -d "$tmp/gobench.XXXX")"
  printf '{"name": "explodepath_test", "kind": "gobench", "count": 6}\n' >"$dir/benchmark.json"
  {
    printf 'goos: linux\ngoarch: amd64\npkg: havlak-lab/go/explodepath\n'
    for i in 0 1 2 3 4 5; do
      printf 'BenchmarkSplit/path=a-2\t1000000\t10%d.0 ns/op\t%d B/op\t%d allocs/op\n' "$i" $((16 * $1)) "$1"
      printf 'BenchmarkSplit/path=b-2\t1000000\t20%d.0 ns/op\t%d B/op\t%d allocs/op\n' "$i" $((16 * $1)) "$1"
    done
  } >"$dir/bench.txt"
  # Fixed times and no extra fields: the same ALLOCS give the same bytes, as
  # the baseline checks below compare files by hash.
  touch -t 202601010000 "$dir/benchmark.json" "$dir/bench.txt"
  (cd "$dir" && zip -q -X outputs.zip benchmark.json bench.txt)
  echo "$dir/outputs.zip"
}

# night NAME ALLOCS [SLOW_STAGE]: an artifacts directory like the one
# nightly.sh collects, with SLOW_STAGE's real times multiplied by 3.
night() {
  local dir="$tmp/$1" zip test_name
  rm -rf "$dir"
  for zip in "${fixtures[@]}"; do
    test_name="$(basename "$(dirname "$zip")")"
    mkdir -p "$dir/$test_name"
    cp "$zip" "$dir/$test_name/outputs.zip"
    if [[ "$test_name" == "${3:-}_quick_test" ]]; then
      (
        cd "$dir/$test_name"
        unzip -q -o outputs.zip xtime.json
        jq '.runs[].real_seconds *= 3' xtime.json >xtime.json.new
        mv xtime.json.new xtime.json
        zip -q outputs.zip xtime.json
        rm xtime.json
      )
    fi
  done
  mkdir -p "$dir/explodepath_test"
  cp "$(go_bench "$2")" "$dir/explodepath_test/outputs.zip"
  echo "$dir"
}

# run NIGHT: runs the script on it; sets status.
run() {
  status=0
  "$nightly_report" "$1" >"$1.log" 2>&1 || status=$?
}

baseline_sum() {
  (cd "$HAVLAK_LAB_BASELINE" && find . -type f -print0 | sort -z | xargs -0 sha256sum)
}

cd "$TEST_SRCDIR/$TEST_WORKSPACE"

first="$(night first 1)"
run "$first"
((status == 0)) || fail "first night: exit status $status"$'\n'"$(cat "$first.log")"
[[ -f "$first/report/index.html" && -f "$first/report/table.md" ]] || fail "first night: no report"
grep -q "No baseline yet" "$first.log" || fail "first night should say it has no baseline"
[[ -f "$HAVLAK_LAB_BASELINE/havlak6_quick_test/outputs.zip" && -f "$HAVLAK_LAB_BASELINE/explodepath_test/outputs.zip" ]] ||
  fail "the first night did not become the baseline"
before="$(baseline_sum)"

same="$(night same 1)"
run "$same"
((status == 0)) || fail "an unchanged night: exit status $status"$'\n'"$(cat "$same.log")"
grep -q "vs baseline" "$same/report/table.md" || fail "the report did not compare with the baseline"
[[ "$(baseline_sum)" == "$before" ]] || fail "an unchanged night changed the baseline's files"

slow="$(night slow 1 havlak6)"
run "$slow"
((status == 1)) || fail "havlak6 three times slower: exit status $status, want 1"$'\n'"$(cat "$slow.log")"
grep -q "report: havlak6 regressed" "$slow.log" || fail "the log does not name havlak6"$'\n'"$(cat "$slow.log")"
grep -q '\*\*Regressions\*\*' "$slow.log" || fail "the summary does not say there were regressions"
[[ "$(baseline_sum)" == "$before" ]] || fail "a regressed night replaced the baseline"

allocating="$(night allocating 2)"
run "$allocating"
((status == 1)) || fail "a Go benchmark allocating twice: exit status $status, want 1"$'\n'"$(cat "$allocating.log")"
grep -q "benchgate: regressed: Split/path=a-2 allocs/op" "$allocating.log" ||
  fail "benchgate did not report the allocations"$'\n'"$(cat "$allocating.log")"
[[ "$(baseline_sum)" == "$before" ]] || fail "a regressed night replaced the baseline"

export NIGHTLY_TESTS_FAILED=1
failed="$(night failed 0)"
run "$failed"
((status == 0)) || fail "a night with fewer allocations: exit status $status"$'\n'"$(cat "$failed.log")"
[[ "$(baseline_sum)" == "$before" ]] || fail "a night whose tests failed replaced the baseline"
unset NIGHTLY_TESTS_FAILED

better="$(night better 0)"
run "$better"
((status == 0)) || fail "a better night: exit status $status"
[[ "$(baseline_sum)" != "$before" ]] || fail "a good night did not become the baseline"
echo "PASS"
