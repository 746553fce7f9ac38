// Package suite is the regression suite: small patches, kept as test
// data, each injecting one kind of regression into a copy of a real stage,
// and the detection matrix that says which gated figure caught each (or
// that none did), with the false alarms of unchanged reruns. The kinds of
// regression are declared here, once; each patch says in its header which
// kind it injects, into which benchmark, at which size, and which figure
// should catch it. Neutral patches, of no regression, are the corpus of a
// second matrix: how far changes that should not move a gated figure move
// it, and whether they set the gate off.
package suite

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"havlak-lab/tools/result"
)

// A Kind is a kind of regression: a kind of cost a change can add.
type Kind struct {
	Name string
	// Cost is what the regression costs, in words.
	Cost string
	// Absent says, per language, why the kind has no case in it: no
	// program of the lab in that language can have it.
	Absent map[string]string
	// Unsized says, per size of Sizes, why the kind has no case of that
	// size, in any language.
	Unsized map[string]string
	// Limit says what can let it through the gate on these VMs, shown
	// when a case of the kind is missed.
	Limit string
	// Catcher is what should catch it: the matrix names it when a case's
	// figure is not a gated figure of the checkout measured.
	Catcher string
}

// The languages of the matrix, in its order.
var Languages = []string{"Go", "C++"}

// The sizes of the cases, in the matrix's order: about 0.5%, 1%, 2% and
// 5% of the figure that should catch it, on the benchmark's quick workload
// (the asymptotic kind's are of its standard workload, where its cost
// shows). Every kind has the sizes its Unsized does not exclude.
var Sizes = []string{"0.5%", "1%", "2%", "5%"}

// smallSizes are the sizes under the 2% of the first cases, which issue 35
// asked of the kinds gated on counts calibrated down to a floor of 0.25%
// (an exact count) or 0.5% (another: tools/verdict's floors).
var smallSizes = []string{"0.5%", "1%"}

// unsizedSmall declares why for each of smallSizes.
func unsizedSmall(why string) map[string]string {
	m := map[string]string{}
	for _, size := range smallSizes {
		m[size] = why
	}
	return m
}

// Sizes are the sizes the kind has cases of, in the matrix's order.
func (k Kind) Sizes() []string {
	var sizes []string
	for _, size := range Sizes {
		if k.Unsized[size] == "" {
			sizes = append(sizes, size)
		}
	}
	return sizes
}

// Kinds are the kinds of regression of the matrix, in its order.
var Kinds = []Kind{
	{Name: "extra-work", Cost: "more instructions: work that was not needed",
		Limit:   "none known: instruction counts under Cachegrind are exact for C++ and, attributed to the program's own functions, for Go",
		Catcher: "Cachegrind's instruction counts"},
	{Name: "locality", Cost: "more cache misses at the same instruction count: a scattered layout or traversal",
		Limit: "no hardware counters in these VMs (perf stat: <not supported>): only Cachegrind's simulated caches see it, if that figure is recorded and gated; " +
			"a Go program's own D1 misses move by up to 0.19% unchanged (its runtime's work among them), so their threshold, five times that noise, is about 0.95%: Go's 0.5% case is under it, and 1% is the smallest size caught in Go",
		Catcher: "Cachegrind's cache simulation (issue 28, item 1)"},
	{Name: "allocations", Cost: "more heap allocations: allocator and collector work",
		Limit: "allocation counts are gated only where they are exact from run to run (a C++ program's, from tcmalloc; a Go program's where its benchmark declares them so); " +
			"a Go server's allocations per request move by up to 0.24% unchanged (router_naive, 20.69 to 20.74 objects), so a threshold calibrated from them, five times that noise, is about 1.2%, capped at the declared 1%: Go's 0.5% case is under it, and 1% is the smallest size caught in Go",
		Catcher: "allocation counts: tcmalloc's for C++, the counted runs' for Go (issue 28, item 1)"},
	{Name: "syscalls", Cost: "more system calls: kernel entries, each thousands of cycles",
		Absent:  map[string]string{"C++": "the lab has no C++ program whose quick workload makes system calls in a loop (word count's stages are Go; the C++ Havlak stages generate their graph and print a few lines)"},
		Unsized: unsizedSmall("not made: issue 35 asked the sizes under 2% of extra work, locality, allocations and asymptotic growth only (" + result.MetricReadSyscalls + " is an exact count, as C++ instructions are, whose 0.5% case is expected caught)"),
		Limit:   "system calls are counted exactly only where the runner records them (/proc/PID/io)",
		Catcher: "read and write system calls from /proc/PID/io (issue 28, item 1)"},
	{Name: "contention", Cost: "more lock contention in a server: waiting, not working",
		Absent:  map[string]string{"C++": "the server study (go/router) has no C++ stage"},
		Unsized: unsizedSmall("the figure meant to catch contention is shown, not gated: a change it cannot gate at 2% or 5% says nothing more at 1% or 0.5%"),
		Limit: "contention costs waiting time, not instructions: throughput and latency show it only past the wide timing rule (15% and the U test; a quick test's one round, only a tenfold change); " +
			"of the figures that measure it, shown, not gated, the mutex wait per CPU second does not tell 2 shards from 64 on these 2-core VMs (20 runs of each overlap), " +
			"and the own lock contentions per request, which does (20 runs of 2 s rounds: 246 to 1,179 a million requests at 2 shards, 0 to 72 at 64), are a few a round unchanged and often none: " +
			"a threshold relative to a figure that can be zero raises false alarms (88 of 380 pairs of unchanged quick rounds by the factor of 10; 12 of 380 pairs of 5-round runs at five times the noise), so no size is caught (docs/records/noise.md)",
		Catcher: "the server's own lock contentions per request (" + result.MetricOwnContentions + ", from its mutex profile), shown, not gated"},
	{Name: "asymptotic", Cost: "work that grows faster with the input (linear to quadratic in one pass), under 1% at the quick size",
		Limit: "the counted figures are taken on the quick workload, where a quadratic pass stays under the threshold by design: only the sweep over workload sizes, with its fitted order, sees it, and the quick sweep spans 1 to 8 trees, where work of 2%, 1% and 0.5% at the standard size moved the fitted coefficient by +0.70%, +0.35% and +0.18% (C++), +0.73%, +0.46% and +0.30% (Go); " +
			"the growth's threshold, calibrated from the base's fit, is its floor of 0.25% (the coefficient moved 0% in C++'s reruns, 0.0051% in Go's): C++'s 0.5% case is under it, and Go's is over it by a twentieth of a percent only",
		Catcher: "the quick test's sweep over workload sizes and its fitted growth (issue 28, item 2)"},
}

// Neutral is the kind of a case that injects no regression: a change that
// computes the same and does the same work (a string reworded, functions
// reordered or moved, a local renamed), which the gate should let through
// untouched. Not one of Kinds: those are the detection matrix's, and a
// neutral case has no size and no figure meant to catch it.
const Neutral = "neutral"

// KindNamed returns the declared kind called name.
func KindNamed(name string) (Kind, bool) {
	for _, k := range Kinds {
		if k.Name == name {
			return k, true
		}
	}
	return Kind{}, false
}

// A Loosening is a change of the gate that a benchmark's own result
// declares for the figure meant to catch a case, made by the case's patch
// beside its regression: the base's declaration judges the change all the
// same (verdict.Policy.Compare), so the case is caught, and the verdict
// says what the change tried (verdict.Verdict.Loosened).
type Loosening struct {
	// Name is the patch header's Loosens value.
	Name string
	// Row is how the matrix names it, after the kind.
	Row string
}

// Loosenings are the loosenings a case can make, in the matrix's order.
// Neither is declared per benchmark in its BUILD file (perf_benchmark has
// no threshold, and a C++ program's instructions are always gated), so
// the patches edit what sets them in every result: the runner's
// countThreshold, cachegrind.Metrics's gate of a C++ count.
var Loosenings = []Loosening{
	{Name: "threshold", Row: "its own threshold raised to 100%"},
	{Name: "gated", Row: "its own `gated` dropped"},
}

// LooseningNamed returns the declared loosening called name.
func LooseningNamed(name string) (Loosening, bool) {
	for _, l := range Loosenings {
		if l.Name == name {
			return l, true
		}
	}
	return Loosening{}, false
}

// A Case is one patch: one kind of regression, in one benchmark, at one
// size, and maybe a loosening of the benchmark's own gate; or a neutral
// change, in every benchmark it reaches.
type Case struct {
	// Name is the patch file's name without .patch.
	Name string
	// Path is the patch file.
	Path     string
	Kind     string
	Language string
	// Size is "" for a neutral case.
	Size string
	// Benchmarks are the benchmarks the patch is measured in: the one a
	// regression is injected into, or each one a neutral change reaches.
	Benchmarks []string
	// Figure is the figure that should catch it; "" for a neutral case.
	Figure string
	// What the patch does, in words.
	What string
	// Loosens is the Loosening's name the patch makes, or "": the case
	// is then expected caught by Figure, its verdict saying so.
	Loosens string
}

// IsNeutral tells whether the case is a neutral change, not a regression.
func (c Case) IsNeutral() bool { return c.Kind == Neutral }

// Cell is the case's place in the matrix: no two cases share one. Neutral
// cases are each a row of their own, of the neutral matrix.
func (c Case) Cell() string {
	if c.IsNeutral() {
		return Neutral + " " + c.Name
	}
	cell := c.Kind + " " + c.Language + " " + c.Size + " in " + strings.Join(c.Benchmarks, ", ")
	if c.Loosens != "" {
		cell += " loosening " + c.Loosens
	}
	return cell
}

// The header's keys, each required once, before the first blank line;
// optionalKeys may be given once too. A neutral case requires neutralKeys
// only, names each benchmark it reaches on a Benchmark line of its own,
// and takes none of the keys of an expected move (the others).
var (
	headerKeys   = []string{"Kind", "Language", "Size", "Benchmark", "Figure", "What"}
	optionalKeys = []string{"Loosens"}
	neutralKeys  = []string{"Kind", "Language", "Benchmark", "What"}
)

var figureName = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)

// MaxPatchSize bounds a patch file: the suite's are a few KiB.
const MaxPatchSize = 64 << 10

// ParseCase reads a patch file's header: "Key: value" lines, then a blank
// line, then a diff that git apply takes (it skips the header). Errors
// name the file and line.
func ParseCase(path string, data []byte) (Case, error) {
	c := Case{Name: strings.TrimSuffix(filepath.Base(path), ".patch"), Path: path}
	if len(data) > MaxPatchSize {
		return c, fmt.Errorf("%s: %d bytes, over %d", path, len(data), MaxPatchSize)
	}
	// keyLines are the lines each key was given on, in order.
	keyLines := map[string][]int{}
	scanner := bufio.NewScanner(bytes.NewReader(data))
	line := 0
	for scanner.Scan() {
		line++
		text := scanner.Text()
		if text == "" {
			break
		}
		key, value, ok := strings.Cut(text, ": ")
		value = strings.TrimSpace(value)
		if !ok || value == "" {
			return c, fmt.Errorf("%s:%d: %q: want \"Key: value\" (the header ends at a blank line)", path, line, text)
		}
		// Only a neutral case names several benchmarks, which its Kind,
		// maybe on a later line, says: checked after the header.
		if len(keyLines[key]) > 0 && key != "Benchmark" {
			return c, fmt.Errorf("%s:%d: %s given twice", path, line, key)
		}
		keyLines[key] = append(keyLines[key], line)
		switch key {
		case "Kind":
			if _, ok := KindNamed(value); !ok && value != Neutral {
				return c, fmt.Errorf("%s:%d: kind %q: not one of the suite's kinds (%s) nor %s", path, line, value, kindNames(), Neutral)
			}
			c.Kind = value
		case "Language":
			if !contains(Languages, value) {
				return c, fmt.Errorf("%s:%d: language %q: want one of %s", path, line, value, strings.Join(Languages, ", "))
			}
			c.Language = value
		case "Size":
			if !contains(Sizes, value) {
				return c, fmt.Errorf("%s:%d: size %q: want one of %s", path, line, value, strings.Join(Sizes, ", "))
			}
			c.Size = value
		case "Benchmark":
			if err := result.CheckName(value); err != nil {
				return c, fmt.Errorf("%s:%d: benchmark: %v", path, line, err)
			}
			if slices.Contains(c.Benchmarks, value) {
				return c, fmt.Errorf("%s:%d: benchmark %s given twice", path, line, value)
			}
			c.Benchmarks = append(c.Benchmarks, value)
		case "Figure":
			if !figureName.MatchString(value) {
				return c, fmt.Errorf("%s:%d: figure %q: want a result's metric name (%s)", path, line, value, result.MetricOwnInstructions)
			}
			c.Figure = value
		case "What":
			c.What = value
		case "Loosens":
			if _, ok := LooseningNamed(value); !ok {
				return c, fmt.Errorf("%s:%d: loosens %q: not one of the suite's loosenings (%s)", path, line, value, looseningNames())
			}
			c.Loosens = value
		default:
			return c, fmt.Errorf("%s:%d: unknown key %q: want %s", path, line, key, strings.Join(append(headerKeys, optionalKeys...), ", "))
		}
	}
	required := headerKeys
	if c.IsNeutral() {
		required = neutralKeys
	}
	for _, key := range required {
		if len(keyLines[key]) == 0 {
			return c, fmt.Errorf("%s: the header has no %s", path, key)
		}
	}
	if !bytes.Contains(data, []byte("\ndiff --git a/")) {
		return c, fmt.Errorf("%s: no diff after the header (want git diff's output)", path)
	}
	if c.IsNeutral() {
		for _, key := range append(headerKeys, optionalKeys...) {
			if lines := keyLines[key]; len(lines) > 0 && !slices.Contains(neutralKeys, key) {
				return c, fmt.Errorf("%s:%d: a neutral case has no %s: it expects no move", path, lines[0], key)
			}
		}
		return c, nil
	}
	if lines := keyLines["Benchmark"]; len(lines) > 1 {
		return c, fmt.Errorf("%s:%d: Benchmark given twice (only a neutral case names several)", path, lines[1])
	}
	if k, _ := KindNamed(c.Kind); k.Absent[c.Language] != "" {
		return c, fmt.Errorf("%s: the suite declares %s absent in %s: %s", path, c.Kind, c.Language, k.Absent[c.Language])
	}
	if k, _ := KindNamed(c.Kind); k.Unsized[c.Size] != "" {
		return c, fmt.Errorf("%s:%d: the suite declares no %s case of %s: %s", path, keyLines["Size"][0], c.Kind, c.Size, k.Unsized[c.Size])
	}
	return c, nil
}

// LoadCases reads every *.patch file of dir, sorted by name, and checks
// that no two inject the same kind into the same benchmark at the same
// size, loosening the same or nothing (Case.Cell).
func LoadCases(dir string) ([]Case, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.patch"))
	if err != nil {
		return nil, err
	}
	if len(paths) == 0 {
		return nil, fmt.Errorf("%s: no *.patch files", dir)
	}
	sort.Strings(paths)
	var cases []Case
	cells := map[string]string{}
	for _, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, err
		}
		c, err := ParseCase(path, data)
		if err != nil {
			return nil, err
		}
		cell := c.Cell()
		if other, ok := cells[cell]; ok {
			return nil, fmt.Errorf("%s and %s both inject %s", other, path, cell)
		}
		cells[cell] = path
		cases = append(cases, c)
	}
	return cases, nil
}

func kindNames() string {
	var names []string
	for _, k := range Kinds {
		names = append(names, k.Name)
	}
	return strings.Join(names, ", ")
}

func looseningNames() string {
	return strings.Join(looseningNamesList(), ", ")
}

func looseningNamesList() []string {
	var names []string
	for _, l := range Loosenings {
		names = append(names, l.Name)
	}
	return names
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
