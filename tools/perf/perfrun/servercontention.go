package perfrun

// A server's own lock contentions per request: the contended sync.Mutex
// and sync.RWMutex releases of its mutex profile whose releaser is the
// program's code, not the Go distribution's, over each measured round.
//
// Why not the process's whole contention: on the lab's 2-core runners
// net/http's own locks (a connection's background read, cancelled after
// every request) and the runtime's are contended as its goroutines
// happen to meet, some 700 times a million requests for router_sharded,
// which moves by half from run to run; the program's own locks, there the
// route cache's, contend some 30 times a million requests, and a cache cut
// into 2 shards instead of 64 some 600 (docs/noise.md). Only the
// program's own are what a change of the program changes.

import (
	"fmt"
	"io"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/google/pprof/profile"

	"havlak-lab/tools/result"
)

// mutexProfilePath is net/http/pprof's mutex profile, on the server's
// pprof listener (the servers' contract, serverprocess.go): cumulative
// since the server started, at its -mutexprofilefraction.
const mutexProfilePath = "/debug/pprof/mutex"

// maxMutexProfileBytes bounds the profile read: a mutex profile holds one
// sample per distinct stack, some kilobytes for a server of the lab.
const maxMutexProfileBytes = 16 << 20

// readOwnContentions reads the server's mutex profile at pprof (host:port)
// and counts its own contentions so far (ownContentions), or says why it
// cannot.
func readOwnContentions(pprof string) (int64, string) {
	client := &http.Client{Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + pprof + mutexProfilePath)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Sprintf("GET %s: %s", mutexProfilePath, resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxMutexProfileBytes+1))
	if err != nil {
		return 0, fmt.Sprintf("GET %s: %v", mutexProfilePath, err)
	}
	if len(data) > maxMutexProfileBytes {
		return 0, fmt.Sprintf("GET %s: over %d bytes", mutexProfilePath, maxMutexProfileBytes)
	}
	p, err := profile.ParseData(data)
	if err != nil {
		return 0, fmt.Sprintf("GET %s: %v", mutexProfilePath, err)
	}
	n, err := ownContentions(p)
	if err != nil {
		return 0, fmt.Sprintf("GET %s: %v", mutexProfilePath, err)
	}
	return n, ""
}

// ownContentions counts the contentions of a Go mutex profile whose lock
// is a sync.Mutex or sync.RWMutex (a frame of package sync or
// internal/sync under the release) and whose releaser, the first frame
// outside runtime, internal/... and sync, is not in the Go distribution:
// the program's code or its dependencies'. Locks of the runtime's own
// (no sync frame) are left out, wherever they were taken.
//
// The Go distribution's files are told by their directory: the one the
// profile's sync frames are in, less "sync" or "internal/sync", is where
// its packages are (GOROOT/src/ under Bazel, the toolchain's src/ under
// go build). A server built with -trimpath leaves that empty, its own
// files and the distribution's alike relative: an error, never a count
// that cannot tell them apart.
func ownContentions(p *profile.Profile) (int64, error) {
	index := -1
	for i, t := range p.SampleType {
		if t.Type == "contentions" {
			index = i
		}
	}
	if index < 0 {
		return 0, fmt.Errorf("no contentions in the profile's sample types (not a mutex profile?)")
	}
	var own int64
	for _, s := range p.Sample {
		var root, releaser, file string
		syncLock := false
	frames:
		// Leaf first; a location's lines are its inlined calls, the
		// innermost first.
		for _, loc := range s.Location {
			for _, line := range loc.Line {
				if line.Function == nil {
					continue
				}
				name := line.Function.Name
				switch pkg := funcPackage(name); {
				case pkg == "sync" || pkg == "internal/sync":
					syncLock = true
					if dir := path.Dir(line.Function.Filename); root == "" && strings.HasSuffix(dir, pkg) {
						root = strings.TrimSuffix(dir, pkg)
					}
				case pkg == "runtime" || strings.HasPrefix(pkg, "runtime/") || strings.HasPrefix(pkg, "internal/"):
				default:
					releaser, file = name, line.Function.Filename
					break frames
				}
			}
		}
		switch {
		case !syncLock || releaser == "":
			continue // a runtime lock, or nothing released it outside them
		case root == "" || root == "/":
			return 0, fmt.Errorf("the sync package's frames name no directory of the Go distribution (a server built with -trimpath?): the program's locks cannot be told from the standard library's")
		case file == "":
			return 0, fmt.Errorf("%s, which released a contended lock, has no file name", releaser)
		case !strings.HasPrefix(file, root):
			own += s.Value[index]
		}
	}
	return own, nil
}

// funcPackage is the import path of a function's package, from its
// symbol name: "net/http.(*conn).serve" is net/http's, "main.main" main's.
func funcPackage(name string) string {
	slash := strings.LastIndex(name, "/")
	dot := strings.Index(name[slash+1:], ".")
	if dot < 0 {
		return name
	}
	return name[:slash+1+dot]
}

// ownContentionsMetric is the server's own lock contentions per request,
// one value per measured round, from the mutex profile before and after
// it, which records every contention at a -mutexprofilefraction of 1 and
// one in fraction otherwise (and its counts then fraction times as
// large). A contention is an event, but whether two goroutines meet at a
// lock, and whether the one that waits blocks rather than spins and gets
// it, is a matter of timing and of the machine's load: a timing
// (result.ClassTiming), of the cost "contention", shown.
func ownContentionsMetric(rounds []roundCost, fraction int) result.Metric {
	m := result.Metric{Name: metricOwnContentions, Unit: "contentions/request", Class: result.ClassTiming, Cost: result.CostContention,
		Source: fmt.Sprintf("the server's mutex profile (%s, -mutexprofilefraction=%d): contended sync.Mutex and sync.RWMutex releases by code outside the Go distribution, each measured round, over its requests",
			mutexProfilePath, fraction)}
	if fraction <= 0 {
		m.Unavailable = fmt.Sprintf("the server's mutex profile is off (-mutexprofilefraction=%d)", fraction)
		return m
	}
	for i, r := range rounds {
		var why string
		switch {
		case r.before.noOwnContentions != "" || r.after.noOwnContentions != "":
			why = r.before.noOwnContentions + r.after.noOwnContentions
		case r.requests == 0:
			why = "no requests"
		case r.after.ownContentions < r.before.ownContentions:
			why = fmt.Sprintf("own lock contentions %d → %d: the profile went back", r.before.ownContentions, r.after.ownContentions)
		default:
			m.Values = append(m.Values, float64(r.after.ownContentions-r.before.ownContentions)/float64(r.requests))
			continue
		}
		m.Values, m.Unavailable = nil, fmt.Sprintf("round %d: %s", i+1, why)
		return m
	}
	return m
}
