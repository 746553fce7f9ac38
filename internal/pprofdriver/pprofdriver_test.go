package pprofdriver

import (
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/driver"
	"github.com/google/pprof/profile"
)

// cpu is a CPU profile in which main calls work for workNanos and idle
// for a fixed 1ms.
func cpu(workNanos int64) *profile.Profile {
	fns := []*profile.Function{
		{ID: 1, Name: "main.main"},
		{ID: 2, Name: "main.work"},
		{ID: 3, Name: "main.idle"},
	}
	locs := make([]*profile.Location, len(fns))
	for i, f := range fns {
		locs[i] = &profile.Location{ID: uint64(i + 1), Address: uint64(0x1000 * (i + 1)), Line: []profile.Line{{Function: f}}}
	}
	return &profile.Profile{
		SampleType: []*profile.ValueType{{Type: "cpu", Unit: "nanoseconds"}},
		PeriodType: &profile.ValueType{Type: "cpu", Unit: "nanoseconds"},
		Period:     1,
		Function:   fns,
		Location:   locs,
		Sample: []*profile.Sample{
			{Location: []*profile.Location{locs[1], locs[0]}, Value: []int64{workNanos}},
			{Location: []*profile.Location{locs[2], locs[0]}, Value: []int64{1e6}},
		},
	}
}

// pprof's report of a held profile comes back as bytes, and pprof's
// notes go to the UI given.
func TestOutput(t *testing.T) {
	var notes []string
	out, err := Run(Options{
		Args:     []string{"-top", "-output=top.txt", "p"},
		Profiles: map[string]*profile.Profile{"p": cpu(9e6)},
		UI:       UI{PrintErr: func(args ...any) { notes = append(notes, fmt.Sprint(args...)) }},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("main.work")) || !bytes.Contains(out, []byte("9ms")) {
		t.Errorf("pprof -top: %s, want main.work's 9ms", out)
	}
	if _, err := os.Stat("top.txt"); err == nil {
		t.Error("pprof wrote top.txt in the working directory")
	}
	if !strings.Contains(strings.Join(notes, "\n"), "Generating report in top.txt") {
		t.Errorf("pprof's notes %q, want where it generated the report", notes)
	}
}

// A diff's base is negated by pprof: in a copy, never in the caller's
// profile.
func TestDiffLeavesProfilesAlone(t *testing.T) {
	base, now := cpu(2e6), cpu(7e6)
	before := base.String() + now.String()
	out, err := Run(Options{
		Args:     []string{"-top", "-diff_base=base", "-output=x", "now"},
		Profiles: map[string]*profile.Profile{"base": base, "now": now},
	})
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte("5ms")) {
		t.Errorf("pprof -top -diff_base: %s, want main.work's +5ms", out)
	}
	if after := base.String() + now.String(); after != before {
		t.Errorf("the profiles changed:\n%s\nwant\n%s", after, before)
	}
}

// A name that is not one of the profiles given is not looked for as a
// file (or a URL), even when a file has it.
func TestReadsNoFile(t *testing.T) {
	var b bytes.Buffer
	if err := cpu(1e6).Write(&b); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "cpu.pprof")
	if err := os.WriteFile(file, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	given := map[string]*profile.Profile{"p": cpu(1e6)}
	for _, args := range [][]string{
		{"-top", "-output=x", file},
		{"-top", "-output=x", "-diff_base=" + file, "p"},
		{"-top", "-output=x", "http://127.0.0.1:1/debug/pprof/profile"},
	} {
		out, err := Run(Options{Args: args, Profiles: given})
		if err == nil {
			t.Errorf("pprof %q: %s, want an error", args, out)
		}
	}
}

// Arguments that are no command line of pprof's are named.
func TestBadArguments(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-top", "-no_such_flag", "p"}, "no_such_flag"},
		{[]string{"-top"}, "no profile named"},
	} {
		_, err := Run(Options{Args: c.args, Profiles: map[string]*profile.Profile{"p": cpu(1e6)}})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pprof %q: %v, want an error naming %q", c.args, err, c.want)
		}
	}
}

// pprof's web UI is handed to the caller, and serves the profile given.
func TestWebUI(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "")
	if _, err := Run(Options{Args: []string{"-http=localhost:0", "p"}, Profiles: map[string]*profile.Profile{"p": cpu(3e6)},
		HTTPServer: func(*driver.HTTPServerArgs) error { return nil }}); err == nil || !strings.Contains(err.Error(), "needs a configuration directory") {
		t.Errorf("without a configuration directory: %v", err)
	}
	t.Setenv("XDG_CONFIG_HOME", t.TempDir()) // pprof reads its settings there
	var handlers map[string]http.Handler
	_, err := Run(Options{
		Args:     []string{"-http=localhost:0", "-no_browser", "p"},
		Profiles: map[string]*profile.Profile{"p": cpu(3e6)},
		HTTPServer: func(a *driver.HTTPServerArgs) error {
			handlers = a.Handlers
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	h := handlers["/top"]
	if h == nil {
		t.Fatalf("pprof's UI has no /top: %v", handlers)
	}
	w := httptest.NewRecorder()
	h.ServeHTTP(w, httptest.NewRequest("GET", "/top", nil))
	if w.Code != http.StatusOK || !strings.Contains(w.Body.String(), "main.work") {
		t.Errorf("/top: %d %.300s, want 200 and main.work", w.Code, w.Body.String())
	}
}
