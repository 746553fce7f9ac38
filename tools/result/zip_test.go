package result

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// zipDir is resulttest.ZipDir, which this package's own tests cannot
// import: WriteZip, into a directory it makes.
func zipDir(tb testing.TB, dir, path string) string {
	tb.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		tb.Fatal(err)
	}
	if err := WriteZip(dir, path); err != nil {
		tb.Fatal(err)
	}
	return path
}

func TestWriteZipIsWholeOrNothing(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "out", "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"out/a.txt": "a", "out/sub/b.txt": "bb"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	zip := zipDir(t, filepath.Join(dir, "out"), filepath.Join(dir, "z", ZipName))
	out, err := Open(zip)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if b, err := out.ReadFile("sub/b.txt"); err != nil || string(b) != "bb" {
		t.Errorf("sub/b.txt: %q, %v", b, err)
	}
	// An unreadable directory: no zip at all, not half of one.
	bad := filepath.Join(dir, "bad.zip")
	if err := WriteZip(filepath.Join(dir, "absent"), bad); err == nil {
		t.Error("a zip of a missing directory: no error")
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("%s after a failed WriteZip: %v, want none", bad, err)
	}
}

// manyEntries writes a zip of n empty entries, with the end records Go's
// writer gives it (zip64's from 65535 entries on), and returns its bytes.
func manyEntries(tb testing.TB, n int) []byte {
	tb.Helper()
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	for i := range n {
		if _, err := z.CreateHeader(&zip.FileHeader{Name: fmt.Sprintf("e%06d", i), Method: zip.Store}); err != nil {
			tb.Fatal(err)
		}
	}
	if err := z.Close(); err != nil {
		tb.Fatal(err)
	}
	return buf.Bytes()
}

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

func TestZipEntriesAreBounded(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, data []byte) string {
		path := filepath.Join(dir, name, ZipName)
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	atLimit := write("at", manyEntries(t, MaxZipEntries))
	out, err := Open(atLimit)
	if err != nil {
		t.Fatalf("a zip of %d entries: %v", MaxZipEntries, err)
	}
	out.Close()

	// A zip that says how many entries it has: refused on its word,
	// before a header is read.
	over := write("over", manyEntries(t, MaxZipEntries+1))
	var openErr error
	if n := allocated(func() { _, openErr = Open(over) }); n > 1<<20 {
		t.Errorf("refusing a zip of %d entries allocated %d bytes", MaxZipEntries+1, n)
	}
	want := fmt.Sprintf("%s: its directory claims %d entries, over the limit of %d: not read", over, MaxZipEntries+1, MaxZipEntries)
	if openErr == nil || openErr.Error() != want {
		t.Errorf("a zip of %d entries: %v, want %q", MaxZipEntries+1, openErr, want)
	}

	// 65636 entries, which Go's writer declares in a zip64 record; and the
	// same zip with only the classic end record, whose 16 bits claim 100
	// (65636 less 65536), which archive/zip takes, reading headers until
	// they end: refused by the bytes of its directory.
	const n = 65536 + 100
	data := manyEntries(t, n)
	honest := write("zip64", data)
	if _, err := Open(honest); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("claims %d entries", n)) {
		t.Errorf("a zip64 of %d entries: %v", n, err)
	}
	end64 := len(data) - 22 - 20 - 56
	if binary.LittleEndian.Uint32(data[end64:]) != 0x06064b50 {
		t.Fatal("no zip64 end record where Go's writer puts it")
	}
	dirSize, dirOffset := binary.LittleEndian.Uint64(data[end64+40:]), binary.LittleEndian.Uint64(data[end64+48:])
	lying := append([]byte(nil), data[:end64]...)
	lying = binary.LittleEndian.AppendUint32(lying, 0x06054b50)
	lying = binary.LittleEndian.AppendUint16(lying, 0)
	lying = binary.LittleEndian.AppendUint16(lying, 0)
	lying = binary.LittleEndian.AppendUint16(lying, n&0xffff)
	lying = binary.LittleEndian.AppendUint16(lying, n&0xffff)
	lying = binary.LittleEndian.AppendUint32(lying, uint32(dirSize))
	lying = binary.LittleEndian.AppendUint32(lying, uint32(dirOffset))
	lying = binary.LittleEndian.AppendUint16(lying, 0)
	if z, err := zip.NewReader(bytes.NewReader(lying), int64(len(lying))); err != nil || len(z.File) != n {
		t.Fatalf("archive/zip should read all %d entries of the lying zip: %v", n, err)
	}
	lyingPath := write("lying", lying)
	// The headers of the directory's first 1.5 MiB, about 8 MiB: what a
	// million took was 1.36 GB.
	if n := allocated(func() { _, openErr = Open(lyingPath) }); n > 16<<20 {
		t.Errorf("refusing the lying zip allocated %d bytes", n)
	}
	if openErr == nil || !strings.Contains(openErr.Error(), lyingPath+": its central directory is over") {
		t.Errorf("a zip of %d entries claiming %d: %v", n, n&0xffff, openErr)
	}
}
