package suite

import "havlak-lab/tools/detection"

// Detection is the run's regression cases as the detection record keeps
// them (tools/detection): each case's benchmark, size and
// the gated figures that caught it. Neutral cases are the second matrix's,
// not detections: they are left out.
func (m *Matrix) Detection() *detection.Record {
	r := &detection.Record{Version: detection.Version, Checkout: m.Checkout, Started: m.Started.UTC(), Cases: []detection.Case{}}
	for _, o := range m.Outcomes {
		if o.Case.IsNeutral() || len(o.Case.Benchmarks) == 0 {
			continue
		}
		c := detection.Case{Name: o.Case.Name, Kind: o.Case.Kind, Language: o.Case.Language, Size: o.Case.Size,
			Benchmark: o.Case.Benchmarks[0], Figure: o.Case.Figure, Loosens: o.Case.Loosens, CaughtBy: []string{}, Err: o.Err}
		for _, v := range o.Caught() {
			c.CaughtBy = append(c.CaughtBy, v.Figure)
		}
		r.Cases = append(r.Cases, c)
	}
	return r
}
