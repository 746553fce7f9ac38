package exports

import (
	"bytes"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/perf/benchfmt"

	"havlak-lab/tools/result"
)

// goBench writes set in the Go benchmark format. Each result gets the
// configuration lines of its environment (benchfmt's file configuration:
// a key holds until changed, and a key a result lacks is cleared), then its
// lines:
//
//   - a program's or server's figures, each run a line of iteration count
//     1, the figures measured in the same runs (the same source, as many
//     values) on one line: "BenchmarkHavlak6 1 0.068 real_seconds-s ...";
//   - a Go benchmark's lines (go_test) as its go_bench file has them.
//
// A figure's unit is its name when that is its unit ("instructions"),
// else NAME-UNIT ("own_instructions-instructions", "real_seconds-s"),
// and an exact figure's (result.Metric.Exact) ends in "-exact"
// ("instructions-exact"). The Unit lines say which way is better and mark
// the exact units assume=exact, so that benchstat shows their value
// without a confidence interval and calls any change a change. Exactness
// is part of the unit because benchfmt's unit metadata holds for a whole
// file, and the same figure is exact for one program and not for another
// (Cachegrind's instructions: exact for a C++ program, not for a Go one).
func goBench(set Set) ([]byte, error) {
	set = set.sorted()
	var body bytes.Buffer
	w := benchfmt.NewWriter(&body)
	units := unitTable{}
	for i := range set.Inputs {
		in := &set.Inputs[i]
		lines, err := goBenchLines(in, set.Figure, units)
		if err != nil {
			return nil, err
		}
		for _, line := range lines {
			if err := w.Write(line); err != nil {
				return nil, err
			}
		}
	}
	if body.Len() == 0 {
		return nil, fmt.Errorf("%s: %w", GoBench, errNoLines)
	}
	var out bytes.Buffer
	out.WriteString("# The lab's results in the Go benchmark format (tools/exports); benchstat reads it.\n")
	units.write(&out)
	out.WriteString("\n")
	out.Write(body.Bytes())
	return out.Bytes(), nil
}

// goBenchLines returns in's lines, each with in's configuration, and notes
// their units in units; only, when not "", keeps the figures of that name.
func goBenchLines(in *Input, only string, units unitTable) ([]*benchfmt.Result, error) {
	r := in.Result
	if r.Benchmark.Kind == result.KindGoTest {
		return goTestLines(in, only, units)
	}
	name, err := goBenchmarkName(r.Benchmark.Name)
	if err != nil {
		return nil, err
	}
	figs, err := Set{Inputs: []Input{*in}, Figure: only}.figures()
	if err != nil {
		return nil, err
	}
	// Figures measured in the same runs share lines.
	type runs struct {
		source string
		n      int
	}
	var order []runs
	groups := map[runs][]figure{}
	for _, f := range figs {
		k := runs{f.Source, len(f.Values)}
		if _, ok := groups[k]; !ok {
			order = append(order, k)
		}
		groups[k] = append(groups[k], f)
	}
	owner := map[string]string{}
	for _, f := range figs {
		unit := goUnit(f.Figure)
		if other, ok := owner[unit]; ok {
			return nil, fmt.Errorf("%s: figures %s and %s would both be unit %s", f.label(), other, f.Name, unit)
		}
		owner[unit] = f.Name
	}
	config := goBenchConfig(r, nil)
	var lines []*benchfmt.Result
	for _, k := range order {
		for run := 0; run < k.n; run++ {
			line := &benchfmt.Result{Name: benchfmt.Name(name), Iters: 1, Config: slices.Clone(config)}
			for _, f := range groups[k] {
				unit := goUnit(f.Figure)
				if err := units.note(unit, f); err != nil {
					return nil, err
				}
				line.Values = append(line.Values, benchfmt.Value{Value: f.Values[run], Unit: unit})
			}
			lines = append(lines, line)
		}
	}
	return lines, nil
}

// goTestLines returns the lines of a Go benchmark's go_bench file, with
// the file's own configuration (goos, pkg, ...) and in's.
func goTestLines(in *Input, only string, units unitTable) ([]*benchfmt.Result, error) {
	read, _, err := result.GoBench(in.Result, in.Outputs)
	if err != nil {
		return nil, err
	}
	figs, err := result.Figures(in.Result, in.Outputs)
	if err != nil {
		return nil, err
	}
	better := map[[2]string]result.Figure{}
	for _, f := range figs {
		better[[2]string{f.Name, f.Unit}] = f
	}
	var lines []*benchfmt.Result
	for _, rec := range read {
		if only != "" && rec.Name.String() != only {
			continue
		}
		line := &benchfmt.Result{Name: slices.Clone(rec.Name), Iters: rec.Iters, Values: slices.Clone(rec.Values),
			Config: goBenchConfig(in.Result, rec.Config)}
		for _, v := range rec.Values {
			f := figure{in, better[[2]string{rec.Name.String(), v.Unit}]}
			if err := units.note(v.Unit, f); err != nil {
				return nil, err
			}
		}
		lines = append(lines, line)
	}
	return lines, nil
}

// goBenchConfig is the file configuration of r's lines: the go_bench
// file's own (fileConfig), then r's environment, whose keys win.
func goBenchConfig(r *result.Result, fileConfig []benchfmt.Config) []benchfmt.Config {
	env := r.Environment
	dirty := "false"
	if env.Source.Dirty {
		dirty = "true"
	}
	mine := [][2]string{
		{"goos", env.Machine.OS},
		{"goarch", env.Machine.Arch},
		{"cpu", env.Machine.CPUModel},
		{"cores", strconv.Itoa(env.Machine.Cores)},
		{"machine", env.Machine.Hostname},
		{"go-version", env.Toolchains.Go},
		{"gcc-version", env.Toolchains.GCC},
		{"compilation-mode", env.Build.CompilationMode},
		{"environment", result.EnvironmentKey(env)},
		{"commit", env.Source.Commit},
		{"dirty", dirty},
		{"study", r.Benchmark.Study},
		{"workload", r.Benchmark.Workload.Name},
	}
	var config []benchfmt.Config
	for _, c := range fileConfig {
		if c.File && validConfigKey(c.Key) && !slices.ContainsFunc(mine, func(kv [2]string) bool { return kv[0] == c.Key }) {
			config = append(config, benchfmt.Config{Key: c.Key, Value: slices.Clone(c.Value), File: true})
		}
	}
	for _, kv := range mine {
		// An empty value would clear the key: an unknown one is left out.
		if v := configValue(kv[1]); v != "" {
			config = append(config, benchfmt.Config{Key: kv[0], Value: []byte(v), File: true})
		}
	}
	return config
}

// configValue makes s a configuration value: one line, no control
// characters, no spaces at its ends.
func configValue(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || r == utf8.RuneError {
			return ' '
		}
		return r
	}, s)
	return strings.TrimSpace(s)
}

// validConfigKey tells whether key is a configuration key of the format:
// it begins with a lower-case letter and has neither spaces nor upper-case
// letters, nor a colon (which would end it).
func validConfigKey(key string) bool {
	first, _ := utf8.DecodeRuneInString(key)
	return unicode.IsLower(first) && !strings.ContainsFunc(key, func(r rune) bool {
		return unicode.IsSpace(r) || unicode.IsUpper(r) || r == ':'
	})
}

// goBenchmarkName is the Go benchmark name of the benchmark called name,
// without the "Benchmark" every line starts with: the name with its first
// letter upper-cased (xtime's bench.txt names it so). A name the format would read otherwise is
// refused: one with a space, or ending in "-" and digits, which benchstat
// takes for a GOMAXPROCS suffix.
func goBenchmarkName(name string) (string, error) {
	if err := result.CheckName(name); err != nil {
		return "", fmt.Errorf("benchmark %q: %w", name, err)
	}
	if i := strings.LastIndexByte(name, '-'); i >= 0 && i < len(name)-1 &&
		strings.Trim(name[i+1:], "0123456789") == "" {
		return "", fmt.Errorf("benchmark %q: ends in -%s, which the Go benchmark format reads as GOMAXPROCS", name, name[i+1:])
	}
	first, size := utf8.DecodeRuneInString(name)
	return string(unicode.ToUpper(first)) + name[size:], nil
}

// goUnit is the Go benchmark format's unit of f (see goBench).
func goUnit(f result.Figure) string {
	unit := f.Name + "-" + f.Unit
	if f.Name == f.Unit {
		unit = f.Unit
	}
	if f.Exact {
		unit += "-exact"
	}
	return unit
}

// A unitTable gathers what the Unit lines say of each unit: which way is
// better and whether it is exact, or why it cannot say.
type unitTable map[string]*unitInfo

type unitInfo struct {
	better         string
	exact, inexact bool
	conflict       string // why no better= line
}

// note adds f, written in unit, to t; a unit that is no single word of
// the format is refused.
func (t unitTable) note(unit string, f figure) error {
	if unit == "" || strings.ContainsFunc(unit, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) ||
		!utf8.ValidString(unit) {
		return fmt.Errorf("%s: unit %q: the Go benchmark format wants one word", f.label(), unit)
	}
	if f.Better == "" {
		f.Better = result.BetterOf(unit)
	}
	u := t[unit]
	if u == nil {
		u = &unitInfo{better: f.Better}
		t[unit] = u
	}
	if u.better != f.Better && u.conflict == "" {
		u.conflict = fmt.Sprintf("better %s for some figures, %s for %s", u.better, f.Better, f.label())
	}
	u.exact = u.exact || f.Exact
	u.inexact = u.inexact || !f.Exact
	return nil
}

// write writes t's Unit lines, in the order of their units.
func (t unitTable) write(b *bytes.Buffer) {
	for _, unit := range slices.Sorted(maps.Keys(t)) {
		u := t[unit]
		if u.conflict != "" {
			fmt.Fprintf(b, "# unit %s: no better= line: %s\n", unit, configValue(u.conflict))
		} else {
			fmt.Fprintf(b, "Unit %s better=%s\n", unit, u.better)
		}
		if u.exact && !u.inexact {
			fmt.Fprintf(b, "Unit %s assume=exact\n", unit)
		} else if u.exact {
			fmt.Fprintf(b, "# unit %s: exact for some figures only: no assume=exact\n", unit)
		}
	}
}

// errNoLines is the error of an export with nothing in it.
var errNoLines = errors.New("no figures to export")
