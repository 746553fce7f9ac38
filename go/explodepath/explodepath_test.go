package explodepath

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

var versions = []struct {
	name    string
	explode func(string) []string
}{
	{"Naive", Naive},
	{"Presized", Presized},
	{"FieldsFunc", FieldsFunc},
}

var cases = []struct {
	path string
	want []string // nil when the path has no segment
}{
	{"", nil},
	{"/", nil},
	{"//", nil},
	{"///", nil},
	{"/foo", []string{"foo"}},
	{"foo", []string{"foo"}},
	{"/foo/", []string{"foo"}},
	{"foo/", []string{"foo"}},
	{"/foo/bar/baz/", []string{"foo", "bar", "baz"}},
	{"foo//bar", []string{"foo", "bar"}},
	{"//foo///bar//", []string{"foo", "bar"}},
	{"/a/b/c/d/e/f/g/h/i/j", strings.Split("a/b/c/d/e/f/g/h/i/j", "/")},
	{"/über/日本語/😀/", []string{"über", "日本語", "😀"}},
	{"/a\u00a0b/\u2215/", []string{"a\u00a0b", "\u2215"}}, // U+2215 DIVISION SLASH is not '/'
	{"/\xff/\xc3/x", []string{"\xff", "\xc3", "x"}},       // invalid UTF-8 is kept as it is
	{"/with space/ /  lead", []string{"with space", " ", "  lead"}},
	{" / ", []string{" ", " "}},
	{"/%2F/a%20b", []string{"%2F", "a%20b"}}, // no unescaping
}

func TestExplode(t *testing.T) {
	for _, v := range versions {
		for _, c := range cases {
			got := v.explode(c.path)
			if !slices.Equal(got, c.want) {
				t.Errorf("%s(%q) = %q, want %q", v.name, c.path, got, c.want)
			}
			if c.want == nil && got != nil {
				t.Errorf("%s(%q) = %#v, want nil", v.name, c.path, got)
			}
			if c.want != nil && cap(got) < len(c.want) {
				t.Errorf("%s(%q): cap %d", v.name, c.path, cap(got))
			}
		}
	}
}

// TestAgree runs the versions on every path of up to 6 bytes from an
// alphabet with slashes, a space and a multi-byte rune.
func TestAgree(t *testing.T) {
	alphabet := []string{"/", "a", "b", " ", "é"}
	var walk func(path string, depth int)
	walk = func(path string, depth int) {
		want := Naive(path)
		for _, v := range versions[1:] {
			if got := v.explode(path); !slices.Equal(got, want) || (got == nil) != (want == nil) {
				t.Fatalf("%s(%q) = %#v, Naive gives %#v", v.name, path, got, want)
			}
		}
		if depth == 0 {
			return
		}
		for _, s := range alphabet {
			walk(path+s, depth-1)
		}
	}
	walk("", 6)
}

// allocCases are paths with their segment counts, for the allocation pins.
var allocCases = []struct {
	path     string
	segments int
}{
	{"", 0},
	{"///", 0},
	{"/foo", 1},
	{"/foo/bar/", 2},
	{"/foo/bar/baz", 3},
	{"/a/b/c/d", 4},
	{"/a/b/c/d/e", 5},
	{"/a/b/c/d/e/f/g/h", 8},
	{"/a/b/c/d/e/f/g/h/i/j", 10},
	{strings.Repeat("/seg", 17), 17},
	{strings.Repeat("/seg", 32), 32},
	{strings.Repeat("/seg", 33), 33},
	{strings.Repeat("/seg", 100), 100},
}

// TestAllocs pins what each version allocates. Presized's single
// allocation for a non-empty result is the point of the study and the CI
// guard; Naive's and FieldsFunc's counts are the Go 1.27 compiler's and
// runtime's: if a new Go release changes them, update want and the README.
func TestAllocs(t *testing.T) {
	for _, c := range allocCases {
		presized := 0
		if c.segments > 0 {
			presized = 1
		}
		for _, v := range versions {
			want := map[string]int{
				"Presized":   presized,
				"Naive":      naiveAllocs(c.segments),
				"FieldsFunc": fieldsFuncAllocs(c.segments),
			}[v.name]
			got := testing.AllocsPerRun(100, func() { sink = v.explode(c.path) })
			if got != float64(want) {
				t.Errorf("%s(%s): %v allocations, want %d", v.name, shorten(c.path), got, want)
			}
		}
	}
}

var sink []string

// shorten quotes a path for a message, cut short if long.
func shorten(path string) string {
	if len(path) > 40 {
		return fmt.Sprintf("%q... (%d bytes)", path[:40], len(path))
	}
	return fmt.Sprintf("%q", path)
}

// naiveAllocs is what Naive allocates for a path of n segments, with the
// Go 1.27 compiler: the slice strings.Split returns, and the result. The
// compiler gives an append loop a 32-byte backing store on the stack (two
// strings), and moves it to the heap when the slice escapes at the return:
// one allocation up to 2 segments. Past that, append grows the slice on the
// heap to a capacity of 4, 8, 16, ... strings: one allocation per growth.
func naiveAllocs(n int) int {
	if n <= 2 {
		return 1 + min(n, 1)
	}
	allocs := 1
	for c := 2; c < n; c *= 2 {
		allocs++
	}
	return allocs
}

// fieldsFuncAllocs is what FieldsFunc allocates for a path of n segments:
// the result, and when there are more than 32 segments, one allocation per
// growth of the slice of their bounds, which strings.FieldsFunc starts as a
// 32-element array on its stack.
func fieldsFuncAllocs(n int) int {
	if n == 0 {
		return 0
	}
	allocs := 1
	for c := 32; c < n; c *= 2 {
		allocs++
	}
	return allocs
}

func Example() {
	fmt.Printf("%q\n", Presized("/foo/bar/"))
	fmt.Printf("%#v\n", Presized("//"))
	// Output:
	// ["foo" "bar"]
	// []string(nil)
}
