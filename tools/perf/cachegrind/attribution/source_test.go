package attribution

import "testing"

// A page's source view: LineSums gives every line's counts of one side,
// BaseOf pairs the change's lines with the base's, none for an added one;
// a move with nothing in the change's code is outside it.
func TestSourceLines(t *testing.T) {
	base := file(t, `
go/p/a.go 5 main.f 100
go/p/a.go 5 main.g 1
go/p/a.go 9 main.h 40
`)
	change := file(t, `
go/p/a.go 5 main.f 100
go/p/a.go 6 main.f 7
go/p/a.go 10 main.h 45
`)
	d := diff(t, `--- a/go/p/a.go
+++ b/go/p/a.go
@@ -5,0 +6 @@
+	x++
`)
	for _, c := range []struct {
		line, want uint64
		ok         bool
	}{{5, 5, true}, {6, 0, false}, {10, 9, true}} {
		if file, got, ok := d.BaseOf("go/p/a.go", c.line); file != "go/p/a.go" || got != c.want || ok != c.ok {
			t.Errorf("BaseOf(%d) = %s:%d %v, want %d %v", c.line, file, got, ok, c.want, c.ok)
		}
	}
	if file, got, ok := (*Diff)(nil).BaseOf("go/p/b.go", 3); file != "go/p/b.go" || got != 3 || !ok {
		t.Errorf("BaseOf without a diff = %s:%d %v, want the line itself", file, got, ok)
	}
	a, err := attribute(base, change, d, instructions(t))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.LineSums(base, "go/p/a.go"); got[5] != 101 || got[9] != 40 || len(got) != 2 {
		t.Errorf("LineSums(base) = %v, want 5: 101, 9: 40", got)
	}
	if a.Outside() {
		t.Errorf("%+v: the added line moved it, want not outside", a.Parts)
	}
	moved, err := attribute(base, change, nil, instructions(t))
	if err != nil {
		t.Fatal(err)
	}
	if !moved.Outside() {
		t.Errorf("%+v: nothing in changed lines, want outside", moved.Parts)
	}
}
