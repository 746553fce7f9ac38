"""Repository rules that make havlak-lab build without GitHub or Bazel's mirrors.

Rule sets and the Go SDK come from the Go module proxy through the host go
command, npm packages (the report's charting library) through the host npm
command, Debian's rule sets are patched copies of their directories, and the
coverage tools Bazel 4.2.3 expects are a local stand-in; the facts of the
machine that exact counts depend on are read from the machine.
"""

load(
    "//tools/repositories/private:compat.bzl",
    _coverage_tools_stub_repository = "coverage_tools_stub_repository",
)
load(
    "//tools/repositories/private:count_worker.bzl",
    _count_worker_repository = "count_worker_repository",
)
load(
    "//tools/repositories/private:go_module.bzl",
    _go_module_repository = "go_module_repository",
    _go_toolchain_repository = "go_toolchain_repository",
)
load(
    "//tools/repositories/private:local_patched.bzl",
    _local_patched_repository = "local_patched_repository",
)
load(
    "//tools/repositories/private:npm_package.bzl",
    _npm_package_repository = "npm_package_repository",
)

count_worker_repository = _count_worker_repository
coverage_tools_stub_repository = _coverage_tools_stub_repository
go_module_repository = _go_module_repository
go_toolchain_repository = _go_toolchain_repository
local_patched_repository = _local_patched_repository
npm_package_repository = _npm_package_repository
