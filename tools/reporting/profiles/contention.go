package profiles

import (
	"fmt"
	"sort"
	"strings"

	"github.com/google/pprof/profile"

	"havlak-lab/internal/markdown"
)

// Contention is what a mutex or block profile recorded, without the
// profiler's own waiting (net/http/pprof's handlers sleep while they take
// a profile): the total delay, and the sites that waited most, a site
// being the first function on the stack outside the runtime and sync.
type Contention struct {
	Seconds    float64 // total delay
	Events     int64
	Window     float64 // the profile's duration, seconds
	Sites      []FuncStat
	HasProfile bool
}

// Contended summarises a mutex or block profile, with its n top sites; a
// nil profile is a Contention without a profile.
func Contended(p *profile.Profile, n int) Contention {
	if p == nil {
		return Contention{}
	}
	c := Contention{HasProfile: true, Window: float64(p.DurationNanos) / 1e9}
	delay, count := -1, -1
	for i, st := range p.SampleType {
		switch st.Type {
		case "delay":
			delay = i
		case "contentions":
			count = i
		}
	}
	if delay < 0 {
		return c
	}
	sites := map[string]int64{}
	var total int64
sample:
	for _, s := range p.Sample {
		frames := stack(s)
		for _, f := range frames {
			if strings.HasPrefix(f, "net/http/pprof.") || strings.HasPrefix(f, "runtime/pprof.") {
				continue sample
			}
		}
		v := s.Value[delay]
		total += v
		if count >= 0 {
			c.Events += s.Value[count]
		}
		site := "(runtime)"
		for i := len(frames) - 1; i >= 0; i-- {
			f := frames[i]
			if !strings.HasPrefix(f, "runtime.") && !strings.HasPrefix(f, "sync.") && !strings.HasPrefix(f, "internal/") && !strings.HasPrefix(f, "_.") {
				site = f
				break
			}
		}
		sites[site] += v
	}
	c.Seconds = float64(total) / 1e9 // delay is in nanoseconds
	for name, v := range sites {
		c.Sites = append(c.Sites, FuncStat{Name: name, Value: v, Fraction: float64(v) / float64(max(total, 1))})
	}
	sort.Slice(c.Sites, func(i, j int) bool {
		if c.Sites[i].Value != c.Sites[j].Value {
			return c.Sites[i].Value > c.Sites[j].Value
		}
		return c.Sites[i].Name < c.Sites[j].Name
	})
	if len(c.Sites) > n {
		c.Sites = c.Sites[:n]
	}
	return c
}

// Text describes the contention in a table cell.
func (c Contention) Text() string {
	if !c.HasProfile {
		return "–"
	}
	if c.Seconds == 0 {
		return "none"
	}
	var sites []string
	for _, s := range c.Sites {
		sites = append(sites, fmt.Sprintf("%s %.0f%%", markdown.Code(s.Name), 100*s.Fraction))
	}
	return fmt.Sprintf("%s in %.1f s (%d events): %s", Duration(c.Seconds), c.Window, c.Events, strings.Join(sites, ", "))
}

// Duration shows seconds in the unit that suits them.
func Duration(seconds float64) string {
	switch {
	case seconds >= 1:
		return fmt.Sprintf("%.2f s", seconds)
	case seconds >= 1e-3:
		return fmt.Sprintf("%.2f ms", seconds*1e3)
	}
	return fmt.Sprintf("%.0f µs", seconds*1e6)
}

// Short is a contention's total and first site.
func (c Contention) Short() string {
	switch {
	case !c.HasProfile:
		return "–"
	case c.Seconds == 0 || len(c.Sites) == 0:
		return "none"
	}
	return fmt.Sprintf("%s, %.0f%% at %s", Duration(c.Seconds), 100*c.Sites[0].Fraction, markdown.Code(c.Sites[0].Name))
}
