package result

import (
	"bytes"
	"encoding/json"
	"fmt"
	"syscall"
)

// A CountWorker is what the machine that counts a benchmark brings to its
// exact counts beside the binary and its declared run: the kernel, the
// instruction set, the C library the program runs with and the Valgrind
// that counts (CountDifferences says why each matters, and why nothing
// else of the machine does). A count measured as a Bazel action declares
// the worker it expects (worker.json, written by the count_worker
// repository rule, tools/perf/private/count_worker.bzl, from the same
// commands: uname -s, -r, -m, ldd --version, valgrind --version), so that
// the worker is part of the action's key: a cached count is reused only
// for the same worker, and a worker that differs from the declared one
// refuses to count (Check) rather than cache a count under another's key.
type CountWorker struct {
	// System and Kernel are uname -s and uname -r ("Linux",
	// "6.1.0-18-amd64"), Machine uname -m ("x86_64").
	System  string `json:"system"`
	Kernel  string `json:"kernel"`
	Machine string `json:"machine"`
	// Libc and Valgrind are the first lines of ldd --version and valgrind
	// --version, as Toolchains records them.
	Libc     string `json:"libc"`
	Valgrind string `json:"valgrind"`
}

// maxWorkerBytes bounds worker.json: five short lines.
const maxWorkerBytes = 4 << 10

// ReadCountWorker reads a worker.json: every field present and no other.
func ReadCountWorker(path string) (CountWorker, error) {
	data, err := ReadFileLimited(path, maxWorkerBytes)
	if err != nil {
		return CountWorker{}, err
	}
	var w CountWorker
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&w); err != nil {
		return CountWorker{}, fmt.Errorf("%s: %w", path, err)
	}
	for _, f := range w.fields() {
		if f.value == "" {
			return CountWorker{}, fmt.Errorf("%s: %s is missing or empty", path, f.name)
		}
	}
	return w, nil
}

// CaptureCountWorker describes the machine this process runs on.
func CaptureCountWorker() CountWorker {
	var uts syscall.Utsname
	var w CountWorker
	if syscall.Uname(&uts) == nil {
		w.System, w.Kernel, w.Machine = cString(uts.Sysname[:]), cString(uts.Release[:]), cString(uts.Machine[:])
	}
	w.Libc, w.Valgrind = versionLine("ldd"), versionLine("valgrind")
	return w
}

// cString is a NUL-terminated field of a struct utsname.
func cString(field []int8) string {
	var b []byte
	for _, c := range field {
		if c == 0 {
			break
		}
		b = append(b, byte(c))
	}
	return string(b)
}

func (w CountWorker) fields() []envField {
	return []envField{
		{"system", w.System, true},
		{"kernel", w.Kernel, true},
		{"machine", w.Machine, true},
		{"libc", w.Libc, true},
		{"valgrind", w.Valgrind, true},
	}
}

// Check is nil when a count made on here is a count of the declared
// worker: the same system, instruction set, kernel series (major.minor, as
// CountDifferences compares kernels), C library and Valgrind; else an
// error naming each difference.
func (declared CountWorker) Check(here CountWorker) error {
	d, h := declared.fields(), here.fields()
	var diffs []Difference
	for i := range d {
		o, n := d[i].value, h[i].value
		if d[i].name == "kernel" {
			o, n = kernelSeries(o), kernelSeries(n)
		}
		if o != n {
			diffs = append(diffs, Difference{d[i].name, d[i].value, h[i].value})
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("this worker is not the one the count declares (its counts would be cached under another worker's key): %v", diffs)
	}
	return nil
}
