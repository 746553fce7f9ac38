package result

import (
	"archive/zip"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"havlak-lab/internal/atomicfile"
)

// Where Bazel leaves a test's zipped undeclared outputs (ZipName).
const (
	// Testlogs is the workspace's link to the build's test logs.
	Testlogs = "bazel-testlogs"
	// TestOutputsEvent is how the build event stream names the zip among
	// a test's outputs.
	TestOutputsEvent = "test.outputs__" + ZipName
	// testOutputs is the zip's directory in the test's directory of the
	// test logs.
	testOutputs = "test.outputs"
)

// TestZip is where a build in workspace leaves the zip of a test's
// undeclared outputs: testDir is the test's directory under the test logs
// (benchmarks/havlak6_quick_test), and then run_K_of_N of a test run
// several times (--runs_per_test), slash-separated.
func TestZip(workspace, testDir string) string {
	return filepath.Join(workspace, Testlogs, filepath.FromSlash(testDir), testOutputs, ZipName)
}

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

// newZipReader is zip.NewReader bounded before it holds a header of each
// entry: the count the zip's end record claims is at most MaxZipEntries,
// archive/zip reads at most maxDirectoryBytes of its central directory,
// and the entries it read are at most MaxZipEntries. Errors name path.
func newZipReader(f io.ReaderAt, size int64, path string) (*zip.Reader, error) {
	claimed, err := claimedEntries(f, size)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if claimed > MaxZipEntries {
		return nil, fmt.Errorf("%s: its directory claims %d entries, over the limit of %d: not read", path, claimed, MaxZipEntries)
	}
	bounded := &boundedReaderAt{r: f, left: maxDirectoryBytes + endSearchBytes}
	z, err := zip.NewReader(bounded, size)
	bounded.left = -1
	if errors.Is(err, errDirectoryTooLarge) {
		return nil, fmt.Errorf("%s: its central directory is over %d bytes (%d entries' headers): not read", path, maxDirectoryBytes, MaxZipEntries)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(z.File) > MaxZipEntries {
		return nil, fmt.Errorf("%s: %d entries, over the limit of %d: not read", path, len(z.File), MaxZipEntries)
	}
	return z, nil
}

// endSearchBytes bounds what archive/zip reads besides the central
// directory while it opens a zip: its search for the end record (the last
// 1 KiB, then the last 65 KiB), the zip64 locator and record, one header
// it reads to check the directory's offset (46 bytes and three fields of
// up to 64 KiB), and its buffer's read past the directory's end.
const endSearchBytes = 512 << 10

var errDirectoryTooLarge = errors.New("the zip's central directory is over the limit")

// A boundedReaderAt serves archive/zip's opening of a zip up to left bytes
// in all, then fails; left < 0 is no bound, once the zip is open and its
// entries are read each under limits of their own.
type boundedReaderAt struct {
	r    io.ReaderAt
	left int64
}

func (b *boundedReaderAt) ReadAt(p []byte, off int64) (int, error) {
	if b.left < 0 {
		return b.r.ReadAt(p, off)
	}
	if int64(len(p)) > b.left {
		return 0, errDirectoryTooLarge
	}
	b.left -= int64(len(p))
	return b.r.ReadAt(p, off)
}

// claimedEntries is the count of entries the end record of the zip r of
// size bytes claims, found as archive/zip finds it (the last record's
// signature in the last 1 KiB, else the last 65 KiB; the zip64 record
// when the classic one says its fields overflowed). It is 0 when there is
// no record: archive/zip then refuses the zip itself.
func claimedEntries(r io.ReaderAt, size int64) (uint64, error) {
	const endLen = 22 // the end record without its comment
	for i, n := range []int64{1 << 10, 65 << 10} {
		n = min(n, size)
		buf := make([]byte, n)
		if _, err := r.ReadAt(buf, size-n); err != nil && err != io.EOF {
			return 0, err
		}
		for p := len(buf) - endLen; p >= 0; p-- {
			if binary.LittleEndian.Uint32(buf[p:]) != 0x06054b50 {
				continue
			}
			if comment := int(binary.LittleEndian.Uint16(buf[p+endLen-2:])); p+endLen+comment > len(buf) {
				return 0, nil // as archive/zip, which then looks no further
			}
			records := uint64(binary.LittleEndian.Uint16(buf[p+10:]))
			if records == 0xffff || binary.LittleEndian.Uint32(buf[p+12:]) == 0xffffffff || binary.LittleEndian.Uint32(buf[p+16:]) == 0xffffffff {
				if zip64, ok := zip64Entries(r, size-n+int64(p)); ok {
					records = zip64
				}
			}
			return records, nil
		}
		if i == 1 || n == size {
			return 0, nil
		}
	}
	return 0, nil
}

// zip64Entries is the count of entries of the zip64 end record that the
// locator before the end record at end points to, if there is one.
func zip64Entries(r io.ReaderAt, end int64) (uint64, bool) {
	var loc [20]byte
	if end < int64(len(loc)) {
		return 0, false
	}
	if _, err := r.ReadAt(loc[:], end-int64(len(loc))); err != nil ||
		binary.LittleEndian.Uint32(loc[0:]) != 0x07064b50 || binary.LittleEndian.Uint32(loc[4:]) != 0 ||
		binary.LittleEndian.Uint32(loc[16:]) != 1 {
		return 0, false
	}
	var rec [56]byte
	at := binary.LittleEndian.Uint64(loc[8:])
	if at > 1<<62 {
		return 0, false
	}
	if _, err := r.ReadAt(rec[:], int64(at)); err != nil || binary.LittleEndian.Uint32(rec[0:]) != 0x06064b50 {
		return 0, false
	}
	return binary.LittleEndian.Uint64(rec[32:]), true
}
