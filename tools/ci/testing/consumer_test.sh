#!/usr/bin/env bash
# Guards the example consumer (examples/consumer, docs/adopting.md) end to
# end, as a second repository would use the lab, in scratch directories:
#
# 1. The lab: a copy of the checkout as it is (the tree under test, changes
#    not yet committed included), committed to a git repository of its own.
# 2. The consumer: a copy of examples/consumer whose WORKSPACE loads the lab
#    from that commit of that repository, as a real consumer pins one
#    (git_repository, docs/adopting.md): only the repository rule is
#    rewritten, the rest of the block is the chapter's (//docs:docs_test
#    holds the two equal). A git repository of its own too, for the steps
#    that commit changes to it.
# 3. The consumer's `bazel test //...`, with the Bazel the lab's tools/bazel
#    runs (Debian's launcher runs /usr/bin/bazel-4 in a workspace without a
#    tools/bazel): every test passed, the benchmarks the consumer's manifest
#    lists are of its package measure (not `benchmarks`): the Go program
#    collatz, the same walk in C++ (collatzcc, which the lab's rule
#    builds -c opt whatever the build's mode) and a go_benchmark. Counted by their quick
#    tests: the Go program's own instructions (step 4), the C++ program's
#    instructions, exact (4b: its layout variants' count actions too, each
#    another binary of the same work); by the go_benchmark's count action,
#    its own instructions per operation (5). All three are gated, and all
#    three are the work of the program's loop: between 3 and 30
#    instructions per step of the Collatz chains the workload walks (7.5
#    with Go 1.27, 6.3 with Debian's GCC 12 at -O3). The quick tests run
#    every time (--nocache_test_results): a disk cache would otherwise
#    answer for them.
#
# A Go program's own instructions are not exact (the garbage collector's
# timing moves them, by 0.003% here): the test requires the counted runs
# within a tenth of the gate's threshold of each other.
#
# The consumer's Bazel is a new output base under the test's scratch
# directory, stopped and removed at the end. What makes it minutes rather
# than tens of minutes is what it shares with every other build through
# the user's HOME: the Go module cache (the host go downloads rules_go,
# gazelle, the SDK and the tools' modules), the Go build cache (the
# consumer's .bazelrc fragment compiles the SDK's standard library and
# gazelle's tools in it) and npm's (uPlot); and Bazel's disk cache and
# repository cache where the user's ~/.bazelrc sets them.
#
# Usage: consumer_test.sh WORKSPACE_FILE GO (runfiles paths; see lib.sh)
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib.sh
source "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/lib.sh"

lab="$tmp/lab"
consumer="$tmp/consumer"
# The consumer's Bazel: Debian's launcher, what a consumer types (`bazel`),
# runs bazel-4 there as the lab's tools/bazel does here.
bazel=/usr/bin/bazel
[[ -x "$bazel" ]] || die "no $bazel (Debian package bazel-bootstrap; tools/bazel installs it)"
# Its startup options: an output root of its own, never the outer Bazel's,
# and a short idle time in case a stop is missed.
consumer_startup=("--output_user_root=$consumer.root" --max_idle_secs=600)

# in_git DIR ARGS...: git ARGS in DIR, with the test's identity.
in_git() {
  local dir="$1"
  shift
  "${clean_env[@]}" git -C "$dir" -c user.name=havlak-lab -c user.email=lab@localhost \
    -c commit.gpgsign=false "$@"
}

# consumer_bazel ARGS...: bazel ARGS in the consumer, bounded in time.
consumer_bazel() {
  (cd "$consumer" && "${clean_env[@]}" timeout 1500 "$bazel" "${consumer_startup[@]}" "$@")
}

# stop_consumer: the consumer's Bazel server stopped, its output root
# removed (Bazel leaves read-only files).
# shellcheck disable=SC2317 # called by the cleanup
stop_consumer() {
  consumer_bazel shutdown >/dev/null 2>&1 || true
  chmod -R u+w "$consumer.root" 2>/dev/null || true
  rm -rf "$consumer.root"
}

# consumer_step NAME ARGS...: bazel ARGS in the consumer, its output in
# $tmp/NAME.log (the end shown if it fails); says how long it took.
consumer_step() {
  local name="$1" start=$SECONDS
  shift
  if ! consumer_bazel "$@" >"$tmp/$name.log" 2>&1; then
    tail -n 40 "$tmp/$name.log" >&2
    die "bazel $* in the consumer failed (above; $tmp/$name.log)"
  fi
  echo "($name: $((SECONDS - start)) s)"
}

# zip_json ZIP: the result.json of a result's zip (a test's outputs.zip, a
# count action's output).
zip_json() {
  [[ -f "$1" ]] || die "no $1"
  unzip -p "$1" result.json
}

echo "== 1. the lab: the checkout's tree, committed to a scratch git repository"
copy_checkout "$lab"
in_git "$lab" init -q
in_git "$lab" add -A
in_git "$lab" commit -q --no-verify -m "havlak-lab: the tree under test"
lab_commit="$(in_git "$lab" rev-parse HEAD)"
echo "$lab at $lab_commit ($(in_git "$lab" ls-files | wc -l) files)"

echo "== 2. the consumer: examples/consumer, loading the lab at $lab_commit"
cp -R "$lab/examples/consumer" "$consumer"
# The example's local_repository (path = "../..") becomes a git_repository
# of the commit: the lines from `local_repository(` to its `)`.
workspace_file="$consumer/WORKSPACE"
awk -v commit="$lab_commit" -v remote="$lab" '
  /^local_repository\($/ { inside = 1; n++
    print "load(\"@bazel_tools//tools/build_defs/repo:git.bzl\", \"git_repository\")"
    print ""
    print "git_repository("
    print "    name = \"havlak_lab\","
    print "    commit = \"" commit "\","
    print "    remote = \"" remote "\","
    print ")"
    next }
  inside { if ($0 == ")") inside = 0; next }
  { print }
  END { if (n != 1) exit 1 }
' "$lab/examples/consumer/WORKSPACE" >"$workspace_file" ||
  die "examples/consumer/WORKSPACE has not one local_repository( block to replace"
if grep -q 'local_repository\|"\.\./\.\."' "$workspace_file"; then
  die "the consumer's WORKSPACE still loads the lab from a path: $(cat "$workspace_file")"
fi
diff "$lab/examples/consumer/WORKSPACE" "$workspace_file" || true
# Every Bazel of the consumer, the perf check's in the checkouts it makes
# included, keeps its output base under the test's output root: the
# consumer's .bazelrc says so (startup lines read from the workspace).
printf '%s\n' "" "# consumer_test: the test's own output root." \
  "startup --output_user_root=$consumer.root" "startup --max_idle_secs=600" >>"$consumer/.bazelrc"
in_git "$consumer" init -q -b main
# Bazel's output links are not the consumer's sources.
echo '/bazel-*' >>"$consumer/.git/info/exclude"
in_git "$consumer" add -A
in_git "$consumer" commit -q --no-verify -m "consumer: the example, loading havlak-lab at $lab_commit"
cleanups+=(stop_consumer)

# The consumer's pipeline (examples/consumer/.buildkite/pipeline.yml,
# docs/adopting.md) as Buildkite's agent reads it: the perf check's and
# the night's commands, which steps 6, 7 and 9 run as its jobs would.
agent="$("${clean_env[@]}" "$tools" buildkite-agent)"
"${clean_env[@]}" BUILDKITE_BUILD_ID=dry-run BUILDKITE_JOB_ID=dry-run timeout 60 \
  "$agent" pipeline upload --dry-run --format json "$consumer/.buildkite/pipeline.yml" >"$tmp/pipeline.json" \
  2>"$tmp/agent.log" || die "buildkite-agent cannot read the consumer's pipeline: $(cat "$tmp/agent.log")"
pipeline_command() {
  jq -er --arg key "$1" '.steps[] | select(.key == $key) | .command' "$tmp/pipeline.json" ||
    die "the consumer's pipeline has no step $1"
}
perf_check_command="$(pipeline_command perf-check)" nightly_command="$(pipeline_command nightly)"
echo "the pipeline's perf check: $perf_check_command"
echo "the pipeline's night: $nightly_command"

# pipeline_job LOG ENV... : the pipeline's command $job_command run in the
# consumer's checkout as its agent runs it (a shell, the environment
# given), its output in LOG; its exit status in job_status.
pipeline_job() {
  local log="$1"
  shift
  job_status=0
  (cd "$consumer" && "${clean_env[@]}" "$@" timeout 1500 bash -eo pipefail -c "$job_command") >"$log" 2>&1 ||
    job_status=$?
}

echo "== 3. the consumer's bazel test //..."
events="$tmp/test-events.json"
consumer_step test test //... --nocache_test_results --build_event_json_file="$events"
grep -E '^(//|Executed)' "$tmp/test.log" || true
# Every test of //..., by the build event file: label and overall status.
mapfile -t summaries < <(jq -r 'select(.id.testSummary) |
  "\(.id.testSummary.label) \(.testSummary.overallStatus)"' "$events" | sort)
((${#summaries[@]} > 0)) || die "the consumer's bazel test //... ran no test"
for line in "${summaries[@]}"; do
  [[ "$line" == *" PASSED" ]] || die "a consumer's test did not pass: $line"
done
echo "${#summaries[@]} tests passed"
passed() { printf '%s\n' "${summaries[@]}" | grep -qxF "$1 PASSED"; }

# The consumer's benchmarks, as its manifest (the lab's tools read it)
# lists them: in its package measure, none in a package named benchmarks.
manifest="$consumer/bazel-bin/measure/manifest.json"
[[ -f "$manifest" ]] || die "bazel test //... built no $manifest"
jq -r '.benchmarks[] | "\(.name) \(.kind) \(.targets | map(.label) | join(" "))"' "$manifest"
labels="$(jq -r '.benchmarks[].targets[].label' "$manifest")"
[[ -n "$labels" ]] || die "the manifest lists no benchmark target"
if grep -v '^//measure:' <<<"$labels"; then
  die "the manifest lists the targets above outside the consumer's package measure"
fi
[[ ! -e "$consumer/benchmarks" ]] || die "the consumer has a package named benchmarks"
# Every quick test the manifest names ran in //... and passed.
quick="$(jq -r '.benchmarks[].targets.quick.label // empty' "$manifest")"
for label in $quick; do
  passed "$label" || die "the quick test $label did not run and pass in //..."
done
echo "the benchmarks are the package measure's, and their quick tests passed: $(tr '\n' ' ' <<<"$quick")"

# metric JSON NAME: the metric NAME of a result.json (empty if none).
metric() { jq -c --arg name "$2" '.metrics[]? | select(.name == $name)' <<<"$1"; }

# collatz_steps N: the steps of the Collatz chains of the starts 2..N
# (collatz/main.go's work in one pass of longest(N)).
collatz_steps() {
  awk -v n="$1" 'BEGIN { for (s = 2; s <= n; s++) for (x = s; x != 1; t++) x = x % 2 ? 3 * x + 1 : x / 2; print t }'
}

# is_work METRIC STEPS: fails unless every value of METRIC (JSON) is
# between 3 and 30 instructions per step of STEPS: the program's loop,
# not its runtime, another workload or nothing.
is_work() {
  jq -e --argjson steps "$2" '(.values | length) > 0 and
    all(.values[]; . >= 3 * $steps and . <= 30 * $steps)' <<<"$1" >/dev/null ||
    die "$(jq -c '{name, values}' <<<"$1") is not 3 to 30 instructions per step of $2 Collatz steps"
}

# quick_of NAME: the label of benchmark NAME's quick test, by the manifest.
quick_of() {
  jq -r --arg name "$1" '.benchmarks[] | select(.name == $name) | .targets.quick.label' "$manifest"
}

# quick_result_of LABEL: the result.json of the quick test LABEL's last run.
quick_result_of() {
  local path="${1#//}"
  zip_json "$consumer/bazel-testlogs/${path/://}/test.outputs/outputs.zip"
}

# counted_of NAME: benchmark NAME's counted runs, as its quick test's spec
# gives them to the runner (perf_benchmark's quick_args and
# counted_repetitions): {args, repetitions, ...}.
counted_of() {
  local spec
  spec="$consumer/bazel-bin/$(jq -r --arg name "$1" '.benchmarks[] | select(.name == $name) | .targets.quick.spec' "$manifest")"
  [[ -f "$spec" ]] || die "benchmark $1's quick test has no spec $spec"
  jq -c '.program.counted' "$spec"
}

# counted_steps COUNTED: the Collatz steps a counted run (counted_of) walks,
# from its arguments -n=N -passes=P: P passes over the starts 2..N.
counted_steps() {
  local n passes
  n="$(jq -r '.args[]' <<<"$1" | sed -n 's/^-n=\([0-9]*\)$/\1/p')"
  passes="$(jq -r '.args[]' <<<"$1" | sed -n 's/^-passes=\([0-9]*\)$/\1/p')"
  [[ -n "$n" && -n "$passes" ]] || die "a counted run has no -n=N and -passes=P: $1"
  echo "$((passes * $(collatz_steps "$n")))"
}

echo "== 4. the Go program's own instructions, counted by its quick test"
programs="$(jq -r '[.benchmarks[] | select(.kind == "program") | .name] | sort | join(" ")' "$manifest")"
[[ "$programs" == "collatz collatzcc" ]] ||
  die "the manifest's program benchmarks are \"$programs\", not collatz and collatzcc"
quick_label="$(quick_of collatz)"
quick_path="${quick_label#//}"
quick_result="$(quick_result_of "$quick_label")"
own="$(metric "$quick_result" own_instructions)"
echo "$quick_label: $own"
[[ -n "$own" ]] || die "$quick_label's result has no own_instructions"
counted="$(counted_of collatz)"
jq -e --argjson counted "$counted" '.gated == true and .threshold > 0 and
  (.values | length) == $counted.repetitions and $counted.repetitions >= 3' <<<"$own" >/dev/null ||
  die "$quick_label's own_instructions are not a gated count of its counted runs ($counted): $own"
jq -e '(.values | max) - (.values | min) <= .threshold / 10 * (.values | min)' <<<"$own" >/dev/null ||
  die "$quick_label's counted runs are further apart than a tenth of the gate's threshold: $own"
is_work "$own" "$(counted_steps "$counted")"

echo "== 4b. the C++ program's instructions, counted by its quick test and its layout variants'"
# A C or C++ program has no runtime to leave out: its gated count is every
# instruction of the process (its start-up, some 130,000, is under 1% of
# the quick workload's), exact: the same in every counted run.
# own_instructions are a Go program's only.
cc_label="$(quick_of collatzcc)"
cc_result="$(quick_result_of "$cc_label")"
cc_instructions="$(metric "$cc_result" instructions)"
echo "$cc_label: $cc_instructions"
[[ -n "$cc_instructions" ]] || die "$cc_label's result has no instructions"
# Built -c opt by the rule, whatever the build's mode (fastbuild here).
jq -e '.environment.build.compilation_mode == "opt"' <<<"$cc_result" >/dev/null ||
  die "$cc_label measured a program not built -c opt: $(jq -c '.environment.build' <<<"$cc_result")"
[[ -z "$(metric "$cc_result" own_instructions)" ]] ||
  die "$cc_label's result has own_instructions, a Go program's figure: $(metric "$cc_result" own_instructions)"
cc_counted="$(counted_of collatzcc)"
jq -e --argjson counted "$cc_counted" '.gated == true and .exact == true and .threshold > 0 and
  (.values | length) == $counted.repetitions and $counted.repetitions >= 3 and
  (.values | unique | length) == 1' <<<"$cc_instructions" >/dev/null ||
  die "$cc_label's instructions are not an exact, gated count of its counted runs ($cc_counted): $cc_instructions"
is_work "$cc_instructions" "$(counted_steps "$cc_counted")"
# Its layout variants (collatzcc/BUILD.bazel), which the manifest lists
# for the perf check and the night: built and counted, each is the same
# program relinked, its code elsewhere: another binary, the same work
# but for the padding's few allocations at start-up (within 0.01%).
cc_counts="$(jq -c '.benchmarks[] | select(.name == "collatzcc") | [.targets.counts] + .layout_variants' "$manifest")"
jq -e 'length == 5' <<<"$cc_counts" >/dev/null ||
  die "the manifest lists not collatzcc's count action and its four layout variants': $cc_counts"
mapfile -t cc_count_labels < <(jq -r '.[].label' <<<"$cc_counts")
consumer_step cc-counts build "${cc_count_labels[@]}"
cc_binaries=()
for output in $(jq -r '.[].output' <<<"$cc_counts"); do
  result="$(zip_json "$consumer/bazel-bin/$output")"
  count="$(metric "$result" instructions)"
  cc_binaries+=("$(jq -r .identity.binary_sha256 <<<"$result")")
  echo "$output: $(jq -c .values <<<"$count"), binary ${cc_binaries[-1]:0:12}"
  jq -e --argjson work "$(jq '.values[0]' <<<"$cc_instructions")" '.gated == true and
    (.values | length) >= 1 and all(.values[]; (if . > $work then . - $work else $work - . end) <= $work / 10000)' \
    <<<"$count" >/dev/null ||
    die "$output's instructions are not the program's work ($(jq -c .values <<<"$cc_instructions")): $count"
done
(($(printf '%s\n' "${cc_binaries[@]}" | sort -u | wc -l) == 5)) ||
  die "collatzcc's layout variants are not five binaries: ${cc_binaries[*]}"

echo "== 5. the go_benchmark's own instructions per operation (its count action)"
bench="$(jq -r '.benchmarks[] | select(.kind == "go_test") | .name' "$manifest")"
[[ "$bench" == collatz_longest ]] || die "the manifest's go_test benchmark is \"$bench\", not collatz_longest"
counts_label="$(jq -r '.benchmarks[] | select(.name == "collatz_longest") | .targets.counts.label' "$manifest")"
counts_output="$(jq -r '.benchmarks[] | select(.name == "collatz_longest") | .targets.counts.output' "$manifest")"
consumer_step counts build "$counts_label"
counts_result="$(zip_json "$consumer/bazel-bin/$counts_output")"
per_op="$(metric "$counts_result" own_instructions_per_op/Longest)"
echo "$counts_label: $per_op"
[[ -n "$per_op" ]] || die "$counts_label's result has no own_instructions_per_op/Longest"
jq -e '.gated == true and .threshold > 0 and .unit == "instructions/op"' <<<"$per_op" >/dev/null ||
  die "$counts_label's own_instructions_per_op/Longest is not a gated count per operation: $per_op"
# One operation of BenchmarkLongest is longest(1000) (collatz/main_test.go).
is_work "$per_op" "$(collatz_steps 1000)"

# perf_check NAME BASE: the perf check of the branch checked out, as the
# pipeline's perf-check job runs it (its command, no Buildkite variable:
# the base is the merge base with main), which must be BASE: the lab's
# check, typed in the consumer's checkout, builds the lab's check at the
# base (the lab's version BASE pins) in a worktree of its own and lets it
# measure and judge. Its comment in $tmp/NAME/pr-comment.md; its exit
# status in check_status. The base's worktree is removed after, its Bazel
# stopped; its output base is under the consumer's output root (the
# startup lines of step 2), which stop_consumer removes.
perf_check() {
  local name="$1" base="$2" start=$SECONDS worktree checked
  rm -rf "$consumer/perf-check"
  job_command="$perf_check_command"
  pipeline_job "$tmp/$name.log"
  check_status=$job_status
  worktree="$(sed -n 's/^perfcheck: the base.s perf check measures and judges the change: building it at [0-9a-f]* in //p' "$tmp/$name.log")"
  checked="$(sed -n 's/^perfcheck: the base.s perf check measures and judges the change: building it at \([0-9a-f]*\) in .*/\1/p' "$tmp/$name.log")"
  if [[ -n "$worktree" ]]; then
    (cd "$worktree" && "${clean_env[@]}" timeout 300 "$bazel" shutdown) >/dev/null 2>&1 || true
    in_git "$consumer" worktree remove --force "$worktree" 2>/dev/null || rm -rf "$worktree"
    rm -f "$worktree.lock"
  fi
  echo "($name: $((SECONDS - start)) s, exit status $check_status)"
  if [[ ! -f "$consumer/perf-check/pr-comment.md" ]]; then
    grep '^perfcheck' "$tmp/$name.log" | tail -n 20 >&2
    die "the perf check wrote no comment (exit status $check_status; $tmp/$name.log)"
  fi
  [[ -n "$checked" && "$base" == "$checked"* ]] ||
    die "the perf check built the lab's check at ${checked:-no commit}, not at the merge base with main $base ($tmp/$name.log)"
  mv "$consumer/perf-check" "$tmp/$name"
}

echo "== 6. the perf check: about 1% more work in the program, a pull request's branch"
base="$(in_git "$consumer" rev-parse HEAD)"
in_git "$consumer" checkout -q -b more-work
# A few instructions more an iteration of longest's loop, whose own
# chain costs some 750: about 0.8%, over the gate's 0.5%.
line="$(grep -n 'if k := chain(s); k > steps {' "$consumer/collatz/main.go" | cut -d: -f1)"
[[ -n "$line" ]] || die "collatz/main.go has no longest loop to add work to"
awk -v at="$line" 'NR == at { print "\t\textra += (s * 31) ^ (s >> 3)" } { print }
  END { print "\n// extra keeps the injected work from being optimised away.\nvar extra int" }' \
  "$consumer/collatz/main.go" >"$tmp/main.go" && mv "$tmp/main.go" "$consumer/collatz/main.go"
in_git "$consumer" commit -q --no-verify -am "collatz: a little more work in each start"
perf_check check-regressed "$base"
comment="$tmp/check-regressed/pr-comment.md"
grep -m 1 '^###' "$comment"
grep -m 1 '^| collatz |' "$comment" | cut -c 1-300
((check_status == 1)) || die "the perf check of 1% more work exited $check_status, not 1 (regressed)"
grep -q '^| collatz | \*\*REGRESSED\*\* | \*\*REGRESSED\*\* own_instructions +' "$comment" ||
  die "the perf check did not find collatz's own_instructions regressed: $comment"
grep -q "in lines the change added or edited, \`collatz/main.go:$line\`" "$comment" ||
  die "the perf check's comment does not name the changed line collatz/main.go:$line: $(grep -A2 'Where the changes went' "$comment")"
echo "REGRESSED, the changed line named: collatz/main.go:$line"

echo "== 7. the perf check: a neutral change (a function renamed), the next pull request's"
# The last one landed: main moves to it.
in_git "$consumer" checkout -q main
in_git "$consumer" merge -q --ff-only more-work
base="$(in_git "$consumer" rev-parse HEAD)"
in_git "$consumer" checkout -q -b rename
sed -i 's/\bchain(/chainSteps(/g; s/^func chain(/func chainSteps(/' "$consumer/collatz/main.go"
grep -q 'func chainSteps(' "$consumer/collatz/main.go" || die "the rename did not apply"
in_git "$consumer" commit -q --no-verify -am "collatz: chain is chainSteps"
perf_check check-neutral "$base"
comment="$tmp/check-neutral/pr-comment.md"
grep -m 1 '^###' "$comment"
((check_status == 0)) || die "the perf check of a rename exited $check_status: $(head -n 12 "$comment")"
grep -q '^### :white_check_mark: Perf check: no regression' "$comment" ||
  die "the perf check of a rename found something: $(head -n 12 "$comment")"
echo "no alarm on the rename"

echo "== 8. the consumer moves its pin of the lab: the same program measured by another lab"
# keep_quick NAME: the program's quick test run anew, its result kept as
# the night $tmp/NAME holds it (NAME/collatz_quick_test/outputs.zip).
keep_quick() {
  consumer_step "$1" test "$quick_label" --nocache_test_results
  mkdir -p "$tmp/$1/collatz_quick_test"
  cp "$consumer/bazel-testlogs/${quick_path/://}/test.outputs/outputs.zip" "$tmp/$1/collatz_quick_test/"
}
keep_quick night-old-lab
# The lab's next commit changes its runner: a comment line after its
# package clause, which moves the lines below it and so the binary's line
# table (a comment at the end would leave the binary as it was); the
# consumer pins it, and nothing else changes.
sed -i '0,/^package main$/s//package main\n\n\/\/ consumer_test: the lab moved on./' "$lab/tools/perf/runner/main.go"
grep -q '^// consumer_test: the lab moved on.$' "$lab/tools/perf/runner/main.go" || die "the runner's change did not apply"
in_git "$lab" commit -q --no-verify -am "runner: a comment"
new_lab="$(in_git "$lab" rev-parse HEAD)"
sed -i "s/commit = \"$lab_commit\"/commit = \"$new_lab\"/" "$workspace_file"
grep -q "commit = \"$new_lab\"" "$workspace_file" || die "the consumer's pin did not move to $new_lab"
in_git "$consumer" commit -q --no-verify -am "havlak-lab: pinned at $new_lab"
# Both land.
in_git "$consumer" checkout -q main
in_git "$consumer" merge -q --ff-only rename
keep_quick night-new-lab
identity() { unzip -p "$tmp/$1/collatz_quick_test/outputs.zip" result.json | jq -c '.identity'; }
old_id="$(identity night-old-lab)" new_id="$(identity night-new-lab)"
echo "identities: $old_id then $new_id"
jq -e --argjson old "$old_id" '.binary_sha256 == $old.binary_sha256 and .run_sha256 == $old.run_sha256 and
  .lab_sha256 != $old.lab_sha256' <<<"$new_id" >/dev/null ||
  die "the pin's move did not leave the same binary and run measured by another lab: $old_id, $new_id"
# The night's judgment of the one against the other, as the nightly's
# report makes it: not comparable, by name, failing nothing (exit 3).
report_status=0
consumer_bazel run @havlak_lab//tools/report -- --night "$tmp/night-new-lab" --baseline "$tmp/night-old-lab" \
  --out "$tmp/report" >"$tmp/report.log" 2>&1 || report_status=$?
grep -m 3 'another version of the lab' "$tmp/report.log" || true
((report_status == 3)) || die "the report of the moved pin exited $report_status, not 3 (not comparable): $(tail -n 20 "$tmp/report.log")"
jq -e '[.benchmarks[] | select(.name == "collatz")] | length == 1 and
  all(.[]; (.outcome == "not_comparable") and (.environment_changes | tostring | test("another version of the lab: re-baselined")))' \
  "$tmp/report/summary.json" >/dev/null ||
  die "the report's summary does not re-baseline collatz by name: $(jq -c '.benchmarks' "$tmp/report/summary.json")"
echo "re-baselined by name: measured by another version of the lab"

echo "== 9. two nights of main, as the pipeline's schedule runs them: gated, promoted, kept"
# A scheduled build of main, as Buildkite's agent describes it to the job
# (the results' origin: only such a night may become the baseline and
# enter the history); the lab's state under the test's scratch directory.
state="$tmp/state"
schedule=(BUILDKITE=true BUILDKITE_SOURCE=schedule BUILDKITE_BRANCH=main BUILDKITE_PULL_REQUEST=false
  BUILDKITE_REPO="file://$consumer" BUILDKITE_PIPELINE_SLUG=consumer
  HAVLAK_LAB_BASELINE="$state/baseline" HAVLAK_LAB_HISTORY_DIR="$state/history")
# scheduled_night NAME: the pipeline's night of main in a fresh artifacts/,
# kept as $tmp/NAME; it must pass and become the baseline.
scheduled_night() {
  local name="$1" start=$SECONDS
  rm -rf "$consumer/artifacts"
  job_command="$nightly_command"
  pipeline_job "$tmp/$name.log" "${schedule[@]}" "BUILDKITE_BUILD_URL=http://127.0.0.1/consumer/builds/$name"
  echo "($name: $((SECONDS - start)) s, exit status $job_status)"
  if ((job_status != 0)) || [[ ! -f "$consumer/artifacts/run.json" ]]; then
    tail -n 40 "$tmp/$name.log" >&2
    die "the night $name exited $job_status ($tmp/$name.log)"
  fi
  jq -e '.promoted == true and .exit_status == 0' "$consumer/artifacts/run.json" >/dev/null ||
    die "the night $name did not pass and become the baseline: $(jq -c '{status, reasons, promoted, benchmarks}' "$consumer/artifacts/run.json")"
  mv "$consumer/artifacts" "$tmp/$name"
  jq -r '"\(.results) results of \(.commit), \(.status), promoted"' "$tmp/$name/run.json"
}
scheduled_night night-1
scheduled_night night-2
main_commit="$(in_git "$consumer" rev-parse HEAD)"
# Both measured main's commit, by the workspace status the night passes,
# and the second was compared with the first, benchmark by benchmark.
for name in night-1 night-2; do
  jq -e --arg commit "$main_commit" '.commit == $commit and .results >= 3' "$tmp/$name/run.json" >/dev/null ||
    die "the night $name is not main's $main_commit with the benchmarks' results: $(jq -c '{commit, results}' "$tmp/$name/run.json")"
done
for benchmark in collatz collatzcc collatz_longest; do
  outcome="$(jq -r --arg name "$benchmark" '[.benchmarks[] | select(.name == $name) | .outcome] | unique | join(",")' \
    "$tmp/night-2/report/summary.json")"
  [[ "$outcome" == unchanged || "$outcome" == improved ]] ||
    die "the second night judged $benchmark \"$outcome\" against the first, not compared and passed: $(jq -c '.benchmarks' "$tmp/night-2/report/summary.json")"
  echo "night 2 against night 1: $benchmark $outcome"
done
[[ -d "$state/baseline/collatz_test" ]] || die "the baseline $state/baseline holds no collatz_test"

echo "== 10. the dashboard of the consumer's history names its benchmarks"
dashboard_pid=""
# shellcheck disable=SC2317 # called by the cleanup
stop_dashboard() { [[ -z "$dashboard_pid" ]] || kill "$dashboard_pid" 2>/dev/null || true; }
cleanups+=(stop_dashboard)
consumer_step dashboard-build build @havlak_lab//tools/dashboard
dashboard_bin="$consumer/bazel-bin/external/havlak_lab/tools/dashboard/dashboard_/dashboard"
[[ -x "$dashboard_bin" ]] || die "no dashboard at $dashboard_bin"
"${clean_env[@]}" HAVLAK_LAB_HISTORY_DIR="$state/history" timeout 600 "$dashboard_bin" --repo "$consumer" \
  >"$tmp/dashboard.log" 2>&1 &
dashboard_pid=$!
url=""
for _ in $(seq 100); do
  url="$(sed -n 's/^dashboard of .*: \(http:[^ ]*\)$/\1/p' "$tmp/dashboard.log")"
  [[ -z "$url" ]] || break
  kill -0 "$dashboard_pid" 2>/dev/null || break
  sleep 0.2
done
[[ -n "$url" ]] || die "the dashboard did not start: $(cat "$tmp/dashboard.log")"
curl -fsS --max-time 30 "$url" >"$tmp/landing.html" || die "the dashboard's landing page $url failed"
for benchmark in collatz collatzcc collatz_longest; do
  grep -q ">$benchmark<" "$tmp/landing.html" ||
    die "the dashboard's landing page does not name $benchmark ($tmp/landing.html)"
done
echo "the landing page $url names collatz, collatzcc and collatz_longest"
stop_dashboard

echo "PASS: the example consumer, loading the lab at a commit of a git repository ($lab_commit), passed its ${#summaries[@]} tests; its benchmarks are //measure's; collatz's own instructions $(jq -c .values <<<"$own"), collatzcc's instructions $(jq -c .values <<<"$cc_instructions"), BenchmarkLongest's own instructions per operation $(jq -c .values <<<"$per_op"); the perf check found 1% more work REGRESSED at the changed line, and a rename nothing; the pin moved, collatz was re-baselined by name; two scheduled nights of main passed, were promoted and kept, and the dashboard names the benchmarks"
