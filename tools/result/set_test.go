package result

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// nightOf makes a night of two benchmarks' results and a test that is no
// benchmark, as nightly collect writes it, and returns its directory.
func nightOf(t *testing.T) string {
	t.Helper()
	src := t.TempDir()
	r := example()
	writeFiles(t, src, r)
	if err := Write(src, r); err != nil {
		t.Fatal(err)
	}
	night := t.TempDir()
	zipDir(t, src, filepath.Join(night, "havlak6_test", ZipName))
	zipDir(t, src, filepath.Join(night, "havlak7_test", ZipName))
	other := t.TempDir()
	os.WriteFile(filepath.Join(other, "log.txt"), nil, 0o644)
	zipDir(t, other, filepath.Join(night, "other_test", ZipName))
	return night
}

func TestNight(t *testing.T) {
	zipOf := func(t *testing.T, path string) {
		src := t.TempDir()
		r := example()
		writeFiles(t, src, r)
		if err := Write(src, r); err != nil {
			t.Fatal(err)
		}
		zipDir(t, src, path)
	}
	for _, c := range []struct {
		name string
		// change makes the night's layout what the case is about.
		change func(t *testing.T, night string)
		// refused is the path, relative to the night, and why, or "".
		refused, why string
	}{
		{"as collect writes it", func(*testing.T, string) {}, "", ""},
		{"with the job's own outputs", func(t *testing.T, night string) {
			for _, dir := range []string{jobReport, jobExports, jobBenchgate} {
				os.MkdirAll(filepath.Join(night, dir, "stages"), 0o755)
				os.WriteFile(filepath.Join(night, dir, "x.json"), nil, 0o644)
			}
			os.WriteFile(filepath.Join(night, jobEvents), nil, 0o644)
			os.WriteFile(filepath.Join(night, jobTrends), nil, 0o644)
			// The report's temporaries, left by a killed run.
			os.MkdirAll(filepath.Join(night, ".report.new-123.old"), 0o755)
		}, "", ""},
		{"a test without outputs", func(t *testing.T, night string) { os.Mkdir(filepath.Join(night, "lint_test"), 0o755) }, "", ""},
		// The download directory: the night is one level deeper.
		{"results one level deeper", func(t *testing.T, night string) {
			zipOf(t, filepath.Join(night, "artifacts", "havlak8_test", ZipName))
		}, "artifacts/havlak8_test", "a directory in a test's directory (results one level deeper?)"},
		{"an unpacked result", func(t *testing.T, night string) {
			dir := filepath.Join(night, "havlak8_test")
			r := example()
			writeFiles(t, dir, r)
			if err := Write(dir, r); err != nil {
				t.Fatal(err)
			}
		}, "havlak8_test", "a result stored unpacked"},
		{"an unpacked result at the top", func(t *testing.T, night string) {
			os.WriteFile(filepath.Join(night, FileName), []byte("{}"), 0o644)
		}, FileName, "a result stored unpacked"},
		{"a symbolic link to a test's directory", func(t *testing.T, night string) {
			elsewhere := t.TempDir()
			zipOf(t, filepath.Join(elsewhere, "havlak8_test", ZipName))
			os.Symlink(filepath.Join(elsewhere, "havlak8_test"), filepath.Join(night, "havlak8_test"))
		}, "havlak8_test", "a symbolic link"},
		{"a symbolic link to an outputs.zip", func(t *testing.T, night string) {
			elsewhere := filepath.Join(t.TempDir(), ZipName)
			zipOf(t, elsewhere)
			os.Mkdir(filepath.Join(night, "havlak8_test"), 0o755)
			os.Symlink(elsewhere, filepath.Join(night, "havlak8_test", ZipName))
		}, "havlak8_test/outputs.zip", "a symbolic link"},
		{"an outputs.zip at the top", func(t *testing.T, night string) {
			zipOf(t, filepath.Join(night, ZipName))
		}, ZipName, "an outputs.zip outside a test's directory"},
		{"an outputs.zip deeper in a test's directory", func(t *testing.T, night string) {
			zipOf(t, filepath.Join(night, "havlak8_test", "test.outputs", ZipName))
		}, "havlak8_test/test.outputs", "a directory in a test's directory"},
		{"a stray file for a test's directory", func(t *testing.T, night string) {
			os.WriteFile(filepath.Join(night, "notes.txt"), nil, 0o644)
		}, "notes.txt", "not a test's directory"},
		{"a stray file in a test's directory", func(t *testing.T, night string) {
			os.WriteFile(filepath.Join(night, "havlak6_test", "test.log"), nil, 0o644)
		}, "havlak6_test/test.log", "a stray file in a test's directory"},
		{"an outputs.zip that is a directory", func(t *testing.T, night string) {
			os.MkdirAll(filepath.Join(night, "havlak8_test", ZipName), 0o755)
		}, "havlak8_test/outputs.zip", "not a regular file"},
		{"a test named report", func(t *testing.T, night string) {
			zipOf(t, filepath.Join(night, jobReport, ZipName))
		}, "report/outputs.zip", `a test named "report": the nightly job writes its own report/ there`},
		{"a test named exports, unpacked", func(t *testing.T, night string) {
			os.MkdirAll(filepath.Join(night, jobExports), 0o755)
			os.WriteFile(filepath.Join(night, jobExports, FileName), []byte("{}"), 0o644)
		}, "exports/result.json", `a test named "exports"`},
		{"a directory named trends.json", func(t *testing.T, night string) {
			os.MkdirAll(filepath.Join(night, jobTrends), 0o755)
		}, jobTrends, "not what the nightly job writes under that name"},
		{"a test whose name is no name", func(t *testing.T, night string) {
			zipOf(t, filepath.Join(night, ".hidden", ZipName))
		}, ".hidden", `not a test's directory: name ".hidden" starts with a dot`},
		{"a test named like the report's temporary, but a file", func(t *testing.T, night string) {
			os.WriteFile(filepath.Join(night, ".report.new-1"), nil, 0o644)
		}, ".report.new-1", "not a test's directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := nightOf(t)
			c.change(t, dir)
			n, err := OpenNight(dir, jobLayout)
			if c.refused != "" {
				want := filepath.Join(dir, c.refused) + ": " + c.why
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("OpenNight: %v, want it to say %q", err, want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			err = n.Walk(func(f Found) error {
				if f.Err != nil {
					t.Errorf("%s: %v", f.Path, f.Err)
				}
				got = append(got, Test(f))
				return nil
			})
			if err != nil {
				t.Fatal(err)
			}
			// The test that is no benchmark has a zip, and no result.
			if strings.Join(got, ",") != "havlak6_test,havlak7_test" || strings.Join(n.Tests(), ",") != "havlak6_test,havlak7_test,other_test" {
				t.Errorf("results %q of tests %q, want havlak6_test and havlak7_test of those and other_test", got, n.Tests())
			}
		})
	}
}

// A zip replaced by a symbolic link after the night was opened is named,
// not followed.
func TestNightWalkRechecks(t *testing.T) {
	dir := nightOf(t)
	n, err := OpenNight(dir, jobLayout)
	if err != nil {
		t.Fatal(err)
	}
	zip := n.Zip("havlak7_test")
	os.Rename(zip, zip+".moved")
	os.Symlink(zip+".moved", zip)
	var errs []string
	n.Walk(func(f Found) error {
		if f.Err != nil {
			errs = append(errs, f.Err.Error())
		}
		return nil
	})
	if want := zip + ": no longer a regular file"; strings.Join(errs, ";") != want {
		t.Errorf("errors %q, want %q", errs, want)
	}
}

func TestApartAndCheckOutput(t *testing.T) {
	root := t.TempDir()
	night := filepath.Join(root, "artifacts")
	os.MkdirAll(filepath.Join(night, "havlak6_test"), 0o755)
	link := filepath.Join(root, "link")
	os.Symlink(night, link)
	for _, c := range []struct {
		a, b string
		want string // "": apart
	}{
		{night, filepath.Join(root, "baseline"), ""},
		{night, filepath.Join(root, "artifacts2"), ""},
		{night, night, "are the same directory"},
		{night, link, "are the same directory"},
		{night, link + "/", "are the same directory"},
		{night, filepath.Join(link, "x", "..", "havlak6_test"), "is inside"},
		{filepath.Join(link, "new", "dir"), night, "is inside"},
		{root, night, "is inside"},
	} {
		err := Apart("a", c.a, "b", c.b)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("Apart(%s, %s): %v, want %q", c.a, c.b, err, c.want)
		}
	}

	n, err := OpenNight(link, jobLayout)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		out  string
		want string
	}{
		{filepath.Join(root, "report"), ""},
		{filepath.Join(night, jobReport), ""},
		{filepath.Join(link, jobExports, "bencher.json"), ""},
		{night, "holds the night"},
		{root, "holds the night"},
		{filepath.Join(night, "havlak6_test"), "inside the night"},
		{filepath.Join(night, "out"), "inside the night"},
	} {
		err := n.CheckOutput(c.out)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)) {
			t.Errorf("CheckOutput(%s): %v, want %q", c.out, err, c.want)
		}
	}
}

// The names of a night's writer in these tests: the nightly job's, as
// tools/nightdir declares them (which imports this package).
const (
	jobEvents    = "bazel-events.json"
	jobReport    = "report"
	jobExports   = "exports"
	jobBenchgate = "benchgate"
	jobTrends    = "trends.json"
)

var jobLayout = NightLayout{jobEvents: false, jobReport: true, jobExports: true, jobBenchgate: true, jobTrends: false}
