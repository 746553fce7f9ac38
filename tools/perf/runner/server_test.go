package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"havlak-lab/tools/result"
)

func TestSummarize(t *testing.T) {
	var lat []time.Duration
	for i := 100; i >= 1; i-- { // 1 ms … 100 ms, out of order
		lat = append(lat, time.Duration(i)*time.Millisecond)
	}
	got := summarize(lat)
	want := result.Latency{Mean: 0.0505, P50: 0.050, P90: 0.090, P99: 0.099, Max: 0.100}
	near := func(a, b float64) bool { return a-b < 1e-9 && b-a < 1e-9 }
	if !near(got.Mean, want.Mean) || !near(got.P50, want.P50) || !near(got.P90, want.P90) || !near(got.P99, want.P99) || !near(got.Max, want.Max) {
		t.Errorf("summarize = %+v, want %+v (nearest rank)", got, want)
	}
	if lat[0] != 100*time.Millisecond {
		t.Error("summarize sorted its argument")
	}
	if got := summarize(nil); got != (result.Latency{}) {
		t.Errorf("summarize(nil) = %+v", got)
	}
}

func TestReadTargets(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.txt")
	os.WriteFile(good, []byte("# comment\nGET /users/1\n\nPOST /users\n"), 0o666)
	targets, err := readTargets(good)
	if err != nil || len(targets) != 2 || targets[1].Method != "POST" || targets[1].URL != "/users" {
		t.Errorf("readTargets = %+v, %v", targets, err)
	}
	for name, text := range map[string]string{
		"empty":     "# nothing\n",
		"no method": "/users\n",
		"absolute":  "GET http://example.com/\n",
	} {
		path := filepath.Join(dir, name)
		os.WriteFile(path, []byte(text), 0o666)
		if _, err := readTargets(path); err == nil || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: readTargets = %v, want an error naming the file", name, err)
		}
	}
}

func TestLoopback(t *testing.T) {
	for addr, ok := range map[string]bool{
		"127.0.0.1:8080": true, "[::1]:80": true, "10.0.0.1:80": false, "example.com:80": false, "0.0.0.0:80": false, "nonsense": false,
	} {
		if err := loopback(addr); (err == nil) != ok {
			t.Errorf("loopback(%q) = %v", addr, err)
		}
	}
}
func TestClassifyServerFiles(t *testing.T) {
	for name, want := range map[string]result.File{
		"mutex.pb.gz":       {Role: result.RoleProfile, Profile: "mutex"},
		"block.top.txt":     {Role: result.RoleView, Profile: "block"},
		"goroutine.pb.gz":   {Role: result.RoleProfile, Profile: "goroutine"},
		"allocs.pb.gz":      {Role: result.RoleProfile, Profile: "allocs"},
		"latency.hist.txt":  {Role: result.RoleData},
		"server.output.txt": {Role: result.RoleOutput},
		"trace.out":         {Role: result.RoleTrace},
	} {
		want.Name = name
		if got := classify(name, map[string]bool{name: true}); got != want {
			t.Errorf("classify(%q) = %+v, want %+v", name, got, want)
		}
	}
}
