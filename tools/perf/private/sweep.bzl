"""workload_sweep and sweep_point: how a benchmark's cost grows with its
workload, declared with the benchmark; load them from //tools/perf:defs.bzl.

perf_benchmark's `sweep` (its full-size test) and `quick_sweep` (its quick
test) take a workload_sweep; the spec carries it (perfspec.Sweep) and the
runner counts the program under Cachegrind at each size, then fits the
order of growth (docs/regressions.md, "How cost grows")."""

def sweep_point(n, args, expect = ""):
    """One size of a sweep.

    Args:
      n: the size N, a positive integer, in the unit the sweep names.
      args: the program's arguments that make a workload of size n;
        $(rootpath) works.
      expect: an extended regular expression that a line of the run's
        output must match, to check that the run made that size; "" checks
        nothing.

    Returns:
      the point.
    """
    if type(n) != "int" or n < 1:
        fail("sweep_point: n must be a positive int, not {}".format(repr(n)))
    if not args:
        fail("sweep_point {}: args make the size: none given".format(n))
    return struct(n = n, args = args, expect = expect)

def workload_sweep(n, points):
    """A sweep: sizes at which to count a program, to fit how its cost grows.

    Args:
      n: what N counts, for people ("loops found"); measured from the
        program's declared arguments, never from its name.
      points: sweep_point()s, at least 3, in increasing n.

    Returns:
      the sweep, for perf_benchmark's sweep and quick_sweep.
    """
    if type(n) != "string" or not n:
        fail("workload_sweep: n must say what N counts, not {}".format(repr(n)))
    if len(points) < 3:
        fail("workload_sweep: {} points; fitting an order takes at least 3".format(len(points)))
    for i in range(1, len(points)):
        if points[i].n <= points[i - 1].n:
            fail("workload_sweep: sizes {} then {}: want increasing sizes".format(points[i - 1].n, points[i].n))
    return struct(n = n, points = points)

def sweep_json(sweep, name):
    """A sweep as perf_spec's `sweep` attribute takes it.

    Args:
      sweep: a workload_sweep(), or None.
      name: the benchmark's name, for errors.

    Returns:
      the sweep as JSON, or "" for None.
    """
    if sweep == None:
        return ""
    if type(sweep) != "struct" or not hasattr(sweep, "points"):
        fail("benchmark {}: a sweep must be a workload_sweep(...), not {}".format(name, repr(sweep)))
    return json.encode(sweep)
