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

// events reads a build event JSON file (--build_event_json_file, one
// event a line) and calls each with every event's line number and JSON.
// It refuses a file that is not a regular one (a named pipe, /dev/zero)
// and a line over maxEventBytes; each refuses a line that is not an event.
func events(path string, each func(line int, data []byte) error) error {
	f, _, err := result.OpenRegular(path)
	if errors.Is(err, result.ErrNotRegular) {
		return cli.Usagef("build event file %w", err)
	}
	if err != nil {
		return cli.UsageError{Err: fmt.Errorf("%w (was bazel run with --config=ci?)", err)}
	}
	defer f.Close()
	lines := bufio.NewScanner(f)
	lines.Buffer(make([]byte, 64<<10), maxEventBytes)
	line := 0
	for lines.Scan() {
		line++
		if data := lines.Bytes(); len(bytes.TrimSpace(data)) > 0 {
			if err := each(line, data); err != nil {
				return err
			}
		}
	}
	if errors.Is(lines.Err(), bufio.ErrTooLong) {
		return cli.Usagef("%s:%d: a line over %d bytes: not a build event file", path, line+1, maxEventBytes)
	}
	if err := lines.Err(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// testOutputs returns, for each test label of a build event file, the
// path of its outputs.zip: of its last attempt when it ran several times
// (--runs_per_test, flaky retries).
func testOutputs(path string) (map[string]string, error) {
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
	err := events(path, func(line int, data []byte) error {
		var e event
		if err := json.Unmarshal(data, &e); err != nil {
			return cli.Usagef("%s:%d: not a build event: %v", path, line, err)
		}
		if e.ID.TestResult == nil {
			return nil
		}
		for _, out := range e.TestResult.TestActionOutput {
			if out.Name != testOutputsName {
				continue
			}
			label := e.ID.TestResult.Label
			u, err := url.Parse(out.URI)
			if err != nil || u.Scheme != "file" {
				return fmt.Errorf("%s:%d: %s: outputs.zip is at %s, not a local file (--remote_download_minimal?)",
					path, line, label, out.URI)
			}
			if err := checkTestOutputs(label, u.Path); err != nil {
				return fmt.Errorf("%s:%d: %w", path, line, err)
			}
			zips[label] = u.Path
		}
		return nil
	})
	return zips, err
}

// buildExit is how the build of a build event file ended, as its
// BuildFinished event says: Bazel's exit code (0: every test passed) and
// its name. A file without that event is a build that never said how it
// ended (Bazel killed, the agent lost): an error.
func buildExit(path string) (int, string, error) {
	type event struct {
		ID struct {
			BuildFinished *struct{} `json:"buildFinished"`
		} `json:"id"`
		Finished struct {
			ExitCode *struct {
				Name string `json:"name"`
				Code int    `json:"code"`
			} `json:"exitCode"`
		} `json:"finished"`
	}
	code, name, found := 0, "", false
	err := events(path, func(line int, data []byte) error {
		var e event
		if err := json.Unmarshal(data, &e); err != nil {
			return cli.Usagef("%s:%d: not a build event: %v", path, line, err)
		}
		if e.ID.BuildFinished == nil {
			return nil
		}
		if e.Finished.ExitCode == nil || e.Finished.ExitCode.Name == "" {
			return fmt.Errorf("%s:%d: the build finished without an exit code", path, line)
		}
		code, name, found = e.Finished.ExitCode.Code, e.Finished.ExitCode.Name, true
		return nil
	})
	if err == nil && !found {
		err = fmt.Errorf("%s: the build never finished (no BuildFinished event)", path)
	}
	return code, name, err
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
// error. Both paths are as a user types them (cli.UserPath). A dest that
// does not hold the event file (a shard's night, tools/ci/nightly.sh
// --shard) gets a copy of it, first: how the shard's build ended, which
// the merge reads.
func Collect(events, dest string) ([]string, error) {
	events, dest = cli.UserPath(events), cli.UserPath(dest)
	zips, err := testOutputs(events)
	if err != nil {
		return nil, err
	}
	if copied := filepath.Join(dest, result.NightEvents); filepath.Clean(events) != copied {
		if err := copyFile(events, copied); err != nil {
			return nil, err
		}
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
