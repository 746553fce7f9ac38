package versionedjson

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/fstest"
)

type doc struct {
	Version int    `json:"schema_version"`
	Name    string `json:"name"`
	Since2  string `json:"since2,omitempty"`
}

var format = Format[doc]{
	Name: "a doc", MaxBytes: 200, VersionField: "schema_version",
	Version: func(d *doc) *int { return &d.Version },
	Oldest:  1, Current: 2,
	Check: func(d *doc) error {
		if d.Name == "" {
			return errors.New(`"name": empty`)
		}
		if d.Version < 2 && d.Since2 != "" {
			return errors.New("since2 came in version 2")
		}
		return nil
	},
}

func TestRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "doc.json")
	if err := format.Write(path, &doc{Name: "x", Since2: "y"}); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if want := "{\n  \"schema_version\": 2,\n  \"name\": \"x\",\n  \"since2\": \"y\"\n}\n"; string(data) != want {
		t.Errorf("written %q, want %q", data, want)
	}
	d, err := format.Read(path)
	if err != nil || *d != (doc{Version: 2, Name: "x", Since2: "y"}) {
		t.Errorf("read back %+v, %v", d, err)
	}
	// An older version is read, as that version was.
	if d, err := format.Parse([]byte(`{"schema_version": 1, "name": "old"}`)); err != nil || d.Version != 1 {
		t.Errorf("version 1: %+v, %v", d, err)
	}
}

func TestParseRefuses(t *testing.T) {
	for name, c := range map[string]struct{ data, says string }{
		"a later version": {`{"schema_version": 3, "name": "x"}`, "schema_version 3: this reader knows versions 1 to 2"},
		"no version":      {`{"name": "x"}`, "schema_version 0: this reader knows versions 1 to 2"},
		"unknown field":   {`{"schema_version": 2, "name": "x", "nmae": "y"}`, `unknown field "nmae"`},
		"the check":       {`{"schema_version": 2}`, `"name": empty`},
		"by version":      {`{"schema_version": 1, "name": "x", "since2": "y"}`, "since2 came in version 2"},
		"two values":      {`{"schema_version": 2, "name": "x"}` + "\n{}", "line 2: more than one JSON value"},
		"a stray brace":   {`{"schema_version": 2, "name": "x"}}`, "more than one JSON value"},
		"syntax":          {"{\"schema_version\": 2,\n,}", "line 2: invalid character ','"},
		"wrong type":      {"{\"schema_version\": 2,\n\"name\": 7}", `line 2: "name": a JSON number, want string`},
		"empty":           {"", "empty"},
		"truncated":       {`{"schema_version": 2, "na`, "unexpected EOF): truncated?"},
		"over the bound":  {`{"schema_version": 2, "name": "` + strings.Repeat("x", 200) + `"}`, "more than 200 bytes, larger than a doc may be"},
	} {
		if d, err := format.Parse([]byte(c.data)); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: %+v, %v; want an error saying %q", name, d, err, c.says)
		}
	}
}

// Read names the file, refuses what is not a regular file before opening
// it, and bounds what it reads.
func TestReadRefuses(t *testing.T) {
	dir := t.TempDir()
	big := filepath.Join(dir, "big.json")
	if err := os.WriteFile(big, []byte(strings.Repeat(" ", 10000)+`{"schema_version": 2, "name": "x"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := format.Read(big); err == nil || !strings.Contains(err.Error(), big+": not a doc: more than 200 bytes") {
		t.Errorf("a file over the bound: %v", err)
	}
	if _, err := format.Read(dir); err == nil || !strings.Contains(err.Error(), dir+": a directory: not a regular file") {
		t.Errorf("a directory: %v", err)
	}
	pipe := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(pipe, 0o644); err == nil {
		if _, err := format.Read(pipe); err == nil || !strings.Contains(err.Error(), "pipe: a named pipe: not a regular file") {
			t.Errorf("a named pipe: %v", err)
		}
	}
	if _, err := format.Read(filepath.Join(dir, "none.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing file: %v, want fs.ErrNotExist", err)
	}
	fsys := fstest.MapFS{"a/doc.json": {Data: []byte(`{"schema_version": 2, "name": "in fs"}`)}}
	if d, err := format.ReadFS(fsys, "a/doc.json"); err != nil || d.Name != "in fs" {
		t.Errorf("ReadFS: %+v, %v", d, err)
	}
}

// What the reader would refuse is not written, and what was there stays.
func TestWriteRefuses(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "doc.json")
	if err := format.Write(path, &doc{Name: "first"}); err != nil {
		t.Fatal(err)
	}
	for name, d := range map[string]*doc{
		"checked": {},
		"too big": {Name: strings.Repeat("x", 200)},
	} {
		if err := format.Write(path, d); err == nil || !strings.Contains(err.Error(), path+": not written") {
			t.Errorf("%s: %v, want it refused, naming the file", name, err)
		}
	}
	if d, err := format.Read(path); err != nil || d.Name != "first" {
		t.Errorf("after refused writes: %+v, %v; want the first doc", d, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Errorf("%d files left, want the doc alone", len(entries))
	}
}

// A kind without versions has no version field to check or set.
func TestUnversioned(t *testing.T) {
	type plain struct {
		Name string `json:"name"`
	}
	f := Format[plain]{Name: "a plain file", MaxBytes: 100}
	data, err := f.Marshal(&plain{Name: "x"})
	if err != nil || string(data) != "{\n  \"name\": \"x\"\n}\n" {
		t.Errorf("Marshal: %q, %v", data, err)
	}
	if _, err := f.Parse([]byte(`{"name": "x", "schema_version": 1}`)); err == nil {
		t.Error("an unknown version field accepted")
	}
}
