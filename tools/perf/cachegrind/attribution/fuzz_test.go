package attribution

import "testing"

// FuzzParseDiff: any bytes are a diff or an error, never a panic; in a
// diff it takes, a line that maps to the other side maps back to itself,
// and a line only one side has maps to none.
func FuzzParseDiff(f *testing.F) {
	f.Add([]byte("--- a/cc/p.cc\n+++ b/cc/p.cc\n@@ -7,0 +8 @@\n+// g is the second.\n"))
	f.Add([]byte("diff --git a/go/p/a.go b/go/p/a.go\n--- a/go/p/a.go\n+++ b/go/p/a.go\n@@ -10,2 +10,3 @@ func f() {\n \tx++\n+\ty++\n }\n@@ -19,2 +20,2 @@\n-\ty = 1\n+\ty = 2\n \ty++\n"))
	f.Add([]byte("diff --git a/cc/old.cc b/cc/new.cc\nsimilarity index 100%\nrename from cc/old.cc\nrename to cc/new.cc\n"))
	f.Add([]byte("--- /dev/null\n+++ b/cc/added.cc\n@@ -0,0 +1,2 @@\n+x\n+y\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseDiff(data)
		if err != nil {
			return
		}
		for _, fd := range d.files {
			for _, s := range []side{baseSide, changeSide} {
				for n := 1; n <= 200; n++ {
					other, ok := fd.mapLine(s, n)
					if !ok {
						continue
					}
					if back, ok := fd.mapLine(1-s, other); !ok || back != n {
						t.Fatalf("%s: line %d of side %d maps to %d, which maps back to %d, %v", fd.change, n, s, other, back, ok)
					}
				}
			}
		}
	})
}
