package result

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: any bytes as result.json are a result that validates, or an
// error; never a panic, and what Decode takes it can write back and take
// again.
func FuzzDecode(f *testing.F) {
	good, _ := json.Marshal(example())
	f.Add(good)
	f.Add([]byte(`{"schema_version": 1}`))
	f.Add([]byte(`{"schema_version": 1, "benchmark": {"name": ".."}}`))
	f.Add([]byte(`{"schema_version": 2, "schema_version": 2}`))
	f.Add([]byte(`{"schema_version": 2, "environment": {"machine": {"cores": 2, "Cores": -2}}}`))
	f.Add([]byte(`{"schema_version": 2, "metrics": [{"name": "a"}, {"name": "a", "name": "b"}]}`))
	f.Add([]byte(`{"schema_version": 2, "x": [[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		r, err := Decode(data, "fuzz.json")
		if err != nil {
			return
		}
		if err := checkKeys(data); err != nil {
			t.Fatalf("Decode took data with %v", err)
		}
		for i := range r.Metrics {
			if m := r.Metric(r.Metrics[i].Name); m != &r.Metrics[i] {
				t.Fatalf("Metric(%q) is not metrics[%d]", r.Metrics[i].Name, i)
			}
		}
		if err := r.Validate(); err != nil {
			t.Fatalf("Decode took a result that does not validate: %v", err)
		}
		again, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(again, "again.json"); err != nil {
			t.Fatalf("a decoded result does not decode again: %v", err)
		}
	})
}

// FuzzZip: any bytes as an outputs.zip are read within the limits, or
// refused; never a panic.
func FuzzZip(f *testing.F) {
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create(FileName)
	good, _ := json.Marshal(example())
	w.Write(good)
	for _, name := range []string{"cpu.pb.gz", "cpu.top.txt", "views/heap.svg"} {
		w, _ := z.Create(name)
		w.Write([]byte(name))
	}
	z.Close()
	f.Add(buf.Bytes())
	f.Add([]byte("PK\x03\x04 not a zip"))
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), ZipName)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		r, out, err := Read(path)
		if err != nil {
			return
		}
		for _, name := range r.listed() {
			if data, err := out.ReadFile(name); err == nil && len(data) > MaxFileBytes {
				t.Fatalf("%s: read %d bytes, over the limit", name, len(data))
			}
		}
	})
}
