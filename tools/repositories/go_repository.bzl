"""go_repository under maybe(): the Go modules of havlak-lab's own tools.

deps.bzl (gazelle's update-repos writes it) loads go_repository from here, not
from gazelle, so that a workspace that loads the lab keeps its own pin of a
module the lab also uses: declared before havlak_lab_setup(), it is the one
both build with (docs/adopting.md). gazelle leaves a load of another file
alone.
"""

load("@bazel_gazelle//:deps.bzl", _go_repository = "go_repository")
load("@bazel_tools//tools/build_defs/repo:utils.bzl", "maybe")

def go_repository(name, **kwargs):
    """gazelle's go_repository, unless a repository called `name` exists.

    Args:
      name: the repository's name.
      **kwargs: gazelle's go_repository's other attributes.
    """
    maybe(_go_repository, name = name, **kwargs)
