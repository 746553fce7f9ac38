package night

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/perf/perfspec"
	"havlak-lab/tools/reporting/model"
	"havlak-lab/tools/result"
	"havlak-lab/tools/summary"
	verdictlib "havlak-lab/tools/verdict"
)

// Layout noise in the nightly: a night and its baseline are builds of
// different commits, different binaries, and where the linker and the
// allocator put a program's code and data moves its cache misses by more
// than its reruns ever do (verdict.Calibrate). The night keeps the counts
// of each benchmark's program and of its layout variants
// (nightdir.LayoutVariants), a promoted night keeps them as the
// baseline, and the baseline's calibrate the next night's figures that
// layout moves, as the perf check's base's calibrate a change's: through
// summary.ReadLayout and verdict.Side's Layout.

// A layoutSet is what a night's layout variants say of its benchmarks.
type layoutSet struct {
	// noise is, by benchmark, summary.ReadLayout of its program's count
	// and its variants'.
	noise map[string]map[result.FigureKey][]float64
	// refused are, by benchmark ("" for the directory itself), what
	// could not be read or is not what the night keeps there, for the
	// log: a night that keeps it fails.
	refused map[string]string
}

// readLayouts reads the layout variants the night in dir keeps
// (nightdir.LayoutVariants); a night without them has none (an old
// baseline's, promoted before the nightly counted them).
func readLayouts(dir string) layoutSet {
	set := layoutSet{noise: map[string]map[result.FigureKey][]float64{}, refused: map[string]string{}}
	root := filepath.Join(dir, nightdir.LayoutVariants)
	entries, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return set
	}
	if err != nil {
		set.refused[""] = err.Error()
		return set
	}
	for _, e := range entries {
		benchmark := e.Name()
		if !e.IsDir() || e.Type()&os.ModeSymlink != 0 {
			set.refused[benchmark] = filepath.Join(root, benchmark) + ": not a benchmark's directory of counts"
			continue
		}
		noise, err := readLayout(dir, benchmark)
		if err != nil {
			set.refused[benchmark] = fmt.Sprintf("%s's layout variants: %v", benchmark, err)
			continue
		}
		set.noise[benchmark] = noise
	}
	return set
}

// readLayout reads benchmark's counts in the night dir: its program's
// (0.zip), which must count benchmark, and its variants' (1.zip, 2.zip,
// ...), which summary.ReadLayout checks counted what it did.
func readLayout(dir, benchmark string) (map[result.FigureKey][]float64, error) {
	entries, err := os.ReadDir(filepath.Dir(nightdir.LayoutCount(dir, benchmark, 0)))
	if err != nil {
		return nil, err
	}
	var variants []int
	for _, e := range entries {
		n, err := strconv.Atoi(strings.TrimSuffix(e.Name(), ".zip"))
		if err != nil || n < 0 || e.Name() != strconv.Itoa(n)+".zip" || !e.Type().IsRegular() {
			return nil, fmt.Errorf("%s: not a count the night keeps (a regular file N.zip)", e.Name())
		}
		if n > 0 {
			variants = append(variants, n)
		}
	}
	slices.Sort(variants)
	if len(variants) == 0 {
		return nil, errors.New("no layout variant")
	}
	own := nightdir.LayoutCount(dir, benchmark, 0)
	r, out, err := result.Read(own)
	if out != nil {
		defer out.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("its program's count: %w", err)
	}
	if r.Benchmark.Name != benchmark || r.Environment.Build.Config != result.ConfigCounts {
		return nil, fmt.Errorf("%s: the count of %s, config %q: want %s's, of config %q", own, r.Benchmark.Name,
			r.Environment.Build.Config, benchmark, result.ConfigCounts)
	}
	figures, err := result.Figures(r, out)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", own, err)
	}
	var paths []string
	for _, v := range variants {
		paths = append(paths, nightdir.LayoutCount(dir, benchmark, v))
	}
	noise, _, err := summary.ReadLayout(summary.Side{Benchmark: r.Benchmark, Side: verdictlib.Side{Figures: figures}}, paths)
	return noise, err
}

// calibrateLayout gives each of the baseline's programs and servers, base,
// the layout noise of layouts, the baseline's, and names, a line each,
// those judged tonight (tonight: their identities, by benchmark) by
// another binary whose figures that layout moves are judged without it:
// the baseline keeps none of them, as one promoted before the nightly
// counted them, or keeps what could not be read (layouts.refused). The
// comparison applies the noise only between different binaries
// (verdict.Policy.Compare), so it is named only there.
func calibrateLayout(base []*summary.Side, layouts layoutSet, tonight map[string]*result.Identity) []string {
	var unknown []string
	for _, s := range base {
		name := s.Benchmark.Name
		if noise, ok := layouts.noise[name]; ok {
			s.Layout = noise
			continue
		}
		id, judged := tonight[name]
		if !judged || (id != nil && s.Identity != nil && *id == *s.Identity) ||
			!slices.ContainsFunc(s.Figures, func(f result.Figure) bool { return len(f.Values) > 0 && result.MovedByLayout(f.Cost) }) {
			continue
		}
		why := "the baseline keeps no layout variants of it"
		if _, refused := layouts.refused[name]; refused {
			why = "the baseline's layout variants of it could not be read"
		}
		unknown = append(unknown, name+": "+why)
	}
	return unknown
}

// readLayoutVariants reads the baseline's layout variants, which calibrate
// tonight's figures, and tonight's own, which the baseline is to keep if
// tonight is promoted: what either keeps and cannot be read fails the
// night (v), named in the log and the run's record, as the perf check
// fails on a base's variants it could not read; the figures are then
// judged without that benchmark's layout noise, never with a guess.
func (n *night) readLayoutVariants(v *verdict) layoutSet {
	var base layoutSet
	for _, side := range []struct {
		which, dir string
		read       bool
	}{{"the baseline's", n.baseline, n.hasBaseline()}, {"tonight's", n.artifacts, true}} {
		if !side.read {
			continue
		}
		set := readLayouts(side.dir)
		for _, benchmark := range slices.Sorted(maps.Keys(set.refused)) {
			fmt.Fprintf(n.stderr, "nightly: %s layout variants: %s\n", side.which, cli.Field(set.refused[benchmark]))
			name := benchmark
			if name == "" {
				name = nightdir.LayoutVariants
			}
			n.run.layoutRefused = append(n.run.layoutRefused, side.which+" "+name)
			v.layoutUnreadable = true
		}
		if side.dir == n.baseline {
			base = set
		}
	}
	return base
}

// reportSides are the sides of a report's programs and servers, to
// calibrate in place.
func reportSides(set *model.Set) []*summary.Side {
	var sides []*summary.Side
	for _, r := range set.Results {
		sides = append(sides, &r.Side)
	}
	for _, s := range set.Servers {
		sides = append(sides, &s.Side)
	}
	return sides
}

// identities are the identities of a report's programs and servers, by
// benchmark (nil for a result that has none).
func identities(set *model.Set) map[string]*result.Identity {
	ids := map[string]*result.Identity{}
	for _, s := range reportSides(set) {
		ids[s.Benchmark.Name] = s.Identity
	}
	return ids
}

// copyLayoutVariants copies the layout variants' counts the night in from
// keeps into the night dir to, each a file appearing whole (copyCapped),
// for the baseline and the history's archive to keep with the results;
// it returns the directories it wrote, for a caller that syncs them.
func copyLayoutVariants(from, to string) (dirs []string, err error) {
	root := filepath.Join(from, nightdir.LayoutVariants)
	if !isDir(root) {
		return nil, nil
	}
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(from, path)
		if err != nil {
			return err
		}
		if d.IsDir() {
			// Each directory is synced with the copies it names.
			dirs = append(dirs, filepath.Join(to, rel))
			return nil
		}
		return copyCapped(path, filepath.Join(to, rel))
	})
	return dirs, err
}

// checkLayoutCopy checks that the night dir keeps the layout variants
// from keeps, as the same layout noise, and no others.
func checkLayoutCopy(from, dir string) error {
	want, got := readLayouts(from), readLayouts(dir)
	if len(got.refused) > 0 || !reflect.DeepEqual(got.noise, want.noise) {
		return fmt.Errorf("%s: not the layout variants judged", filepath.Join(dir, nightdir.LayoutVariants))
	}
	return nil
}

// LayoutTargets are the count actions the night builds beside its tests:
// of each benchmark of the manifest with layout variants whose full-size
// test is among tests (all of them when tests is empty), its program's
// count target and its variants', one label a line to stdout, for
// `bazel test` to build with the tests (`nightly counts`).
func LayoutTargets(manifest string, tests []string, stdout io.Writer) error {
	m, err := perfspec.ReadManifest(cli.UserPath(manifest))
	if err != nil {
		return cli.UsageError{Err: err}
	}
	for _, b := range m.Benchmarks {
		own, counted := b.Targets[result.ConfigCounts]
		test := b.Targets[result.ConfigPerf].Label
		if !counted || len(b.LayoutVariants) == 0 || (len(tests) > 0 && !slices.Contains(tests, test)) {
			continue
		}
		fmt.Fprintln(stdout, own.Label)
		for _, v := range b.LayoutVariants {
			fmt.Fprintln(stdout, v.Label)
		}
	}
	return nil
}

// CollectLayoutVariants copies into the night dest the counts of the
// manifest's benchmarks whose full-size test collect copied (a test's
// name in dest): its program's count and its layout variants', from
// bazelBin (bazel-bin, resolved before `bazel run` moves it) where the
// manifest puts them, to nightdir.LayoutCount. A count the build event
// file events does not say was built, whole, tonight is an error naming
// it, and is not copied: an older build's zip must not pass for
// tonight's. It returns the benchmarks whose counts it copied.
func CollectLayoutVariants(manifest, events, bazelBin, dest string) ([]string, error) {
	m, err := perfspec.ReadManifest(cli.UserPath(manifest))
	if err != nil {
		return nil, cli.UsageError{Err: err}
	}
	events, bazelBin, dest = cli.UserPath(events), cli.UserPath(bazelBin), cli.UserPath(dest)
	built, err := builtTargets(events)
	if err != nil {
		return nil, err
	}
	var copied []string
	var failed []string
	for _, b := range m.Benchmarks {
		own, counted := b.Targets[result.ConfigCounts]
		test := b.Targets[result.ConfigPerf].Label
		if !counted || len(b.LayoutVariants) == 0 || test == "" || !isFile(result.NightZip(dest, test[strings.LastIndex(test, ":")+1:])) {
			continue
		}
		if err := result.CheckName(b.Name); err != nil {
			return copied, fmt.Errorf("benchmark %q: %v", b.Name, err)
		}
		for v, t := range append([]perfspec.ManifestTarget{own}, b.LayoutVariants...) {
			if !built[t.Label] {
				failed = append(failed, t.Label+": not built tonight, as the build event file says")
				continue
			}
			if err := copyCapped(filepath.Join(bazelBin, filepath.FromSlash(t.Output)), nightdir.LayoutCount(dest, b.Name, v)); err != nil {
				failed = append(failed, fmt.Sprintf("%s: %v", t.Label, err))
			}
		}
		copied = append(copied, b.Name)
	}
	if len(failed) > 0 {
		return copied, fmt.Errorf("the layout variants' counts (%d not collected):\n  %s", len(failed), strings.Join(failed, "\n  "))
	}
	return copied, nil
}

// builtTargets are the targets a build event file says were built whole
// (a TargetComplete event of success).
func builtTargets(path string) (map[string]bool, error) {
	type event struct {
		ID struct {
			TargetCompleted *struct {
				Label string `json:"label"`
			} `json:"targetCompleted"`
		} `json:"id"`
		Completed struct {
			Success bool `json:"success"`
		} `json:"completed"`
	}
	built := map[string]bool{}
	err := events(path, func(line int, data []byte) error {
		var e event
		if err := json.Unmarshal(data, &e); err != nil {
			return cli.Usagef("%s:%d: not a build event: %v", path, line, err)
		}
		if e.ID.TargetCompleted != nil && e.Completed.Success {
			built[e.ID.TargetCompleted.Label] = true
		}
		return nil
	})
	return built, err
}
