// Package profilediff compares a baseline's profile with a new one the way
// pprof's -diff_base does: the baseline's samples are subtracted from the
// new profile's, so a function's flat and cumulative weights become what
// it gained (positive) or lost (negative). The report (//tools/report)
// puts a table and pprof's diff graph beside every regression, and its
// one-line summaries are for the nightly job's annotation.
package profilediff

import (
	"bytes"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/google/pprof/driver"
	"github.com/google/pprof/profile"

	"havlak-lab/internal/markdown"
)

// A Func is one function's change.
type Func struct {
	Name string `json:"name"`
	// Flat is the change of the weight of samples in which the function
	// itself was running, Cum of those in which it was on the stack.
	Flat int64 `json:"flat"`
	Cum  int64 `json:"cum"`
}

// A Diff is a new profile against its baseline.
type Diff struct {
	// Profile is the kind: "cpu" or "heap".
	Profile string `json:"profile"`
	// SampleType is the value compared (pprof's -sample_index): cpu for a
	// CPU profile, alloc_space for a heap profile when it has it.
	SampleType string `json:"sample_type"`
	Unit       string `json:"unit"`
	// Base and New are the two profiles' totals.
	Base int64 `json:"base"`
	New  int64 `json:"new"`
	// Funcs are the functions whose weights changed, by the size of the
	// change of their flat weight (as pprof -top -diff_base orders), then
	// of their cumulative weight.
	Funcs []Func `json:"funcs"`
}

// sampleType is the value a profile of kind is compared by: CPU time, the
// bytes allocated over the run (a heap profile's in-use bytes at one
// moment hide what a regression allocated and freed), else pprof's default,
// the last.
func sampleType(kind string, p *profile.Profile) (int, error) {
	want := map[string]string{"cpu": "cpu", "heap": "alloc_space"}[kind]
	for i, st := range p.SampleType {
		if st.Type == want {
			return i, nil
		}
	}
	if len(p.SampleType) == 0 {
		return 0, fmt.Errorf("a %s profile without sample types", kind)
	}
	return len(p.SampleType) - 1, nil
}

// Stack returns a sample's functions from the root (main) to the leaf,
// with inlined calls as frames of their own.
func Stack(s *profile.Sample) []string {
	var frames []string
	for i := len(s.Location) - 1; i >= 0; i-- {
		lines := s.Location[i].Line
		for j := len(lines) - 1; j >= 0; j-- {
			if fn := lines[j].Function; fn != nil {
				frames = append(frames, fn.Name)
			}
		}
		if len(lines) == 0 {
			frames = append(frames, fmt.Sprintf("%#x", s.Location[i].Address))
		}
	}
	return frames
}

// Weights adds up the flat and cumulative weights of p's functions by
// value index, scaled by sign, into flat and cum, and returns the
// profile's total.
func Weights(p *profile.Profile, index int, sign int64, flat, cum map[string]int64) (total int64) {
	for _, s := range p.Sample {
		v := sign * s.Value[index]
		total += v
		frames := Stack(s)
		if len(frames) == 0 {
			continue
		}
		flat[frames[len(frames)-1]] += v
		seen := map[string]bool{}
		for _, f := range frames {
			if !seen[f] {
				seen[f] = true
				cum[f] += v
			}
		}
	}
	return sign * total
}

// Compute compares new with base, two profiles of kind ("cpu" or "heap").
func Compute(kind string, base, new *profile.Profile) (*Diff, error) {
	ni, err := sampleType(kind, new)
	if err != nil {
		return nil, err
	}
	st := new.SampleType[ni]
	bi := -1
	for i, t := range base.SampleType {
		if t.Type == st.Type && t.Unit == st.Unit {
			bi = i
		}
	}
	if bi < 0 {
		return nil, fmt.Errorf("the baseline's %s profile has no %s/%s samples", kind, st.Type, st.Unit)
	}
	d := &Diff{Profile: kind, SampleType: st.Type, Unit: st.Unit}
	flat, cum := map[string]int64{}, map[string]int64{}
	d.New = Weights(new, ni, 1, flat, cum)
	d.Base = Weights(base, bi, -1, flat, cum)
	for name := range cum {
		if flat[name] != 0 || cum[name] != 0 {
			d.Funcs = append(d.Funcs, Func{Name: name, Flat: flat[name], Cum: cum[name]})
		}
	}
	abs := func(v int64) int64 { return max(v, -v) }
	sort.Slice(d.Funcs, func(i, j int) bool {
		a, b := d.Funcs[i], d.Funcs[j]
		if abs(a.Flat) != abs(b.Flat) {
			return abs(a.Flat) > abs(b.Flat)
		}
		if abs(a.Cum) != abs(b.Cum) {
			return abs(a.Cum) > abs(b.Cum)
		}
		return a.Name < b.Name
	})
	return d, nil
}

// Value formats a weight or a change of one in the diff's unit.
func (d *Diff) Value(v int64, signed bool) string {
	if v == 0 {
		return "0"
	}
	sign := ""
	if signed && v > 0 {
		sign = "+"
	} else if v < 0 {
		sign, v = "-", -v
	}
	f := float64(v)
	switch d.Unit {
	case "nanoseconds":
		return sign + trim(f/1e9) + "s"
	case "bytes":
		for _, u := range []struct {
			name string
			size float64
		}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
			if f >= u.size {
				return sign + trim(f/u.size) + u.name
			}
		}
		return sign + fmt.Sprintf("%.0fB", f)
	}
	return sign + fmt.Sprintf("%.0f %s", f, d.Unit)
}

func trim(f float64) string {
	switch {
	case f >= 100:
		return fmt.Sprintf("%.0f", f)
	case f >= 10:
		return fmt.Sprintf("%.1f", f)
	}
	return fmt.Sprintf("%.2f", f)
}

// Change is the total's relative change.
func (d *Diff) Change() float64 {
	if d.Base == 0 {
		return math.Inf(1)
	}
	return float64(d.New)/float64(d.Base) - 1
}

// Top is the first n functions, or all of them.
func (d *Diff) Top(n int) []Func {
	if len(d.Funcs) > n {
		return d.Funcs[:n]
	}
	return d.Funcs
}

// Share is a change as a percentage of the baseline's total.
func (d *Diff) Share(v int64) string {
	if d.Base == 0 {
		return ""
	}
	return fmt.Sprintf("%+.1f%%", 100*float64(v)/float64(d.Base))
}

// WriteMarkdown writes the top n changed functions as a Markdown table.
func (d *Diff) WriteMarkdown(w io.Writer, n int) {
	fmt.Fprintf(w, "%s profile, %s: %s → %s (%+.1f%%)\n\n", d.Profile, d.SampleType, d.Value(d.Base, false), d.Value(d.New, false), 100*d.Change())
	fmt.Fprintln(w, "| function | flat Δ | flat Δ % | cum Δ | cum Δ % |")
	fmt.Fprintln(w, "|----------|-------:|---------:|------:|--------:|")
	for _, f := range d.Top(n) {
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", markdown.Code(f.Name),
			d.Value(f.Flat, true), d.Share(f.Flat), d.Value(f.Cum, true), d.Share(f.Cum))
	}
}

// Summary is one line for an annotation: the total's change and the n
// functions whose own weight changed most.
func (d *Diff) Summary(n int) string {
	var funcs []string
	for _, f := range d.Top(n) {
		funcs = append(funcs, fmt.Sprintf("%s %s", markdown.Code(f.Name), d.Value(f.Flat, true)))
	}
	s := fmt.Sprintf("%s %s %+.1f%%", d.Profile, d.SampleType, 100*d.Change())
	if len(funcs) > 0 {
		s += "; flat: " + strings.Join(funcs, ", ")
	}
	return s
}

// SVG renders pprof's call graph of the difference (pprof -svg
// -diff_base=BASE NEW, pprof's own driver, Graphviz's dot on PATH): red
// for what grew, green for what shrank.
func SVG(kind string, base, new *profile.Profile) ([]byte, error) {
	ni, err := sampleType(kind, new)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "profilediff")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(dir)
	basePath, newPath, out := filepath.Join(dir, "base.pb.gz"), filepath.Join(dir, "new.pb.gz"), filepath.Join(dir, "diff.svg")
	for path, p := range map[string]*profile.Profile{basePath: base, newPath: new} {
		var b bytes.Buffer
		if err := p.Write(&b); err != nil {
			return nil, err
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	ui := &quietUI{}
	err = driver.PProf(&driver.Options{
		Flagset: newFlags([]string{"-svg", "-symbolize=none", "-sample_index=" + new.SampleType[ni].Type,
			"-diff_base=" + basePath, "-output=" + out, newPath}),
		UI: ui,
	})
	svg, rerr := os.ReadFile(out)
	if err == nil && rerr != nil {
		err = rerr
	}
	if err != nil {
		return nil, fmt.Errorf("pprof -svg -diff_base: %w: %s", err, strings.TrimSpace(ui.errors.String()))
	}
	return svg, nil
}

// quietUI keeps pprof's messages to explain a failure.
type quietUI struct{ errors bytes.Buffer }

func (u *quietUI) ReadLine(string) (string, error)     { return "", io.EOF }
func (u *quietUI) Print(...any)                        {}
func (u *quietUI) PrintErr(args ...any)                { fmt.Fprintln(&u.errors, args...) }
func (u *quietUI) IsTerminal() bool                    { return false }
func (u *quietUI) WantBrowser() bool                   { return false }
func (u *quietUI) SetAutoComplete(func(string) string) {}

// flags gives pprof's driver its command line.
type flags struct {
	*flag.FlagSet
	args  []string
	extra string
}

func newFlags(args []string) *flags {
	fs := flag.NewFlagSet("pprof", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flags{FlagSet: fs, args: args}
}

func (f *flags) StringList(name, def, usage string) *[]*string {
	list := &stringList{}
	if def != "" {
		list.values = []*string{&def}
	}
	f.Var(list, name, usage)
	return &list.values
}

func (f *flags) ExtraUsage() string         { return f.extra }
func (f *flags) AddExtraUsage(extra string) { f.extra += extra }

func (f *flags) Parse(usage func()) []string {
	if err := f.FlagSet.Parse(f.args); err != nil || f.NArg() == 0 {
		usage()
		return nil
	}
	return f.Args()
}

// stringList is a flag that may be given many times.
type stringList struct{ values []*string }

func (l *stringList) String() string { return "" }
func (l *stringList) Set(v string) error {
	l.values = append(l.values, &v)
	return nil
}
