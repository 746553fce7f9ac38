package lab

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadCFGFile: any file is a CFG within the limits, or a usage error
// naming the file and line; never a panic.
func FuzzReadCFGFile(f *testing.F) {
	for _, seed := range []string{"0 1\n1 2\n2 1\n", "# comment\n\n0 2147483647\n", "0 1 2\n", "0 -1\n", "\x00\xff\n"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(t.TempDir(), "fuzz.cfg")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, err := ReadCFGFile(path)
		if err != nil {
			return
		}
		if len(cfg.Names) > MaxBlocks+1 || len(cfg.Edges) > MaxEdges {
			t.Fatalf("%d blocks, %d edges: past the limits", len(cfg.Names), len(cfg.Edges))
		}
		for _, e := range cfg.Edges {
			if int(e.From) >= len(cfg.Names) || int(e.To) >= len(cfg.Names) || e.From < 0 || e.To < 0 {
				t.Fatalf("edge %v outside the %d blocks", e, len(cfg.Names))
			}
		}
	})
}
