"""Analysis tests of the pgoprofile patch of rules_go: a go_binary's profile
reaches every Go compile of the binary, as `go build -pgo=FILE` does: its
own package's, each dependency's, and the standard library's, the file an
input of each; a binary without the attribute gets it in none."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

# The actions that compile Go: one package each, and the whole standard
# library (rules_go builds it from source in configurations the SDK's
# precompiled archives do not fit).
_COMPILE_MNEMONICS = ["GoCompilePkg", "GoStdlib"]

_CompilesInfo = provider(
    doc = "The Go compile actions of a target and of the Go targets it builds on.",
    fields = {"compiles": "list of struct(label, mnemonic, inputs: depset, argv, env)"},
)

def _compiles_aspect_impl(target, ctx):
    compiles = [
        struct(
            label = str(target.label),
            mnemonic = a.mnemonic,
            inputs = a.inputs,
            argv = a.argv,
            env = a.env,
        )
        for a in target.actions
        if a.mnemonic in _COMPILE_MNEMONICS
    ]
    for attr in _COMPILE_EDGES:
        deps = getattr(ctx.rule.attr, attr, None)
        if deps == None:
            continue
        if type(deps) != "list":
            deps = [deps]
        for dep in deps:
            if _CompilesInfo in dep:
                compiles.extend(dep[_CompilesInfo].compiles)
    return [_CompilesInfo(compiles = compiles)]

# The edges from a binary to the Go code it compiles: the packages it imports
# and embeds, and through the go context, the standard library.
_COMPILE_EDGES = ["deps", "embed", "_go_context_data", "stdlib"]

_compiles_aspect = aspect(
    implementation = _compiles_aspect_impl,
    attr_aspects = _COMPILE_EDGES,
)

def _distinct(compiles):
    seen = {}
    for c in compiles:
        key = (c.label, c.mnemonic, tuple(c.argv))
        if key not in seen:
            seen[key] = c
    return seen.values()

def _reads_profile(c, path):
    """Whether compile c reads the profile at path, and why not."""
    inputs = [f.path for f in c.inputs.to_list()]
    if path not in inputs:
        return "{} is not among the inputs".format(path)
    if c.mnemonic == "GoStdlib":
        # The builder runs `go install std`, which reads GOFLAGS.
        if c.env.get("GOFLAGS") != "-pgo=" + path:
            return "GOFLAGS is {}, not -pgo={}".format(c.env.get("GOFLAGS"), path)
    elif not any([("-pgoprofile=" + path) in arg for arg in c.argv]):
        return "no -pgoprofile={} in the gcflags: {}".format(path, c.argv)
    return None

def _with_profile_test_impl(ctx):
    env = analysistest.begin(ctx)
    path = ctx.file.profile.path
    compiles = _distinct(ctx.attr.binary[_CompilesInfo].compiles)
    by_label = {}
    for c in compiles:
        by_label.setdefault(c.label, []).append(c)
        why = _reads_profile(c, path)
        asserts.true(env, why == None, "{} of {}: {}".format(c.mnemonic, c.label, why))

    # The ones that must be there, so that the loop above cannot pass on
    # nothing: the binary's package, its libraries, the standard library.
    for want in ctx.attr.compiled:
        want = str(Label(want))
        asserts.true(
            env,
            want in by_label,
            "no compile of {} among the binary's: {}".format(want, sorted(by_label.keys())),
        )

    # Built from source, with the profile, rather than the SDK's archives;
    # and once: the binary's own go context and its libraries' are in one
    # configuration (compiles are told apart by their command lines, which
    # name the output directory, so two configurations would show as two).
    stdlib = [c for c in compiles if c.mnemonic == "GoStdlib"]
    asserts.equals(
        env,
        1,
        len(stdlib),
        "standard library builds among the binary's compiles: {}".format([c.argv for c in stdlib]),
    )
    return analysistest.end(env)

_with_profile_test = analysistest.make(
    _with_profile_test_impl,
    attrs = {
        # The same target as target_under_test, seen through the aspect.
        "binary": attr.label(aspects = [_compiles_aspect]),
        # Labels as strings: the test needs no more than their names, and
        # a library need not be visible to it.
        "compiled": attr.string_list(doc = "Targets whose compile must be among the binary's."),
        "profile": attr.label(allow_single_file = True, doc = "The profile the binary names."),
    },
)

def _without_profile_test_impl(ctx):
    env = analysistest.begin(ctx)
    compiles = _distinct(ctx.attr.binary[_CompilesInfo].compiles)
    asserts.true(env, len(compiles) > 0, "no Go compile actions seen")
    for c in compiles:
        asserts.false(
            env,
            any(["-pgoprofile" in arg for arg in c.argv]),
            "-pgoprofile in {} of {}: {}".format(c.mnemonic, c.label, c.argv),
        )
        asserts.false(
            env,
            "-pgo" in c.env.get("GOFLAGS", ""),
            "GOFLAGS of {} of {}: {}".format(c.mnemonic, c.label, c.env.get("GOFLAGS")),
        )

    # The SDK's precompiled standard library, as without the patch.
    asserts.equals(env, [], [c.label for c in compiles if c.mnemonic == "GoStdlib"], "standard library builds")
    return analysistest.end(env)

_without_profile_test = analysistest.make(
    _without_profile_test_impl,
    attrs = {"binary": attr.label(aspects = [_compiles_aspect])},
)

def pgoprofile_test_suite(name, binary, compiled, profile, plain):
    """The analysis tests of pgoprofile, in a test_suite.

    Args:
      name: the test_suite's name; the tests' names start with it.
      binary: a go_binary with pgoprofile.
      compiled: Go targets whose compile must be among binary's (and, with
        every other compile of binary's, read the profile).
      profile: the profile binary names.
      plain: a go_binary without pgoprofile.
    """
    _with_profile_test(
        name = name + "_binary",
        target_under_test = binary,
        binary = binary,
        compiled = compiled,
        profile = profile,
    )
    _without_profile_test(name = name + "_plain", target_under_test = plain, binary = plain)
    native.test_suite(
        name = name,
        tests = [name + "_binary", name + "_plain"],
    )
