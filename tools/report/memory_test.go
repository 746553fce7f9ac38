package main

import (
	"archive/zip"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"havlak-lab/tools/nightdir"
	"havlak-lab/tools/report/reporter"
	"havlak-lab/tools/result"
)

// Flags of TestWriteBigNight, which makes a night of large results to
// measure the report's and the history's memory with (docs/security.md,
// "Hostile results"); without -bignight it is skipped.
var (
	bigNight  = flag.String("bignight", "", "write a night of large results into `DIR` (TestWriteBigNight)")
	bigCount  = flag.Int("bignight.n", 8, "how many results TestWriteBigNight writes")
	bigFileMB = flag.Int("bignight.mib", 127, "the MiB of each of a result's three large files (TestWriteBigNight)")
)

// writeBigResult writes, as test/outputs.zip under dir, havlak6's fixture
// renamed name with three large files of mib MiB each, stored (a
// compressed zip of random bytes is no smaller): its two call graphs
// (cpu.svg and heap.svg, which the report copies) and a data file it
// lists (big.bin, which only the readers' checks read), from a scheduled
// build of main (result.Origin.Trusted), as the nightly job's. It is
// valid, within every limit of tools/result, when mib is at most 127
// (three files of 127 MiB are 381 MiB).
func writeBigResult(t testing.TB, dir, test, name string, mib int) {
	t.Helper()
	in, err := zip.OpenReader(filepath.Join(fixtures, "havlak6_quick_test", "outputs.zip"))
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	if err := os.MkdirAll(filepath.Join(dir, test), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(filepath.Join(dir, test, result.ZipName))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := zip.NewWriter(f)
	// One MiB of random bytes, as text, repeated: stored, so its
	// repetition saves nothing.
	block := make([]byte, 1<<20)
	rng := rand.New(rand.NewPCG(1, uint64(len(name))))
	for i := range block {
		block[i] = 'a' + byte(rng.IntN(26))
	}
	big := func(name, head, tail string) {
		e, err := w.CreateHeader(&zip.FileHeader{Name: name, Method: zip.Store})
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(e, head)
		for range mib {
			if _, err := e.Write(block); err != nil {
				t.Fatal(err)
			}
		}
		io.WriteString(e, tail)
	}
	for _, zf := range in.File {
		switch zf.Name {
		case "cpu.svg", "heap.svg":
			big(zf.Name, `<svg xmlns="http://www.w3.org/2000/svg"><!-- `, " --></svg>\n")
			continue
		case result.FileName:
			var doc map[string]any
			rc, err := zf.Open()
			if err == nil {
				err = json.NewDecoder(rc).Decode(&doc)
				rc.Close()
			}
			if err != nil {
				t.Fatal(err)
			}
			doc["benchmark"].(map[string]any)["name"] = name
			// A scheduled build of main: what the nightly job promotes
			// and a shared history takes.
			doc["environment"].(map[string]any)["origin"] = map[string]any{
				"ci": "buildkite", "build_source": "schedule", "branch": result.TrustedBranch}
			doc["files"] = append(doc["files"].([]any), map[string]any{"name": "big.bin", "role": "data"})
			data, err := json.MarshalIndent(doc, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			e, err := w.Create(result.FileName)
			if err == nil {
				_, err = e.Write(data)
			}
			if err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := w.Copy(zf); err != nil {
			t.Fatal(err)
		}
	}
	big("big.bin", "", "")
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// TestWriteBigNight writes -bignight.n results of three -bignight.mib MiB
// files each into -bignight DIR, a night (result.Night): what the
// measurements of the report's and the history's memory in
// docs/security.md read.
//
//	go test ./tools/report -run TestWriteBigNight -args -bignight=/tmp/night -bignight.n=8
func TestWriteBigNight(t *testing.T) {
	if *bigNight == "" {
		t.Skip("no -bignight DIR")
	}
	for i := range *bigCount {
		writeBigResult(t, *bigNight, fmt.Sprintf("big%d_test", i+1), fmt.Sprintf("big%d", i+1), *bigFileMB)
	}
	if _, err := result.OpenNight(*bigNight, nightdir.Layout()); err != nil {
		t.Fatal(err)
	}
}

// The report's loader keeps what it renders of each result, never the
// result's files: a night of eight results of 21 MiB (three files of 7
// MiB) leaves no more than a few MiB in use once loaded, and its problems
// are none (every result valid).
func TestLoadingKeepsNoFiles(t *testing.T) {
	dir := t.TempDir()
	const n, mib = 8, 7
	for i := range n {
		writeBigResult(t, dir, fmt.Sprintf("big%d_test", i+1), fmt.Sprintf("big%d", i+1), mib)
	}
	var before runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	set, err := reporter.Load("", []string{dir}, true)
	if err != nil {
		t.Fatal(err)
	}
	var after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&after)
	if len(set.Results) != n || len(set.Problems) > 0 {
		t.Fatalf("%d results, problems %q: want %d, none", len(set.Results), set.Problems, n)
	}
	// Generous: one result's graphs are 14 MiB, the night's 112 MiB.
	const bound = 32 << 20
	if grown := int64(after.HeapInuse) - int64(before.HeapInuse); grown > bound {
		t.Errorf("the loaded night holds %d MiB of heap: over %d MiB, the results' files are kept", grown>>20, bound>>20)
	}
	runtime.KeepAlive(set)
}
