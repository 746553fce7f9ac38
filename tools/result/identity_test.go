package result

import "testing"

// MovedBy tells another version of the lab from another environment in a
// comparison's list of what differs, whatever else the list holds, and
// words each apart: a lab's change never reads as another environment.
func TestMovedBy(t *testing.T) {
	lab := AnotherLab + " (the lab's version a1a1a1a1a1a1 → b2b2b2b2b2b2)"
	machine := Difference{Field: "machine.cores", Old: "2", New: "64"}.String()
	for _, c := range []struct {
		name        string
		changes     []string
		want        Moved
		text, short string
	}{
		{"nothing", nil, Moved{}, "", "another environment"},
		{"the lab", []string{lab}, Moved{Lab: true}, AnotherLab, "another version of the lab"},
		{"the machine", []string{machine}, Moved{Environment: true}, AnotherEnvironment, "another environment"},
		{"both", []string{lab, machine}, Moved{Lab: true, Environment: true},
			AnotherLab + "; " + AnotherEnvironment, "another version of the lab and another environment"},
	} {
		got := MovedBy(c.changes)
		if got != c.want || got.Any() != (c.want.Lab || c.want.Environment) {
			t.Errorf("%s: MovedBy = %+v, want %+v", c.name, got, c.want)
		}
		if got.Text() != c.text || got.Short() != c.short {
			t.Errorf("%s: Text %q, Short %q; want %q, %q", c.name, got.Text(), got.Short(), c.text, c.short)
		}
	}
}
