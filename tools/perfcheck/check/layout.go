package check

import (
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	"havlak-lab/tools/verdict"
)

// LayoutPaths are where the count actions of layout variants leave their
// results, as built in workspace: their outputs' zips under bazel-bin, as
// the manifest names them.
func LayoutPaths(workspace string, variants []perfspec.ManifestTarget) []string {
	var paths []string
	for _, v := range variants {
		paths = append(paths, perfspec.Built(workspace, v.Output))
	}
	return paths
}

// ReadLayout reads the base's layout variants (summary.ReadLayout) of the
// benchmark the base's count measured.
func ReadLayout(base Measured, paths []string) (map[result.FigureKey][]float64, []*result.Result, error) {
	figures, err := result.Figures(base.Result, base.Outputs)
	if err != nil {
		return nil, nil, err
	}
	return summary.ReadLayout(summary.Side{Benchmark: base.Result.Benchmark, Side: verdict.Side{Figures: figures}}, paths)
}
