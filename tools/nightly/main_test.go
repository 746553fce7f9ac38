package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/internal/cli"
)

// The command reads its flags into the library's calls: each case is
// refused, with a usage error, by the check its flags reach, before
// anything runs or is written.
func TestFlags(t *testing.T) {
	night := t.TempDir()
	// collect looks for the lab's baseline and history under its cache
	// directory, which a test's environment does not name.
	t.Setenv("HAVLAK_LAB_CACHE", t.TempDir())
	commands := []string{"--bisect"}
	for _, c := range []struct {
		args []string
		says string
	}{
		{nil, "no subcommand"},
		{[]string{"judge"}, `unknown subcommand "judge"`},
		{[]string{"--verbose", "gate"}, "flag provided but not defined: -verbose"},
		{[]string{"collect", "events.json"}, "collect wants --testlogs DIR, EVENTS and DEST"},
		{[]string{"collect", "events.json", night}, "collect needs --testlogs"},
		{[]string{"collect", "--testlogs", t.TempDir(), filepath.Join(night, "missing.json"), night}, "missing.json"},
		{append(commands, "gate"), "gate wants one ARTIFACTS directory"},
		{append(commands, "gate", filepath.Join(night, "none")), "none: not a directory"},
		{append(commands, "gate", "--stale-after", "0", night), "--stale-after 0: want a number of nights"},
		{append(commands, "gate", "--lock-wait", "-1s", night), "--lock-wait -1s: want a duration, 0 or more"},
		{append(commands, "gate", "--baseline", night, night), "are the same directory"},
		{append(commands, "gate", "--baseline", t.TempDir(), "--otava", "otava", "--history-dir", filepath.Join(night, "history"), night),
			"--history-dir"},
		// The gate always has a history: --history-dir is read, and
		// checked, without --otava too.
		{append(commands, "gate", "--baseline", t.TempDir(), "--history-dir", filepath.Join(night, "history"), night),
			"--history-dir " + filepath.Join(night, "history") + " is inside the night"},
		{[]string{"shard", "shards.json"}, "shard wants MAP and K"},
		{[]string{"shard", "shards.json", "all"}, `shard "all": want a shard's number`},
		{[]string{"steps", "--uplaod", "shards.json"}, "steps wants [--upload] MAP"},
		{append(commands, "merge", "shards.json", night), "merge wants MAP, SHARDS and ARTIFACTS"},
		{append(commands, "merge", "--stale-after", "0", "shards.json", t.TempDir(), night), "--stale-after 0"},
	} {
		var out bytes.Buffer
		err := run(c.args, &out, &out)
		if cli.Status(err) != 2 || !strings.Contains(err.Error()+out.String(), c.says) {
			t.Errorf("nightly %q: %v, want a usage error saying %q\n%s", c.args, err, c.says, out.String())
		}
	}
	if entries, _ := os.ReadDir(night); len(entries) != 0 {
		t.Errorf("the night's directory was written: %v", entries)
	}
	var out bytes.Buffer
	// tools/ci/nightly.sh gives --collect-failed after a failed collect.
	if err := run([]string{"gate", "-h"}, &out, &out); err != nil || !strings.Contains(out.String(), "-stale-after nights") ||
		!strings.Contains(out.String(), "-collect-failed") || !strings.Contains(out.String(), "-lock-wait duration") {
		t.Errorf("nightly gate -h: %v, want gate's flags, --collect-failed among them:\n%s", err, out.String())
	}
}

// collect prints each directory it made, one a line, escaped.
func TestCollectPrints(t *testing.T) {
	dir := t.TempDir()
	zip := filepath.Join(dir, "testlogs", "a", "outputs.zip")
	os.MkdirAll(filepath.Dir(zip), 0o755)
	os.WriteFile(zip, []byte("outputs"), 0o644)
	events := filepath.Join(dir, "events.json")
	os.WriteFile(events, []byte(fmt.Sprintf(`{"id":{"testResult":{"label":"//a:a_test"}},"testResult":{"testActionOutput":[{"name":"test.outputs__outputs.zip","uri":"file://%s"}]}}`+"\n", zip)), 0o644)
	dest := filepath.Join(dir, "night\tof today")
	t.Setenv("HAVLAK_LAB_CACHE", t.TempDir())
	var out bytes.Buffer
	if err := run([]string{"collect", "--testlogs", filepath.Join(dir, "testlogs"), events, dest}, &out, &out); err != nil {
		t.Fatalf("collect: %v\n%s", err, out.String())
	}
	if got, want := out.String(), cli.Field(filepath.Join(dest, "a_test"))+"\n"; got != want {
		t.Errorf("collect printed %q, want %q", got, want)
	}
}
