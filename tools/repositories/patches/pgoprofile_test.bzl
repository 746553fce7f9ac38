"""Analysis tests of the pgoprofile patch of rules_go: the profile is an
input of the package's compile action and the compiler reads it with
-pgoprofile; without the attribute, neither."""

load("@bazel_skylib//lib:unittest.bzl", "analysistest", "asserts")

def _compile_action(env):
    actions = [a for a in analysistest.target_actions(env) if a.mnemonic == "GoCompilePkg"]
    asserts.equals(env, 1, len(actions), "GoCompilePkg actions of the target")
    return actions[0] if actions else None

def _with_profile_test_impl(ctx):
    env = analysistest.begin(ctx)
    action = _compile_action(env)
    if action:
        profile = ctx.file.profile
        inputs = [f.path for f in action.inputs.to_list()]
        asserts.true(env, profile.path in inputs, "{} among the compile's inputs {}".format(profile.path, inputs))
        flag = "-pgoprofile=" + profile.path
        asserts.true(
            env,
            any([flag in arg for arg in action.argv]),
            "{} in the compile's gcflags: {}".format(flag, action.argv),
        )
    return analysistest.end(env)

_with_profile_test = analysistest.make(
    _with_profile_test_impl,
    attrs = {"profile": attr.label(allow_single_file = True, doc = "The profile the target names.")},
)

def _without_profile_test_impl(ctx):
    env = analysistest.begin(ctx)
    action = _compile_action(env)
    if action:
        asserts.false(
            env,
            any(["-pgoprofile" in arg for arg in action.argv]),
            "-pgoprofile in the compile of a target without pgoprofile: {}".format(action.argv),
        )
    return analysistest.end(env)

_without_profile_test = analysistest.make(_without_profile_test_impl)

def pgoprofile_test_suite(name, binary, library, profile, plain):
    """The analysis tests of pgoprofile, in a test_suite.

    Args:
      name: the test_suite's name; the tests' names start with it.
      binary: a go_binary with pgoprofile (which embeds its library).
      library: a go_library with pgoprofile.
      profile: the profile both name.
      plain: a go_binary without pgoprofile.
    """
    _with_profile_test(name = name + "_binary", target_under_test = binary, profile = profile)
    _with_profile_test(name = name + "_library", target_under_test = library, profile = profile)
    _without_profile_test(name = name + "_plain", target_under_test = plain)
    native.test_suite(
        name = name,
        tests = [name + "_binary", name + "_library", name + "_plain"],
    )
