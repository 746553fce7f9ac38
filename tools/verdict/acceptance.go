package verdict

import (
	"fmt"
	"regexp"
	"strings"

	"havlak-lab/tools/result"
)

// An Acceptance is a regression of one benchmark's figure that a change
// declares intended, with its reason: a commit message's trailer
// "Perf-Accepted: BENCHMARK FIGURE: REASON", passed between commands as
// "BENCHMARK:FIGURE:REASON" (String, ParseAcceptance). An accepted
// regression is shown with its reason and does not fail.
type Acceptance struct {
	// Benchmark is "" where the benchmark is implied (summary.json keeps
	// each benchmark's acceptances with it).
	Benchmark string `json:"benchmark,omitempty"`
	Figure    string `json:"figure"`
	Reason    string `json:"reason"`
}

// String is the acceptance as ParseAcceptance reads it.
func (a Acceptance) String() string { return a.Benchmark + ":" + a.Figure + ":" + a.Reason }

// figureName is what a figure's name can be in an acceptance: one word,
// as the trailer separates the figure from its reason by a colon.
var figureName = regexp.MustCompile(`^[A-Za-z0-9_]+$`)

// acceptance checks the parts of an acceptance, wherever it was read.
func acceptance(benchmark, figure, reason string) (Acceptance, error) {
	a := Acceptance{Benchmark: benchmark, Figure: figure, Reason: strings.TrimSpace(reason)}
	if err := result.CheckName(a.Benchmark); err != nil {
		return Acceptance{}, err
	}
	if !figureName.MatchString(a.Figure) {
		return Acceptance{}, fmt.Errorf("figure %q: want letters, digits and _", a.Figure)
	}
	if a.Reason == "" {
		return Acceptance{}, fmt.Errorf("no reason: an accepted regression says why")
	}
	return a, nil
}

// ParseAcceptance reads "BENCHMARK:FIGURE:REASON".
func ParseAcceptance(text string) (Acceptance, error) {
	parts := strings.SplitN(text, ":", 3)
	if len(parts) != 3 {
		return Acceptance{}, fmt.Errorf("%q: want BENCHMARK:FIGURE:REASON", text)
	}
	a, err := acceptance(parts[0], parts[1], parts[2])
	if err != nil {
		return Acceptance{}, fmt.Errorf("%q: %w", text, err)
	}
	return a, nil
}

// TrailerKey starts the trailer of an accepted regression.
const TrailerKey = "Perf-Accepted:"

var trailer = regexp.MustCompile(`^Perf-Accepted:[ \t]*(\S+)[ \t]+([^:\s]+):(.*)$`)

// ParseTrailers reads the Perf-Accepted trailers of commit messages. A
// trailer that names no benchmark, figure or reason is an error, with the
// line.
func ParseTrailers(messages string) ([]Acceptance, error) {
	var all []Acceptance
	for _, line := range strings.Split(messages, "\n") {
		if !strings.HasPrefix(line, TrailerKey) {
			continue
		}
		m := trailer.FindStringSubmatch(strings.TrimRight(line, " \t\r"))
		if m == nil {
			return nil, fmt.Errorf("%q: want \"Perf-Accepted: BENCHMARK FIGURE: REASON\"", line)
		}
		a, err := acceptance(m[1], m[2], m[3])
		if err != nil {
			return nil, fmt.Errorf("%q: %w", line, err)
		}
		all = append(all, a)
	}
	return all, nil
}

// Accepted is the acceptance of benchmark's figure among all, if any.
func Accepted(all []Acceptance, benchmark, figure string) (Acceptance, bool) {
	for _, a := range all {
		if a.Benchmark == benchmark && a.Figure == figure {
			return a, true
		}
	}
	return Acceptance{}, false
}
