package exports

import (
	"bytes"
	"fmt"
	"maps"
	"slices"
	"strings"

	"havlak-lab/tools/result"
)

// openMetricsPrefix starts the name of every metric family the lab
// exposes.
const openMetricsPrefix = "havlak_lab_server_"

// openMetrics writes the figures of set's server benchmarks (the server
// study's throughput and latency) as an OpenMetrics text exposition: a
// gauge family per figure, named havlak_lab_server_FIGURE_UNIT with its
// # TYPE, # UNIT and # HELP, a sample per benchmark (the median of its
// measured rounds), labelled with the benchmark, study, workload, commit
// and machine, and the closing # EOF. Programs and Go benchmarks are left
// out: they are no service a scraper watches.
func openMetrics(set Set) ([]byte, error) {
	var servers Set
	for _, in := range set.sorted().Inputs {
		if in.Result.Benchmark.Kind == result.KindServer {
			servers.Inputs = append(servers.Inputs, in)
		}
	}
	servers.Figure = set.Figure
	type family struct {
		figure, help, unit string
		samples            []string
	}
	families := map[string]*family{}
	if len(servers.Inputs) > 0 {
		if err := servers.oneRun(OpenMetrics); err != nil {
			return nil, err
		}
		figs, err := servers.figures()
		if err != nil {
			return nil, err
		}
		for _, f := range figs {
			unit := openMetricsUnit(f.Unit)
			name := openMetricsPrefix + openMetricsName(f.Name) + "_" + unit
			fam := families[name]
			if fam != nil && fam.figure != f.Name {
				return nil, fmt.Errorf("%s: figures %s and %s would both be %s", f.label(), fam.figure, f.Name, name)
			}
			if fam == nil {
				fam = &family{figure: f.Name, unit: unit, help: fmt.Sprintf("%s of a server benchmark (%s), the median of its measured rounds; measured by %s",
					f.Name, f.Unit, strings.TrimSpace(f.Source))}
				families[name] = fam
			}
			r := f.in.Result
			median, _, _ := summary(f.Values)
			labels := [][2]string{
				{"benchmark", r.Benchmark.Name},
				{"study", r.Benchmark.Study},
				{"workload", r.Benchmark.Workload.Name},
				{"commit", r.Environment.Source.Commit},
				{"machine", r.Environment.Machine.Hostname},
			}
			var sample strings.Builder
			sample.WriteString(name + "{")
			for i, l := range labels {
				if i > 0 {
					sample.WriteByte(',')
				}
				fmt.Fprintf(&sample, `%s="%s"`, l[0], escapeLabelValue(l[1]))
			}
			sample.WriteString("} " + number(median))
			fam.samples = append(fam.samples, sample.String())
		}
	}
	var b bytes.Buffer
	for _, name := range slices.Sorted(maps.Keys(families)) {
		fam := families[name]
		fmt.Fprintf(&b, "# TYPE %s gauge\n# UNIT %s %s\n# HELP %s %s\n", name, name, fam.unit, name, escapeHelp(fam.help))
		for _, s := range fam.samples {
			b.WriteString(s + "\n")
		}
	}
	b.WriteString("# EOF\n")
	return b.Bytes(), nil
}

// openMetricsUnit is the OpenMetrics unit of a lab unit: a base unit's
// name where one applies ("s": seconds, or second after "per"), the unit
// with "/" read as "per" and made a valid part of a name ("requests/s":
// requests_per_second).
func openMetricsUnit(unit string) string {
	parts := strings.Split(unit, "/")
	for i, p := range parts {
		switch {
		case p == "s" && i == 0:
			parts[i] = "seconds"
		case p == "s":
			parts[i] = "second"
		}
	}
	return openMetricsName(strings.Join(parts, "_per_"))
}

// openMetricsName makes s a valid part of a metric name: letters, digits
// and underscores, every other character an underscore.
func openMetricsName(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' {
			return r
		}
		return '_'
	}, s)
}

// escapeLabelValue escapes a label value: backslash, double quote and
// newline.
func escapeLabelValue(s string) string {
	return strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", `\n`).Replace(s)
}

// escapeHelp escapes a # HELP text as OpenMetrics does a label value.
func escapeHelp(s string) string { return escapeLabelValue(s) }
