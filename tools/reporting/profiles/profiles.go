// Package profiles summarises pprof profiles for the report: the top
// functions of a profile, its flame graph, and the contention a mutex or
// block profile recorded.
package profiles

import (
	"fmt"
	"html"
	"math"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/profilediff"
)

// sampleIndex picks the value to weigh a profile's samples by: CPU time
// when there is one, else the last sample type (pprof's default).
func sampleIndex(p *profile.Profile) int {
	for i, st := range p.SampleType {
		if st.Type == "cpu" {
			return i
		}
	}
	return len(p.SampleType) - 1
}

// stack returns a sample's functions from the root (main) to the leaf, with
// inlined calls as frames of their own: the profile diffs' frames.
func stack(s *profile.Sample) []string { return profilediff.Stack(s) }

// A FuncStat is a function's share of a profile.
type FuncStat struct {
	Name     string
	Value    int64
	Fraction float64
}

// A Top is a profile's n functions with the most flat and the most
// cumulative weight (TopFunctions): what a table of it shows.
type Top struct {
	Flat, Cum []FuncStat
}

// TopOf is TopFunctions as a Top.
func TopOf(p *profile.Profile, n int) Top {
	flat, cum := TopFunctions(p, n)
	return Top{flat, cum}
}

// TopFunctions returns the n functions with the most flat (leaf) and the
// most cumulative (on the stack) weight.
func TopFunctions(p *profile.Profile, n int) (flat, cum []FuncStat) {
	index := sampleIndex(p)
	flatBy, cumBy := map[string]int64{}, map[string]int64{}
	total := profilediff.Weights(p, index, 1, flatBy, cumBy)
	top := func(by map[string]int64) []FuncStat {
		var stats []FuncStat
		for name, v := range by {
			stats = append(stats, FuncStat{Name: name, Value: v})
		}
		sort.Slice(stats, func(i, j int) bool {
			if stats[i].Value != stats[j].Value {
				return stats[i].Value > stats[j].Value
			}
			return stats[i].Name < stats[j].Name
		})
		if len(stats) > n {
			stats = stats[:n]
		}
		for i := range stats {
			if total > 0 {
				stats[i].Fraction = float64(stats[i].Value) / float64(total)
			}
		}
		return stats
	}
	return top(flatBy), top(cumBy)
}

// frame is a node of a flame graph: a function called along one path.
type frame struct {
	name     string
	value    int64
	children map[string]*frame
}

func (f *frame) child(name string) *frame {
	c := f.children[name]
	if c == nil {
		c = &frame{name: name, children: map[string]*frame{}}
		f.children[name] = c
	}
	return c
}

// Flame graph geometry, in SVG pixels.
const (
	flameWidth    = 1200
	flameRow      = 18
	flameCharWide = 7 // of the 12px monospace labels
)

// FlameGraph renders p as a self-contained SVG flame graph: the root at
// the bottom, each function as wide as its share of the samples, callees
// above their callers. Direct recursion is folded into one frame (a
// recursive DFS would otherwise stack hundreds of them). Hovering shows a
// frame's name and share.
func FlameGraph(p *profile.Profile, title string) []byte {
	index := sampleIndex(p)
	root := &frame{name: "all", children: map[string]*frame{}}
	for _, s := range p.Sample {
		v := s.Value[index]
		root.value += v
		f := root
		for _, name := range stack(s) {
			if name == f.name {
				continue
			}
			f = f.child(name)
			f.value += v
		}
	}
	depth := 0
	var measure func(f *frame, d int)
	measure = func(f *frame, d int) {
		depth = max(depth, d)
		for _, c := range f.children {
			measure(c, d+1)
		}
	}
	measure(root, 1)

	height := (depth+2)*flameRow + 10
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="monospace" font-size="12">`,
		flameWidth, height, flameWidth, height)
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fdfdf5"/><text x="%d" y="14" text-anchor="middle" font-size="14">%s</text>`,
		flameWidth/2, html.EscapeString(title))
	if root.value == 0 {
		fmt.Fprintf(&b, `<text x="%d" y="40" text-anchor="middle">no samples</text></svg>`, flameWidth/2)
		return []byte(b.String())
	}
	scale := float64(flameWidth) / float64(root.value)
	var draw func(f *frame, x float64, d int)
	draw = func(f *frame, x float64, d int) {
		w := float64(f.value) * scale
		if w < 0.3 {
			return
		}
		y := height - (d+1)*flameRow
		share := 100 * float64(f.value) / float64(root.value)
		name := html.EscapeString(f.name)
		fmt.Fprintf(&b, `<g class="frame"><title>%s (%.2f%%)</title><rect x="%.2f" y="%d" width="%.2f" height="%d" fill="%s" rx="2"/>`,
			name, share, x, y, math.Max(w-0.5, 0.1), flameRow-1, flameColor(f.name))
		if chars := int(w-6) / flameCharWide; chars >= 3 {
			label := f.name
			if len(label) > chars {
				label = label[:chars-2] + ".."
			}
			fmt.Fprintf(&b, `<text x="%.2f" y="%d">%s</text>`, x+3, y+13, html.EscapeString(label))
		}
		b.WriteString("</g>")
		// Children left to right by name, so that graphs of two runs line up.
		names := make([]string, 0, len(f.children))
		for name := range f.children {
			names = append(names, name)
		}
		sort.Strings(names)
		for _, name := range names {
			c := f.children[name]
			draw(c, x, d+1)
			x += float64(c.value) * scale
		}
	}
	draw(root, 0, 1)
	b.WriteString("</svg>\n")
	return []byte(b.String())
}

// flameColor gives each function a stable warm colour.
func flameColor(name string) string {
	var h uint32 = 2166136261
	for i := 0; i < len(name); i++ {
		h = (h ^ uint32(name[i])) * 16777619
	}
	return fmt.Sprintf("rgb(%d,%d,%d)", 205+h%50, 80+(h>>8)%130, 40+(h>>16)%50)
}
