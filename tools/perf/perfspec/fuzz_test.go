package perfspec

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzDecode: any bytes are a spec whose Check passes, or an error naming
// the file; never a panic.
func FuzzDecode(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.json"))
	for _, seed := range seeds {
		data, err := os.ReadFile(seed)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`{"schema_version": 2, "benchmark": {"kind": "program"}, "program": {}, "server": {}}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Decode("fuzz.json", data)
		if err != nil {
			return
		}
		if err := s.Check(); err != nil {
			t.Fatalf("Decode took a spec that does not check: %v", err)
		}
	})
}
