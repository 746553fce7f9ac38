package perfspec

import (
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"havlak-lab/tools/result"
)

// A Manifest lists the benchmarks of a package, as benchmark_manifest
// (tools/perf/private/manifest.bzl) writes it: each benchmark's
// declaration, the labels of its targets and the paths of their specs. It
// is how the tools find benchmarks (//tools/perfcheck, //tools/bisect),
// never by their targets' names or by globbing bazel-bin; which manifest,
// the workspace says (FindManifest).
type Manifest struct {
	// SchemaVersion is the manifest's format, ManifestSchemaVersion.
	SchemaVersion int `json:"schema_version"`
	// Path is the manifest's own path, relative to the directory its
	// specs' paths are relative to (Root).
	Path       string              `json:"path"`
	Benchmarks []ManifestBenchmark `json:"benchmarks"`

	// file is where ReadManifest read it.
	file string
}

// Built is where a build in workspace leaves a file the manifest names
// relative to bazel-bin: a spec, a count action's outputs, the manifest.
func Built(workspace, path string) string {
	return filepath.Join(workspace, "bazel-bin", filepath.FromSlash(path))
}

// QuickSuffix ends the name of a benchmark's quick test, as the perf rules
// name it (//benchmarks:havlak6_quick_test). The tools never build a label
// from it: they take the quick test's label from the manifest (Target).
const QuickSuffix = "_quick_test"

// ManifestSchemaVersion is the newest version of the manifest's format,
// which benchmark_manifest writes when a benchmark is not measured: version
// 2 added NotMeasured. A manifest whose benchmarks are all measured it
// writes at ManifestOldestVersion, which the tools from before version 2
// read too (the perf check of a change runs the base's). Both are read.
const (
	ManifestSchemaVersion = 2
	ManifestOldestVersion = 1
)

// A ManifestBenchmark is one benchmark of a manifest: its declaration (the
// BenchmarkInfo of tools/perf/private/info.bzl), its kind, and its targets
// by build config (result.ConfigRun, ConfigPerf, ConfigQuick, and
// ConfigCounts for a program's count action, tools/perf/private/counts.bzl),
// those it has; a benchmark with a count action may have the count
// actions of its layout variants too (LayoutVariants).
type ManifestBenchmark struct {
	Name          string                    `json:"name"`
	Kind          string                    `json:"kind"`
	Study         string                    `json:"study"`
	Stage         int                       `json:"stage"`
	Language      string                    `json:"language"`
	Counterpart   string                    `json:"counterpart"`
	Reference     string                    `json:"reference"`
	Workload      string                    `json:"workload"`
	QuickWorkload string                    `json:"quick_workload"`
	Targets       map[string]ManifestTarget `json:"targets"`
	// NotMeasured says why no gate can count and judge the benchmark, as
	// its declaration says it (BenchmarkInfo's not_measured): it has no
	// quick test. "" for a benchmark with one (version 2; a manifest of
	// version 1 never says: Manifest.NotMeasured).
	NotMeasured string `json:"not_measured,omitempty"`
	// LayoutVariants are the count actions of the benchmark's program
	// built in layout variants: the same code linked with other padding
	// before its code and data, so that its functions and data land at
	// other addresses. Each counts what the counts target counts and has
	// an Output; how far a figure moves between them is its layout noise
	// (verdict.Noise's Layout). Only a benchmark with a counts target has
	// them.
	LayoutVariants []ManifestTarget `json:"layout_variants,omitempty"`
}

// A ManifestTarget is one target of a benchmark: the binary or test that
// runs a spec.
type ManifestTarget struct {
	// Label is the target's label (//benchmarks:havlak6_quick_test).
	Label string `json:"label"`
	// Spec is its spec's path (benchmarks/havlak6_quick_test_spec.json),
	// relative to bazel-bin and to the workspace's directory in the
	// target's runfiles alike.
	Spec string `json:"spec"`
	// Output is a count action's outputs' zip (benchmarks/havlak6_counts.zip,
	// relative as Spec is); only the counts target has one.
	Output string `json:"output,omitempty"`
}

// configs are the build configs a benchmark's targets are keyed by.
var configs = []string{result.ConfigRun, result.ConfigPerf, result.ConfigQuick, result.ConfigCounts}

// ReadManifest reads and checks the manifest at path.
func ReadManifest(path string) (*Manifest, error) {
	data, err := readFile(path, maxManifestSize, "a manifest")
	if err != nil {
		return nil, err
	}
	m, err := DecodeManifest(path, data)
	if err != nil {
		return nil, err
	}
	m.file = path
	return m, nil
}

// maxManifestSize bounds the size of a manifest file.
const maxManifestSize = 16 << 20

// DecodeManifest decodes and checks the manifest data, read from the file
// name: one JSON object of schema_version ManifestOldestVersion to
// ManifestSchemaVersion with no field the format does not have. Its errors name the file and the field.
func DecodeManifest(name string, data []byte) (*Manifest, error) {
	var version struct {
		SchemaVersion int `json:"schema_version"`
	}
	if err := json.Unmarshal(data, &version); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if version.SchemaVersion < ManifestOldestVersion || version.SchemaVersion > ManifestSchemaVersion {
		return nil, fmt.Errorf("%s: schema_version %d: want %d to %d", name, version.SchemaVersion, ManifestOldestVersion, ManifestSchemaVersion)
	}
	var m Manifest
	if err := decodeStrict(name, data, &m, "the manifest's format"); err != nil {
		return nil, err
	}
	if err := m.Check(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &m, nil
}

// Check tells what is wrong with the manifest, if anything.
func (m *Manifest) Check() error {
	if err := checkPath("path", m.Path); err != nil {
		return err
	}
	if len(m.Benchmarks) == 0 {
		return fmt.Errorf("benchmarks: none")
	}
	seen := map[string]bool{}
	for i, b := range m.Benchmarks {
		where := fmt.Sprintf("benchmarks[%d]", i)
		switch {
		case b.Name == "":
			return fmt.Errorf("%s.name: empty", where)
		case seen[b.Name]:
			return fmt.Errorf("%s: the benchmark %q a second time", where, b.Name)
		case !slices.Contains(Kinds, b.Kind):
			return fmt.Errorf("%s (%s).kind %q: want one of %q", where, b.Name, b.Kind, Kinds)
		case b.Study == "":
			return fmt.Errorf("%s (%s).study: empty", where, b.Name)
		case len(b.Targets) == 0:
			return fmt.Errorf("%s (%s).targets: none", where, b.Name)
		}
		seen[b.Name] = true
		for _, config := range slices.Sorted(maps.Keys(b.Targets)) {
			t := b.Targets[config]
			where := fmt.Sprintf("%s (%s).targets.%s", where, b.Name, config)
			if !slices.Contains(configs, config) {
				return fmt.Errorf("%s: want a build config of %q", where, configs)
			}
			if !strings.HasPrefix(t.Label, "//") && !strings.HasPrefix(t.Label, "@") {
				return fmt.Errorf("%s.label %q: want a label", where, t.Label)
			}
			if err := checkPath(where+".spec", t.Spec); err != nil {
				return err
			}
			if (config == result.ConfigCounts) != (t.Output != "") {
				return fmt.Errorf("%s.output %q: a count action has one, no other target", where, t.Output)
			}
			if t.Output != "" {
				if err := checkPath(where+".output", t.Output); err != nil {
					return err
				}
			}
		}
		if err := b.checkLayoutVariants(where); err != nil {
			return err
		}
		if err := b.checkMeasured(where, m.SchemaVersion); err != nil {
			return err
		}
	}
	return nil
}

// checkLayoutVariants tells what is wrong with a benchmark's layout
// variants, at where: each a count action (label, spec and output), of a
// benchmark that has one, none given twice nor the counts target again.
func (b ManifestBenchmark) checkLayoutVariants(where string) error {
	if len(b.LayoutVariants) == 0 {
		return nil
	}
	counts, ok := b.Targets[result.ConfigCounts]
	if !ok {
		return fmt.Errorf("%s (%s).layout_variants: %d, and no %s target: only a count action has layout variants", where, b.Name, len(b.LayoutVariants), result.ConfigCounts)
	}
	labels := map[string]bool{counts.Label: true}
	outputs := map[string]bool{counts.Output: true}
	for i, t := range b.LayoutVariants {
		where := fmt.Sprintf("%s (%s).layout_variants[%d]", where, b.Name, i)
		if !strings.HasPrefix(t.Label, "//") && !strings.HasPrefix(t.Label, "@") {
			return fmt.Errorf("%s.label %q: want a label", where, t.Label)
		}
		if err := checkPath(where+".spec", t.Spec); err != nil {
			return err
		}
		if err := checkPath(where+".output", t.Output); err != nil {
			return err
		}
		switch {
		case labels[t.Label]:
			return fmt.Errorf("%s.label %q: a second time", where, t.Label)
		case outputs[t.Output]:
			return fmt.Errorf("%s.output %q: a second time", where, t.Output)
		}
		labels[t.Label], outputs[t.Output] = true, true
	}
	return nil
}

// checkPath refuses a path that is not a clean relative one.
func checkPath(field, p string) error {
	if p == "" || path.IsAbs(p) || path.Clean(p) != p || p == ".." || strings.HasPrefix(p, "../") {
		return fmt.Errorf("%s %q: want a clean relative path", field, p)
	}
	return nil
}

// Benchmark is the benchmark of that name.
func (m *Manifest) Benchmark(name string) (*ManifestBenchmark, error) {
	var names []string
	for i := range m.Benchmarks {
		if m.Benchmarks[i].Name == name {
			return &m.Benchmarks[i], nil
		}
		names = append(names, m.Benchmarks[i].Name)
	}
	return nil, fmt.Errorf("%s: no benchmark %q; it lists %s", m.name(), name, strings.Join(names, ", "))
}

// Target is the benchmark's target of the build config (result.ConfigQuick:
// its quick test).
func (b *ManifestBenchmark) Target(config string) (ManifestTarget, error) {
	t, ok := b.Targets[config]
	if !ok {
		return ManifestTarget{}, fmt.Errorf("the benchmark %s has no %s target", b.Name, config)
	}
	return t, nil
}

// Root is the directory the paths of a manifest that ReadManifest read are
// relative to: bazel-bin, or the workspace's directory in a runfiles tree.
func (m *Manifest) Root() (string, error) {
	file, err := filepath.Abs(m.file)
	if err != nil {
		return "", err
	}
	dir, ok := strings.CutSuffix(filepath.ToSlash(file), "/"+m.Path)
	if m.file == "" || !ok {
		return "", fmt.Errorf("%s: not read from a file at its path %s", m.name(), m.Path)
	}
	return filepath.FromSlash(dir), nil
}

// ReadSpec reads the spec of one of the manifest's targets, from beside
// the manifest (Root).
func (m *Manifest) ReadSpec(t ManifestTarget) (*Spec, error) {
	root, err := m.Root()
	if err != nil {
		return nil, err
	}
	return Read(filepath.Join(root, filepath.FromSlash(t.Spec)))
}

func (m *Manifest) name() string {
	if m.file != "" {
		return m.file
	}
	return "the manifest"
}
