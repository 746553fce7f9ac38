#!/usr/bin/env bash
# Runs one benchmark of the lab; perf_benchmark (tools/perf/defs.bzl) wraps
# it as a runnable target and as tests.
#
#   perf_run.sh run  OPTIONS -- ARGS... [--profile DIR] [MORE ARGS...]
#       (bazel run NAME [-- --profile DIR] [MORE ARGS]) runs the program
#       under xtime; with --profile, also writes CPU and heap profiles to DIR.
#   perf_run.sh test OPTIONS -- ARGS...
#       (bazel test NAME_test) runs it under xtime, then once with a CPU
#       profiler and once with a heap profiler, checks every output against
#       --expect, and renders the profiles; everything lands in
#       $TEST_UNDECLARED_OUTPUTS_DIR (outputs.zip).
#
# OPTIONS (paths relative to the runfiles root, where pprof -list also looks
# for the program's sources):
#   --name=NAME --kind=go|cc --heap=flag|env|gperftools --binary=PATH
#   --xtime=PATH --pprof=PATH --repetitions=N --workload=standard|quick
#   --language=NAME (for reports)
#   --profiles=cpu,heap (or either, or none)
#   --expect=REGEX (none: no check of the output)
#   --trace (Go programs with -trace FILE: one more run, traced)
#   --heap-arg=ARG (repeatable: added to the heap-profiled run's arguments)
# In ARGS, {outputs} stands for the directory the outputs go to: the test's
# undeclared outputs, or where bazel run was typed.
set -euo pipefail

die() {
  echo "perf: $*" >&2
  exit 1
}

mode="$1"
shift
name="" kind="" heap="" binary="" xtime="" pprof="" repetitions="" workload="" language=""
profiles="" expect="" trace=""
heap_args=()
while (($# > 0)); do
  case "$1" in
    --name=*) name="${1#*=}" ;;
    --kind=*) kind="${1#*=}" ;;
    --heap=*) heap="${1#*=}" ;;
    --binary=*) binary="${1#*=}" ;;
    --xtime=*) xtime="${1#*=}" ;;
    --pprof=*) pprof="${1#*=}" ;;
    --repetitions=*) repetitions="${1#*=}" ;;
    --expect=*) expect="${1#*=}" ;;
    --workload=*) workload="${1#*=}" ;;
    --language=*) language="${1#*=}" ;;
    --profiles=*) profiles="${1#*=}" ;;
    --trace) trace=1 ;;
    --heap-arg=*) heap_args+=("${1#*=}") ;;
    --) shift && break ;;
    *) die "unknown option $1" ;;
  esac
  shift
done
for option in name kind heap binary xtime pprof repetitions workload language; do
  [[ -n "${!option}" ]] || die "missing --$option"
done
runfiles="$PWD"
binary="$runfiles/$binary"
xtime="$runfiles/$xtime"
pprof="$runfiles/$pprof"
# xtime runs the program by name, so that its report shows the command line
# a user would type: "havlak6 -iterations=3", not the runfiles path.
program="$(basename "$binary")"
PATH="$(dirname "$binary"):$PATH"

# The program's arguments; in run mode the user's may follow, --profile DIR
# among them.
args=()
profile_dir=""
while (($# > 0)); do
  case "$1" in
    --profile)
      (($# > 1)) || die "--profile needs a directory"
      profile_dir="$2"
      shift
      ;;
    --profile=*) profile_dir="${1#*=}" ;;
    *) args+=("$1") ;;
  esac
  shift
done

# wants PROFILE: whether the benchmark asks for that profile.
wants() {
  [[ ",$profiles," == *",$1,"* ]]
}

# with_outputs DIR: the program's arguments with {outputs} replaced by DIR.
with_outputs() {
  local arg
  for arg in "${args[@]}"; do
    printf '%s\0' "${arg//\{outputs\}/$1}"
  done
}

# gperftools_lib prints the path of a gperftools shared library (Debian
# package libgoogle-perftools-dev, which tools/bazel installs).
gperftools_lib() {
  local dir
  for dir in /usr/lib/x86_64-linux-gnu /lib/x86_64-linux-gnu /usr/lib64 /usr/lib; do
    if [[ -e "$dir/$1" ]]; then
      echo "$dir/$1"
      return
    fi
  done
  die "$1 not found: install Debian's libgoogle-perftools-dev (tools/bazel does)"
}

# to_proto RAW OUT converts a raw profile to pprof's proto format,
# symbolized now, while the binary is at hand, so that it opens anywhere.
to_proto() {
  local -a binary_arg=()
  # Go profiles carry their symbols; gperftools profiles need the binary.
  [[ "$kind" == cc ]] && binary_arg=("$binary")
  "$pprof" -proto -output "$2" "${binary_arg[@]}" "$1" 2>/dev/null ||
    die "pprof cannot read the profile $1"
}

# profile_cpu DIR: one run with the CPU profiler; writes DIR/cpu.pb.gz.
profile_cpu() {
  local dir="$1"
  case "$kind" in
    go)
      "$binary" -cpuprofile "$dir/cpu.pprof" "${args[@]}"
      to_proto "$dir/cpu.pprof" "$dir/cpu.pb.gz"
      ;;
    cc)
      LD_PRELOAD="$(gperftools_lib libprofiler.so.0)" CPUPROFILE="$dir/cpu.prof" \
        "$binary" "${args[@]}"
      to_proto "$dir/cpu.prof" "$dir/cpu.pb.gz"
      ;;
  esac
}

# profile_heap DIR: one run with the heap profiler; writes DIR/heap.pb.gz.
profile_heap() {
  local dir="$1"
  local -a args=("${args[@]}" "${heap_args[@]}")
  case "$heap" in
    # Stages with -memprofile write it after one loop-finding pass and stop.
    flag)
      "$binary" -memprofile "$dir/heap.pprof" "${args[@]}"
      to_proto "$dir/heap.pprof" "$dir/heap.pb.gz"
      ;;
    env)
      HAVLAK_HEAPPROFILE="$dir/heap.pprof" "$binary" "${args[@]}"
      to_proto "$dir/heap.pprof" "$dir/heap.pb.gz"
      ;;
    gperftools)
      HEAPPROFILE="$dir/heap" LD_PRELOAD="$(gperftools_lib libtcmalloc.so.4)" \
        "$binary" "${args[@]}"
      # tcmalloc dumps heap.0001.heap, heap.0002.heap, ...; the last one,
      # written at exit, covers the whole run.
      local dumps=("$dir"/heap.*.heap)
      [[ -e "${dumps[0]}" ]] || die "tcmalloc wrote no heap profile"
      mv "${dumps[-1]}" "$dir/heap.prof"
      rm -f "$dir"/heap.*.heap
      to_proto "$dir/heap.prof" "$dir/heap.pb.gz"
      ;;
  esac
}

# matches FILE prints how many lines of FILE match --expect.
matches() {
  grep -cE -- "$expect" "$1" || true
}

# check_output FILE WANT fails unless WANT lines of FILE match --expect;
# without --expect, it checks nothing.
check_output() {
  [[ -n "$expect" ]] || return 0
  local got
  got="$(matches "$1")"
  if ((got != $2)); then
    echo "perf: $got lines of $(basename "$1") match '$expect', not $2:" >&2
    cat "$1" >&2
    exit 1
  fi
}

# quietly runs a command, showing its standard error only if it fails:
# pprof announces every file it writes.
quietly() {
  local log status=0
  log="$(mktemp)"
  "$@" 2>"$log" || status=$?
  ((status == 0)) || cat "$log" >&2
  rm -f "$log"
  return "$status"
}

# render DIR writes the views of the profiles that show where the time and
# memory go: text tables and call graphs (SVG, by dot from Debian's graphviz).
render() {
  local dir="$1" hottest
  # dot's fontconfig wants a writable cache.
  export XDG_CACHE_HOME="${TEST_TMPDIR:-${TMPDIR:-/tmp}}/cache"
  wants cpu && render_cpu "$dir"
  wants heap && render_heap "$dir"
  return 0
}

render_cpu() {
  local dir="$1" hottest
  "$pprof" -top "$dir/cpu.pb.gz" >"$dir/cpu.top.txt"
  "$pprof" -top -cum "$dir/cpu.pb.gz" >"$dir/cpu.top-cum.txt"
  quietly "$pprof" -svg -output "$dir/cpu.svg" "$dir/cpu.pb.gz"
  # The hottest function by flat time is the first row of -top; its name
  # (C++ names have spaces) follows the five number columns.
  hottest="$("$pprof" -top -nodecount=1 "$dir/cpu.pb.gz" 2>/dev/null |
    awk 'rows && NF >= 6 { $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print; exit }
         /flat%/ { rows = 1 }')"
  if [[ -n "$hottest" ]]; then
    # shellcheck disable=SC2016 # a sed expression, not shell
    hottest="$(printf '%s' "${hottest% (inline)}" | sed -e 's/[][\.*^$()+?{}|]/\\&/g')"
    "$pprof" -list "^$hottest\$" -source_path "$runfiles" "$dir/cpu.pb.gz" >"$dir/cpu.list.txt" 2>&1 ||
      true
  fi
}

render_heap() {
  local dir="$1"
  "$pprof" -top -sample_index=inuse_space "$dir/heap.pb.gz" >"$dir/heap.inuse_space.txt"
  "$pprof" -top -sample_index=inuse_objects "$dir/heap.pb.gz" >"$dir/heap.inuse_objects.txt"
  "$pprof" -top -sample_index=alloc_space "$dir/heap.pb.gz" >"$dir/heap.alloc_space.txt"
  quietly "$pprof" -svg -sample_index=alloc_space -output "$dir/heap.svg" "$dir/heap.pb.gz"
}

case "$mode" in
  run)
    # Paths the user gives are relative to where bazel run was typed.
    cd "${BUILD_WORKING_DIRECTORY:-.}"
    mapfile -d '' -t args < <(with_outputs "$PWD")
    "$xtime" "$program" "${args[@]}"
    if [[ -n "$profile_dir" ]]; then
      mkdir -p "$profile_dir"
      profile_dir="$(cd "$profile_dir" && pwd)"
      echo "perf: profiling $name into $profile_dir" >&2
      wants cpu && profile_cpu "$profile_dir" >/dev/null
      wants heap && profile_heap "$profile_dir" >/dev/null
      echo "perf: open the profiles with google/pprof, e.g." >&2
      wants cpu && echo "  tools/bazel run //tools:pprof -- -top $profile_dir/cpu.pb.gz" >&2
      wants cpu && echo "  tools/bazel run //tools:pprof -- -http=localhost:8080 $profile_dir/cpu.pb.gz" >&2
      wants heap && echo "  tools/bazel run //tools:pprof -- -top -sample_index=alloc_space $profile_dir/heap.pb.gz" >&2
    fi
    ;;
  test)
    out="${TEST_UNDECLARED_OUTPUTS_DIR:?not run by bazel test}"
    mapfile -d '' -t args < <(with_outputs "$out")
    printf '{"name": "%s", "kind": "%s", "language": "%s", "workload": "%s", "repetitions": %d, "profiles": "%s"}\n' \
      "$name" "$kind" "$language" "$workload" "$repetitions" "$profiles" >"$out/benchmark.json"

    # The timed runs have no profiler attached.
    echo "perf: $name: $repetitions timed run(s)" >&2
    "$xtime" -n "$repetitions" -json "$out/xtime.json" -bench "$name" -benchout "$out/bench.txt" \
      "$program" "${args[@]}" >"$out/output.txt"
    cat "$out/bench.txt"

    # What one run prints that --expect matches: every run must print the
    # same, and at least one line of it.
    per_run=1
    if wants cpu; then
      echo "perf: $name: a CPU-profiled run" >&2
      profile_cpu "$out" >"$out/cpu.output.txt"
      per_run="$(matches "$out/cpu.output.txt")"
      ((per_run > 0)) || check_output "$out/cpu.output.txt" 1
    elif [[ -n "$expect" ]]; then
      per_run="$(($(matches "$out/output.txt") / repetitions))"
      ((per_run > 0)) || check_output "$out/output.txt" "$repetitions"
    fi
    check_output "$out/output.txt" $((per_run * repetitions))
    if wants heap; then
      echo "perf: $name: a heap-profiled run" >&2
      profile_heap "$out" >"$out/heap.output.txt"
      # A -memprofile run of a Havlak stage stops after one pass, so it
      # prints fewer lines.
      (($(matches "$out/heap.output.txt") > 0)) || check_output "$out/heap.output.txt" 1
    fi
    if [[ -n "$trace" ]]; then
      echo "perf: $name: a traced run" >&2
      "$binary" -trace "$out/trace.out" "${args[@]}" >"$out/trace.output.txt"
      check_output "$out/trace.output.txt" "$per_run"
    fi

    render "$out"
    ;;
  *) die "unknown mode $mode" ;;
esac
