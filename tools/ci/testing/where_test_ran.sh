#!/usr/bin/env bash
# --run_under wrapper of the Buildbarn tests: the test's log says which
# directory the test ran in (the worker's build directory, when remote).
echo "test ran in: $PWD"
exec "$@"
