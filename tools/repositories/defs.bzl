"""Repository rules that make havlak-lab build without GitHub or Bazel's mirrors.

Rule sets and the Go SDK come from the Go module proxy through the host go
command; the C++ and coverage repositories Bazel 4.2.3 expects are local
stand-ins.
"""

load(
    "//tools/repositories/private:compat.bzl",
    _coverage_tools_stub_repository = "coverage_tools_stub_repository",
    _rules_cc_compat_repository = "rules_cc_compat_repository",
)
load(
    "//tools/repositories/private:go_module.bzl",
    _go_module_repository = "go_module_repository",
    _go_toolchain_repository = "go_toolchain_repository",
)

coverage_tools_stub_repository = _coverage_tools_stub_repository
go_module_repository = _go_module_repository
go_toolchain_repository = _go_toolchain_repository
rules_cc_compat_repository = _rules_cc_compat_repository
