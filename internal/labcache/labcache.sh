# shellcheck shell=bash
# The lab's cache directory, in bash (sourced, not run): the rule that
# internal/labcache owns and documents (labcache.go), for the scripts that
# run before anything is built (tools/bazel, tools/ci/tools.sh).
# //internal/labcache:labcache_test checks that this and the Go half name
# the same directory in every case of the rule.

# labcache_dir [SUB]: prints the lab's cache directory, or its subdirectory
# SUB (one plain name); fails, saying why on stderr, when the environment
# gives no absolute directory.
labcache_dir() {
  local sub="${1:-}" name value below dir
  case "$sub" in
    . | .. | */* | *\\*)
      echo "the lab's cache directory: subdirectory \"$sub\": want one plain name" >&2
      return 1
      ;;
  esac
  for name in HAVLAK_LAB_CACHE XDG_CACHE_HOME HOME; do
    value="${!name:-}"
    [[ -n "$value" ]] || continue
    if [[ "$value" != /* ]]; then
      echo "the lab's cache directory: $name=\"$value\" is not an absolute path" >&2
      return 1
    fi
    case "$name" in
      HAVLAK_LAB_CACHE) below="" ;;
      XDG_CACHE_HOME) below="/havlak-lab" ;;
      HOME) below="/.cache/havlak-lab" ;;
    esac
    dir="${value%/}$below${sub:+/$sub}"
    echo "${dir:-/}"
    return 0
  done
  echo "the lab's cache directory: none of HAVLAK_LAB_CACHE, XDG_CACHE_HOME and HOME is set" >&2
  return 1
}
