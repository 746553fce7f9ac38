// Package profilediff compares a baseline's profile with a new one the way
// pprof's -diff_base does: the baseline's samples are subtracted from the
// new profile's, so a function's flat and cumulative weights become what
// it gained (positive) or lost (negative). The report (//tools/report)
// puts a table and pprof's diff graph beside every regression, and its
// one-line summaries are for the nightly job's annotation.
package profilediff

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/internal/markdown"
	"havlak-lab/internal/pprofdriver"
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
	var errs bytes.Buffer
	svg, err := pprofdriver.Run(pprofdriver.Options{
		Args: []string{"-svg", "-symbolize=none", "-sample_index=" + new.SampleType[ni].Type,
			"-diff_base=base", "-output=diff.svg", "new"},
		Profiles: map[string]*profile.Profile{"base": base, "new": new},
		// pprof's messages explain a failure.
		UI: pprofdriver.UI{PrintErr: func(args ...any) { fmt.Fprintln(&errs, args...) }},
	})
	if err == nil && len(svg) == 0 {
		err = errors.New("pprof wrote no graph")
	}
	if err != nil {
		return nil, fmt.Errorf("pprof -svg -diff_base: %w: %s", err, strings.TrimSpace(errs.String()))
	}
	return svg, nil
}
