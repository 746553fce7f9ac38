package night

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/result"
)

// testOutputsName is how the build event stream names a test's zipped
// undeclared outputs.
const testOutputsName = "test.outputs__outputs.zip"

// maxEventBytes bounds one line of the build event file, one event, and
// so what reading one costs: the nightly build's events are a few KiB, the
// largest (an action's output, a set of thousands of files) far under it.
const maxEventBytes = 16 << 20

// testOutputs reads a build event JSON file (--build_event_json_file, one
// event a line) and returns, for each test label, the path of its
// outputs.zip: of its last attempt when it ran several times
// (--runs_per_test, flaky retries). It refuses a file that is not a
// regular one (a named pipe, /dev/zero) and a line over maxEventBytes.
func testOutputs(path string) (map[string]string, error) {
	f, _, err := result.OpenRegular(path)
	if errors.Is(err, result.ErrNotRegular) {
		return nil, cli.Usagef("build event file %w", err)
	}
	if err != nil {
		return nil, cli.UsageError{Err: fmt.Errorf("%w (was bazel run with --config=ci?)", err)}
	}
	defer f.Close()
	type event struct {
		ID struct {
			TestResult *struct {
				Label string `json:"label"`
			} `json:"testResult"`
		} `json:"id"`
		TestResult struct {
			TestActionOutput []struct {
				Name string `json:"name"`
				URI  string `json:"uri"`
			} `json:"testActionOutput"`
		} `json:"testResult"`
	}
	zips := map[string]string{}
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 64<<10), maxEventBytes)
	line := 0
	for lines.Scan() {
		line++
		if data := lines.Bytes(); len(bytes.TrimSpace(data)) > 0 {
			var e event
			if jsonErr := json.Unmarshal(data, &e); jsonErr != nil {
				return nil, cli.Usagef("%s:%d: not a build event: %v", path, line, jsonErr)
			}
			if e.ID.TestResult != nil {
				for _, out := range e.TestResult.TestActionOutput {
					if out.Name != testOutputsName {
						continue
					}
					label := e.ID.TestResult.Label
					u, err := url.Parse(out.URI)
					if err != nil || u.Scheme != "file" {
						return nil, fmt.Errorf("%s:%d: %s: outputs.zip is at %s, not a local file (--remote_download_minimal?)",
							path, line, label, out.URI)
					}
					if err := checkTestOutputs(label, u.Path); err != nil {
						return nil, fmt.Errorf("%s:%d: %w", path, line, err)
					}
					zips[label] = u.Path
				}
			}
		}
	}
	if errors.Is(lines.Err(), bufio.ErrTooLong) {
		return nil, cli.Usagef("%s:%d: a line over %d bytes: not a build event file", path, line+1, maxEventBytes)
	}
	if err := lines.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return zips, nil
}

// checkTestOutputs refuses a build event's test whose name would not stay
// a directory of collect's destination, or whose outputs.zip is not in
// Bazel's testlogs: the event file is the build's, but what it names is
// written and read here.
func checkTestOutputs(label, zip string) error {
	name := label[strings.LastIndex(label, ":")+1:]
	if err := result.CheckName(name); err != nil {
		return fmt.Errorf("test %q: %v", label, err)
	}
	if result.Reserved(name) {
		return fmt.Errorf("test %s: the nightly job writes its own %s into the night's directory, which would replace the test's outputs: rename the test", label, name)
	}
	if !filepath.IsAbs(zip) || filepath.Clean(zip) != zip || filepath.Base(zip) != result.ZipName ||
		!strings.Contains(zip, string(filepath.Separator)+"testlogs"+string(filepath.Separator)) {
		return fmt.Errorf("test %s: its outputs.zip %q is not an outputs.zip under Bazel's testlogs", label, zip)
	}
	return nil
}

// Collect copies every test's outputs.zip named in the build event file
// events to dest/<test name>/outputs.zip, a real directory that Buildkite's
// artifact_paths can upload (bazel-testlogs is a symlink out of the
// checkout, and its contents change with the next build): `nightly
// collect`. It returns the directories it made, sorted, also with an
// error when dest is then not a night (result.Night). <test name> is the
// target's name; two tests of one name in different packages are an
// error. Both paths are as a user types them (cli.UserPath).
func Collect(events, dest string) ([]string, error) {
	events, dest = cli.UserPath(events), cli.UserPath(dest)
	zips, err := testOutputs(events)
	if err != nil {
		return nil, err
	}
	labelOf := map[string]string{}
	var dirs []string
	for label, path := range zips {
		name := label[strings.LastIndex(label, ":")+1:]
		if other, ok := labelOf[name]; ok {
			return nil, fmt.Errorf("two tests named %s: %s and %s", name, label, other)
		}
		labelOf[name] = label
		dir := filepath.Join(dest, name)
		if err := copyFile(path, filepath.Join(dir, result.ZipName)); err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	// What the gate reads is a night (result.Night): what collect wrote,
	// and nothing else, must be one.
	if _, err := result.OpenNight(dest); err != nil && len(dirs) > 0 {
		return dirs, err
	}
	return dirs, nil
}
