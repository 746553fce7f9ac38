package night

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"havlak-lab/internal/cli"
	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/result"
)

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
// path of its outputs.zip, which must be under testlogs (absolute and
// clean; one of them: the test logs as given and with their links
// resolved, since the event file may name them either way): of its last
// attempt when it ran several times (--runs_per_test, flaky retries).
func testOutputs(path string, testlogs ...string) (map[string]string, error) {
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
			if out.Name != result.TestOutputsEvent {
				continue
			}
			label := e.ID.TestResult.Label
			u, err := url.Parse(out.URI)
			if err != nil || u.Scheme != "file" {
				return fmt.Errorf("%s:%d: %s: outputs.zip is at %s, not a local file (--remote_download_minimal?)",
					path, line, label, out.URI)
			}
			if err := checkTestOutputs(label, u.Path, testlogs...); err != nil {
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
// Bazel's test logs, testlogs (absolute and clean, one of them): the
// event file is the build's, but what it names is written and read here.
func checkTestOutputs(label, zip string, testlogs ...string) error {
	name := label[strings.LastIndex(label, ":")+1:]
	if err := result.CheckName(name); err != nil {
		return fmt.Errorf("test %q: %v", label, err)
	}
	if nightdir.Layout().Reserved(name) {
		return fmt.Errorf("test %s: the nightly job writes its own %s into the night's directory, which would replace the test's outputs: rename the test", label, name)
	}
	in := slices.ContainsFunc(testlogs, func(dir string) bool { return inside(zip, dir) })
	if !filepath.IsAbs(zip) || filepath.Clean(zip) != zip || filepath.Base(zip) != result.ZipName || !in {
		return fmt.Errorf("test %s: its outputs.zip %q is not an outputs.zip under Bazel's test logs %s (--testlogs)", label, zip, testlogs[0])
	}
	return nil
}

// inside tells whether path is strictly inside dir; both are absolute and
// clean.
func inside(path, dir string) bool {
	rel, err := filepath.Rel(dir, path)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// Collect copies every test's outputs.zip named in the build event file
// events to dest/<test name>/outputs.zip, a real directory that Buildkite's
// artifact_paths can upload (bazel-testlogs is a symlink out of the
// checkout, and its contents change with the next build): `nightly
// collect`. It takes a zip only from testlogs, the build's test logs
// (bazel-testlogs resolved: --testlogs), symbolic links resolved. It
// returns the directories it made, sorted, also with an error when dest
// is then not a night (result.Night). <test name> is the target's name;
// two tests of one name in different packages are an error. All three
// paths are as a user types them (cli.UserPath). A dest that does not
// hold the event file (a shard's night, tools/ci/nightly.sh --shard) gets
// a copy of it, first: how the shard's build ended, which the merge
// reads.
//
// Before it writes anything, it refuses a dest that is, holds or is inside
// the baseline or the history's directory (their defaults as the gate's:
// $HAVLAK_LAB_BASELINE, $HAVLAK_LAB_HISTORY_DIR, else the lab's cache), a
// dest that exists and is neither an empty directory nor a night, and a
// test whose zip is not in testlogs.
func Collect(events, testlogs, dest string) ([]string, error) {
	events, testlogs, dest = cli.UserPath(events), cli.UserPath(testlogs), cli.UserPath(dest)
	if testlogs == "" {
		return nil, cli.Usagef("collect needs --testlogs, the build's test logs (bazel-testlogs, resolved)")
	}
	testlogs = absolute(filepath.Clean(testlogs))
	realLogs, err := filepath.EvalSymlinks(testlogs)
	if err != nil || !isDir(realLogs) {
		return nil, cli.Usagef("--testlogs %s: not a directory of Bazel's test logs", testlogs)
	}
	if err := checkDest(dest); err != nil {
		return nil, err
	}
	zips, err := testOutputs(events, testlogs, realLogs)
	if err != nil {
		return nil, err
	}
	labelOf := map[string]string{}
	var labels []string
	for label, path := range zips {
		name := label[strings.LastIndex(label, ":")+1:]
		if other, ok := labelOf[name]; ok {
			return nil, fmt.Errorf("two tests named %s: %s and %s", name, label, other)
		}
		labelOf[name] = label
		labels = append(labels, label)
		// A link in the test logs could lead anywhere (the baseline's zips,
		// say): what is copied is a file in them.
		if real, err := filepath.EvalSymlinks(path); err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		} else if !inside(real, realLogs) {
			return nil, fmt.Errorf("test %s: its outputs.zip %s leads to %s, outside Bazel's test logs %s (--testlogs)", label, path, real, testlogs)
		}
	}
	sort.Strings(labels)
	if copied := filepath.Join(dest, nightdir.Events); filepath.Clean(events) != copied {
		if err := copyCapped(events, copied); err != nil {
			return nil, err
		}
	}
	var dirs []string
	for _, label := range labels {
		test := label[strings.LastIndex(label, ":")+1:]
		dir := filepath.Join(dest, test)
		if err := copyCapped(zips[label], result.NightZip(dest, test)); err != nil {
			return nil, fmt.Errorf("%s: %w", label, err)
		}
		dirs = append(dirs, dir)
	}
	sort.Strings(dirs)
	// What the gate reads is a night (result.Night): what collect wrote,
	// and nothing else, must be one.
	if _, err := result.OpenNight(dest, nightdir.Layout()); err != nil && len(dirs) > 0 {
		return dirs, err
	}
	return dirs, nil
}

// checkDest refuses, before collect writes anything, a destination that
// is, holds or is inside the baseline or the history's directory, where
// only the gate writes, from results it judged; and one that exists and is
// neither an empty directory nor a night, into which collect would write
// results beside what is not.
func checkDest(dest string) error {
	baseline, err := stateDir("HAVLAK_LAB_BASELINE", "nightly-baseline")
	if err != nil {
		return err
	}
	historyDir, err := history.LocalDir()
	if err != nil {
		return err
	}
	for what, dir := range map[string]string{"the baseline": baseline, "the history's directory": historyDir} {
		if err := result.Apart("DEST", dest, what, dir); err != nil {
			return cli.Usagef("%v: collect never writes there; refused, nothing written", err)
		}
	}
	info, err := os.Stat(dest)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		return err
	case !info.IsDir():
		return cli.Usagef("DEST %s: not a directory: refused, nothing written", dest)
	}
	if _, err := result.OpenNight(dest, nightdir.Layout()); err != nil {
		return cli.Usagef("DEST %s: neither empty nor a night's results: refused, nothing written:\n%w", dest, err)
	}
	return nil
}
