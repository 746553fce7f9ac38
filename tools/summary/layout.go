package summary

import (
	"fmt"
	"math"

	"havlak-lab/tools/result"
)

// ReadLayout reads the counts of the base's layout variants of a
// benchmark, at paths (their count actions' outputs, as the base's
// manifest names them: never the change's), and returns, by figure, its medians in the base's own count
// (base) and in each variant: the figure's layout noise, which calibrates
// its threshold against another binary (verdict.Side's Layout). A figure
// gets values only when every build has it with a median that is a
// number. It returns the variants' results too (for FromCache). A variant
// that cannot be read, or counted something else than the base's count
// (another benchmark, workload or config), is an error naming its path:
// no layout noise is better than a guess.
func ReadLayout(base Side, paths []string) (map[result.FigureKey][]float64, []*result.Result, error) {
	layout := medians(base.Figures)
	var read []*result.Result
	for _, path := range paths {
		r, figures, err := readVariant(base.Benchmark, path)
		if err != nil {
			return nil, nil, err
		}
		read = append(read, r)
		variant := medians(figures)
		for key, values := range layout {
			if m, ok := variant[key]; ok {
				layout[key] = append(values, m[0])
			} else {
				delete(layout, key)
			}
		}
	}
	if len(paths) == 0 {
		return nil, read, nil
	}
	return layout, read, nil
}

// readVariant reads a layout variant's result at path and its figures,
// checking that it counted what base counted.
func readVariant(base result.Benchmark, path string) (*result.Result, []result.Figure, error) {
	r, out, err := result.Read(path)
	if out != nil {
		defer out.Close()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("a layout variant of %s: %w", base.Name, err)
	}
	switch {
	case r.Benchmark.Name != base.Name:
		return nil, nil, fmt.Errorf("%s: a layout variant of %s counted %s", path, base.Name, r.Benchmark.Name)
	case r.Benchmark.Workload.Name != base.Workload.Name:
		return nil, nil, fmt.Errorf("%s: a layout variant of %s counted the %s workload, the base's count the %s", path, base.Name,
			r.Benchmark.Workload.Name, base.Workload.Name)
	case r.Environment.Build.Config != result.ConfigCounts:
		return nil, nil, fmt.Errorf("%s: a layout variant of %s of config %q: want a count action's, %q", path, base.Name,
			r.Environment.Build.Config, result.ConfigCounts)
	}
	figures, err := result.Figures(r, out)
	if err != nil {
		return nil, nil, fmt.Errorf("a layout variant of %s: %w", base.Name, err)
	}
	return r, figures, nil
}

// medians are the medians of the figures that have values, each as the
// one value of its list, by figure; those that are no number are left out.
func medians(figures []result.Figure) map[result.FigureKey][]float64 {
	m := map[result.FigureKey][]float64{}
	for _, f := range figures {
		if len(f.Values) == 0 {
			continue
		}
		median := result.NewSample(f.Values).Median
		if math.IsNaN(median) || math.IsInf(median, 0) {
			continue
		}
		m[result.FigureKey{Name: f.Name, Unit: f.Unit}] = []float64{median}
	}
	return m
}
