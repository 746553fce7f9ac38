package result

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// claimingZip writes a zip whose entries hold a few bytes each but claim
// the sizes given: what a hostile outputs.zip of 2 MB can do.
func claimingZip(t *testing.T, entries map[string]uint64) string {
	t.Helper()
	var compressed bytes.Buffer
	fw, _ := flate.NewWriter(&compressed, flate.BestCompression)
	fw.Write([]byte("tiny"))
	fw.Close()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, size := range entries {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Deflate,
			CompressedSize64: uint64(compressed.Len()), UncompressedSize64: size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(compressed.Bytes())
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), ZipName)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// unchecked opens the zip at path as Open does, without Open's checks of
// its entries: what Open would refuse, to try the readers' own bounds.
func unchecked(t *testing.T, path string) zipOutputs {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	info, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	z, err := zip.NewReader(f, info.Size())
	if err != nil {
		t.Fatal(err)
	}
	return zipOutputs{f, z, path}
}

func TestReadsAreBounded(t *testing.T) {
	// One entry of 2 GiB claimed: refused before it is read.
	path := claimingZip(t, map[string]uint64{FileName: 100, "cpu.svg": 2 << 30})
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), "claim more than") || !strings.Contains(err.Error(), "cpu.svg") {
		t.Errorf("a zip claiming 2 GiB: %v", err)
	}
	// One entry over the file limit, the whole under the result's: Open
	// reads it to check it, and finds it shorter than it claims.
	path = claimingZip(t, map[string]uint64{"big.svg": MaxFileBytes + 1})
	if _, err := Open(path); !errors.Is(err, io.ErrUnexpectedEOF) || !strings.Contains(err.Error(), "outputs.zip:big.svg") {
		t.Errorf("an entry shorter than it claims: %v", err)
	}
	// What Open takes, ReadFile and OpenFile bound all the same.
	out := unchecked(t, path)
	var limit *LimitError
	if _, err := out.ReadFile("big.svg"); !errors.As(err, &limit) || !strings.Contains(err.Error(), "outputs.zip:big.svg") {
		t.Errorf("an entry over %d bytes: %v", MaxFileBytes, err)
	}
	if _, err := out.OpenFile("big.svg"); !errors.As(err, &limit) || !strings.Contains(err.Error(), "outputs.zip:big.svg") {
		t.Errorf("an entry over %d bytes, opened: %v", MaxFileBytes, err)
	}
	// A file of a result directory over the limit: refused by its size.
	dir := t.TempDir()
	big := filepath.Join(dir, "big.svg")
	f, _ := os.Create(big)
	f.Truncate(MaxFileBytes + 1)
	f.Close()
	if _, err := dirOutputs(dir).ReadFile("big.svg"); !errors.As(err, &limit) {
		t.Errorf("a file over %d bytes: %v", MaxFileBytes, err)
	}
	if _, err := dirOutputs(dir).OpenFile("big.svg"); !errors.As(err, &limit) {
		t.Errorf("a file over %d bytes, opened: %v", MaxFileBytes, err)
	}
	// A zip over the result's limit is not read at all.
	f, _ = os.Create(filepath.Join(dir, ZipName))
	f.Truncate(MaxResultBytes + 1)
	f.Close()
	if _, err := Open(filepath.Join(dir, ZipName)); !errors.As(err, &limit) {
		t.Errorf("a zip over %d bytes: %v", MaxResultBytes, err)
	}
}

func TestHostileFieldsAreRefused(t *testing.T) {
	for name, c := range map[string]struct {
		change func(*Result)
		want   string
	}{
		"dot dot":          {func(r *Result) { r.Benchmark.Name = ".." }, "starts with a dot"},
		"separator":        {func(r *Result) { r.Benchmark.Name = "a/b" }, "letters, digits"},
		"control":          {func(r *Result) { r.Benchmark.Name = "a\x1b[31m" }, "letters, digits"},
		"long":             {func(r *Result) { r.Benchmark.Name = strings.Repeat("a", 101) }, "at most 100"},
		"counterpart":      {func(r *Result) { r.Benchmark.Counterpart = "../x" }, "benchmark.counterpart"},
		"far future":       {func(r *Result) { r.Environment.Started = "9999-12-31T00:00:00Z" }, "outside 2000–2199"},
		"run before 2000":  {func(r *Result) { r.Timing.Runs[0].Start = "1816-03-30T00:00:00Z" }, "timing.runs[0].start"},
		"not a time":       {func(r *Result) { r.Timing.Runs[1].Start = "yesterday" }, "RFC 3339"},
		"commit as a path": {func(r *Result) { r.Environment.Source.Commit = "/../../PWN" }, "letters and digits"},
		"negative count": {func(r *Result) {
			r.Metrics = []Metric{{Name: "instructions", Unit: "instructions", Values: []float64{-1}}}
		}, "negative value"},
		"negative cores":    {func(r *Result) { r.Environment.Machine.Cores = -2 }, "environment.machine.cores: -2, want 0 to 65536"},
		"a million cores":   {func(r *Result) { r.Environment.Machine.Cores = 1 << 20 }, "environment.machine.cores: 1048576"},
		"negative memory":   {func(r *Result) { r.Environment.Machine.MemoryBytes = -1 }, "environment.machine.memory_bytes: -1"},
		"an exabyte":        {func(r *Result) { r.Environment.Machine.MemoryBytes = 1 << 60 }, "environment.machine.memory_bytes: 1152921504606846976"},
		"pinned cpu":        {func(r *Result) { cpu := -1; r.Environment.Setup.PinnedCPU = &cpu }, "environment.setup.pinned_cpu: -1"},
		"repetitions":       {func(r *Result) { r.Benchmark.Repetitions = -3 }, "benchmark.repetitions: -3, want 0 to 1000"},
		"many repetitions":  {func(r *Result) { r.Benchmark.Repetitions = 1 << 30 }, "benchmark.repetitions: 1073741824"},
		"negative rss":      {func(r *Result) { r.Timing.Runs[1].MaxRSSKiB = -1 }, "timing.runs[1].max_rss_kib: -1"},
		"a year of running": {func(r *Result) { r.Timing.Runs[0].RealSeconds = 3e7 }, "timing.runs[0].real_seconds: 3e+07"},
		"negative counter": {func(r *Result) {
			r.Timing.Runs[0].Counters = map[string]int64{"cycles:u": 7, "instructions:u": -5}
		}, `timing.runs[0].counters["instructions:u"]: -5`},
		"negative syscalls": {func(r *Result) { r.Timing.Runs[0].Syscalls = &Syscalls{Read: -1} }, "timing.runs[0].syscalls.read: -1"},
		"unknown cost": {func(r *Result) {
			r.Metrics = []Metric{{Name: "instructions", Unit: "instructions", Values: []float64{1}, Cost: "<b>speed</b>"}}
		}, `cost "<b>speed</b>": want one of work, locality`},
	} {
		r := example()
		c.change(r)
		if err := r.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want an error saying %q", name, err, c.want)
		}
	}
	if err := example().Validate(); err != nil {
		t.Errorf("the example: %v", err)
	}
	for _, ok := range []string{"havlak6", "havlak7cc", "wc1", "router4", "explodepath", "a_b-c.d+e"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q): %v", ok, err)
		}
	}
}

func TestIdentity(t *testing.T) {
	r := example()
	if lacks := r.Lacks(); len(lacks) != 1 || !strings.Contains(lacks[0], "identity") {
		t.Errorf("a result without identity lacks %q", lacks)
	}
	sum := strings.Repeat("ab", 32)
	r.Identity = &Identity{BinarySHA256: sum, RunSHA256: sum, LabSHA256: sum}
	if err := r.Validate(); err != nil || r.Lacks() != nil {
		t.Errorf("a result with its identity: %v, lacks %q", err, r.Lacks())
	}
	r.Identity.RunSHA256 = "../x"
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "identity.run_sha256") {
		t.Errorf("a bad run_sha256: %v", err)
	}
	// Version 3 records the lab's version: an identity without it is not
	// one of version 3.
	r.Identity = &Identity{BinarySHA256: sum, RunSHA256: sum}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "identity.lab_sha256") {
		t.Errorf("a version 3 identity without lab_sha256: %v", err)
	}
	// Version 2 results still read, and say that they lack it.
	v2 := example()
	v2.SchemaVersion = 2
	v2.Identity = &Identity{BinarySHA256: sum, RunSHA256: sum}
	if lacks := v2.Lacks(); v2.Validate() != nil || len(lacks) != 1 || !strings.Contains(lacks[0], "the lab's version (schema version 2") {
		t.Errorf("a version 2 result: %v, lacks %q", v2.Validate(), lacks)
	}
	data, err := json.Marshal(v2)
	if err != nil {
		t.Fatal(err)
	}
	if read, err := Decode(data, "v2.json"); err != nil || read.Identity.LabSHA256 != "" {
		t.Errorf("a version 2 result read: %v, %+v", err, read)
	}
	v2.Identity.LabSHA256 = sum
	if err := v2.Validate(); err == nil || !strings.Contains(err.Error(), "schema version 2 has none") {
		t.Errorf("a version 2 result with a lab_sha256: %v", err)
	}
	// Version 1 results still read, and say what they lack.
	old := example()
	old.SchemaVersion = 1
	if err := old.Validate(); err != nil || len(old.Lacks()) == 0 || !strings.Contains(old.Lacks()[0], "schema version 1") {
		t.Errorf("a version 1 result: %v, lacks %q", err, old.Lacks())
	}
	old.Identity = &Identity{BinarySHA256: sum, RunSHA256: sum}
	if err := old.Validate(); err == nil {
		t.Error("a version 1 result with an identity validates")
	}
}

func TestNonRegularFilesAreRefused(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo", ZipName)
	os.Mkdir(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero", ZipName)
	os.Mkdir(filepath.Dir(zero), 0o755)
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// A result directory whose result.json is a device.
	devDir := filepath.Join(dir, "dev")
	os.Mkdir(devDir, 0o755)
	if err := os.Symlink("/dev/zero", filepath.Join(devDir, FileName)); err != nil {
		t.Fatal(err)
	}
	for path, want := range map[string]string{
		fifo:                               "a named pipe",
		zero:                               "a character device",
		sock:                               "a socket",
		filepath.Join(devDir, FileName):    "a character device",
		filepath.Join(dir, "fifo") + "/.":  "a directory",
		filepath.Join(dir, "missing.json"): "no such file",
	} {
		_, err := ReadFileLimited(path, MaxFileBytes)
		if err == nil || !strings.Contains(err.Error(), path+": "+want) && !strings.Contains(err.Error(), want) {
			t.Errorf("ReadFileLimited(%s): %v, want %q", path, err, want)
		}
	}
	// Open and Read refuse them the same way, a FIFO without blocking.
	done := make(chan bool)
	go func() {
		defer close(done)
		for _, path := range []string{fifo, zero, sock, devDir} {
			if _, _, err := Read(path); !errors.Is(err, ErrNotRegular) || !strings.Contains(err.Error(), path) {
				t.Errorf("Read(%s): %v, want it refused naming it", path, err)
			}
		}
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("Read of a named pipe blocks")
	}
}

// writeZip writes a zip of the entries given, each with the CRC-32 crc
// gives it.
func writeZip(t *testing.T, entries map[string]string, crc func(name, data string) uint32) string {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, data := range entries {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: name, Method: zip.Store, CRC32: crc(name, data),
			CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(len(data))})
		if err != nil {
			t.Fatal(err)
		}
		w.Write([]byte(data))
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), ZipName)
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestZipChecksumsAreVerified(t *testing.T) {
	good, _ := json.Marshal(example())
	entries := map[string]string{FileName: string(good), "cpu.pb.gz": "a profile nobody reads"}
	right := func(_, data string) uint32 { return crc32.ChecksumIEEE([]byte(data)) }
	if _, _, err := Read(writeZip(t, entries, right)); err != nil {
		t.Fatalf("a sound zip: %v", err)
	}
	for name, crc := range map[string]func(name, data string) uint32{
		"a wrong CRC": func(name, data string) uint32 {
			if name == "cpu.pb.gz" {
				return right(name, data) ^ 1
			}
			return right(name, data)
		},
		// archive/zip itself checks nothing when the header's CRC is 0.
		"a CRC of 0": func(name, data string) uint32 {
			if name == "cpu.pb.gz" {
				return 0
			}
			return right(name, data)
		},
	} {
		path := writeZip(t, entries, crc)
		if _, err := Open(path); !errors.Is(err, zip.ErrChecksum) || !strings.Contains(err.Error(), path+":cpu.pb.gz") {
			t.Errorf("%s on an entry no one reads: %v, want a checksum error naming it", name, err)
		}
	}
	// Two entries of one name: which one a reader gets is the zip's say.
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, data := range []string{string(good), `{"schema_version": 2}`} {
		w, _ := zw.Create(FileName)
		w.Write([]byte(data))
	}
	zw.Close()
	path := filepath.Join(t.TempDir(), ZipName)
	os.WriteFile(path, buf.Bytes(), 0o644)
	if _, err := Open(path); err == nil || !strings.Contains(err.Error(), path+": result.json: two entries of that name") {
		t.Errorf("two result.json: %v", err)
	}
}

func TestDuplicateKeysAreRefused(t *testing.T) {
	r := example()
	r.Timing.Runs[0].Counters = map[string]int64{"instructions:u": 5}
	r.Metrics = []Metric{{Name: "a", Unit: "instructions", Values: []float64{1}}, {Name: "b", Unit: "instructions", Values: []float64{2}}}
	good, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Decode(good, "r.json"); err != nil {
		t.Fatal(err)
	}
	for name, c := range map[string]struct{ old, new, key string }{
		"top level":       {`"schema_version": 3,`, `"schema_version": 3, "schema_version": 3,`, "schema_version"},
		"nested":          {`"cores": 2,`, `"cores": 2, "cores": -2,`, "cores"},
		"other case":      {`"cores": 2,`, `"cores": 2, "Cores": 64,`, "Cores"},
		"in an array":     {`"name": "b",`, `"name": "b", "name": "c",`, "name"},
		"in a map":        {`"instructions:u": 5`, `"instructions:u": 5, "instructions:u": 1`, "instructions:u"},
		"after an object": {`"toolchains": {`, `"machine": {}, "toolchains": {`, "machine"},
	} {
		data := strings.Replace(string(good), c.old, c.new, 1)
		if data == string(good) {
			t.Fatalf("%s: %q is not in the example", name, c.old)
		}
		line := 1 + strings.Count(data[:strings.Index(data, c.new)], "\n")
		want := fmt.Sprintf("r.json: line %d: key %q given twice", line, c.key)
		if _, err := Decode([]byte(data), "r.json"); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want %q", name, err, want)
		}
	}
	// The same key in two objects is no repetition.
	if err := checkKeys([]byte(`{"a": {"n": 1}, "b": [{"n": 1}, {"n": 2}], "n": 3}`)); err != nil {
		t.Error(err)
	}
	deep := `{"schema_version": 2, "x": ` + strings.Repeat("[", 100) + strings.Repeat("]", 100) + "}"
	if _, err := Decode([]byte(deep), "deep.json"); err == nil || !strings.Contains(err.Error(), "nested deeper than 16") {
		t.Errorf("nesting 100 deep: %v", err)
	}
}

func TestResultJSONIsBounded(t *testing.T) {
	path := claimingZip(t, map[string]uint64{FileName: MaxResultJSONBytes + 1})
	var limit *LimitError
	if _, err := ReadFrom(unchecked(t, path)); !errors.As(err, &limit) || limit.Limit != MaxResultJSONBytes {
		t.Errorf("a result.json claiming %d bytes: %v", MaxResultJSONBytes+1, err)
	}
	dir := t.TempDir()
	f, _ := os.Create(filepath.Join(dir, FileName))
	f.Truncate(MaxResultJSONBytes + 1)
	f.Close()
	if _, _, err := Read(dir); !errors.As(err, &limit) || !strings.Contains(err.Error(), FileName) {
		t.Errorf("a result.json of %d bytes: %v", MaxResultJSONBytes+1, err)
	}
	if _, err := Decode(make([]byte, MaxResultJSONBytes+1), "big.json"); !errors.As(err, &limit) {
		t.Errorf("Decode of %d bytes: %v", MaxResultJSONBytes+1, err)
	}
}

func TestCountsAreBounded(t *testing.T) {
	for name, c := range map[string]struct {
		change func(*Result)
		want   string
	}{
		"metrics": {func(r *Result) {
			for i := range MaxMetrics + 1 {
				r.Metrics = append(r.Metrics, Metric{Name: fmt.Sprint("m", i), Unit: "count", Values: []float64{1}})
			}
		}, "metrics: 1001, over the limit of 1000"},
		"values": {func(r *Result) {
			r.Metrics = []Metric{{Name: "m", Unit: "count", Values: make([]float64, MaxRuns+1)}}
		}, "metrics[0].values: 1001, over the limit of 1000"},
		"files":  {func(r *Result) { r.Files = make([]File, MaxFiles+1) }, "files: 1001, over the limit of 1000"},
		"sweeps": {func(r *Result) { r.Sweeps = make([]Sweep, MaxSweeps+1) }, "sweeps: 101, over the limit of 100"},
		"points": {func(r *Result) {
			r.Sweeps = []Sweep{{Points: make([]SweepPoint, MaxSweepPoints+1)}}
		}, "sweeps[0].points: 1001, over the limit of 1000"},
		"runs": {func(r *Result) { r.Timing.Runs = make([]Run, MaxRuns+1) }, "timing.runs: 1001, over the limit of 1000"},
		"counters": {func(r *Result) {
			r.Timing.Runs[1].Counters = map[string]int64{}
			for i := range MaxCounters + 1 {
				r.Timing.Runs[1].Counters[fmt.Sprint("e", i)] = 1
			}
		}, "timing.runs[1].counters: 65, over the limit of 64"},
	} {
		r := example()
		c.change(r)
		if err := r.Validate(); err == nil || err.Error() != c.want {
			t.Errorf("%s: %v, want only %q", name, err, c.want)
		}
	}
	// Many problems: the first maxReported, and how many more.
	r := example()
	for i := range 50 {
		r.Metrics = append(r.Metrics, Metric{Name: fmt.Sprint("m", i), Unit: "count", Values: []float64{-1}})
	}
	err := r.Validate()
	if err == nil || strings.Count(err.Error(), "negative value") != maxReported || !strings.HasSuffix(err.Error(), "; and 30 more problems") {
		t.Errorf("50 problems: %v", err)
	}
}

// OpenZipIn opens a zip inside its root only: a name with ../, or a
// symlink to a zip outside, is refused, as is a named pipe (at once).
func TestOpenZipInStaysInside(t *testing.T) {
	outside := writeZip(t, map[string]string{FileName: "{}"}, func(_, data string) uint32 { return crc32.ChecksumIEEE([]byte(data)) })
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "in"), 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(outside)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "in", ZipName), data, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "link.zip")); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.zip"), 0o644); err != nil {
		t.Fatal(err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer root.Close()
	out, err := OpenZipIn(root, filepath.Join("in", ZipName))
	if err != nil {
		t.Fatalf("a zip inside: %v", err)
	}
	if got, err := out.ReadFile(FileName); err != nil || string(got) != "{}" {
		t.Errorf("reading it: %q, %v", got, err)
	}
	out.Close()
	rel, err := filepath.Rel(dir, outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{rel, "link.zip", "in/../../" + filepath.Base(outside)} {
		if out, err := OpenZipIn(root, name); err == nil {
			out.Close()
			t.Errorf("OpenZipIn(%s) opened a zip outside its root", name)
		}
	}
	if _, err := OpenZipIn(root, "fifo.zip"); !errors.Is(err, ErrNotRegular) {
		t.Errorf("a named pipe: %v, want ErrNotRegular", err)
	}
}
