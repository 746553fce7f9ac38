package result

import (
	"archive/zip"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"havlak-lab/internal/atomicfile"
)

// zipTime is every entry's time: the first a zip's MS-DOS date can say.
var zipTime = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)

// WriteZip zips the regular files under dir, result.json among them, into
// path as Bazel zips a test's undeclared outputs (outputs.zip: each file by
// its slash-separated name relative to dir), whole or not at all. Open
// and Read read it back; a count action (the runner's count mode) leaves
// its outputs so, since an action's output is a declared file.
func WriteZip(dir, path string) error {
	f, err := atomicfile.Create(path)
	if err != nil {
		return err
	}
	defer f.Abort()
	z := zip.NewWriter(f)
	err = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		in, err := os.Open(p)
		if err != nil {
			return err
		}
		defer in.Close()
		// A fixed time: the same files make the same zip.
		w, err := z.CreateHeader(&zip.FileHeader{Name: filepath.ToSlash(rel), Method: zip.Deflate, Modified: zipTime})
		if err == nil {
			_, err = io.Copy(w, in)
		}
		return err
	})
	if err == nil {
		err = z.Close()
	}
	if err != nil {
		return err
	}
	return f.Commit()
}
