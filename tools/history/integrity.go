package history

import (
	"encoding/json"
	"os"
	"time"

	"havlak-lab/internal/atomicfile"
)

// SQLite's integrity check (checkIntegrity) reads the whole file: 14 s for
// the 7.8 GB of three years' history (docs/scale.md). A file the lab's
// own writers left, checked and untouched since, need not be read again:
// SQLite itself keeps it sound across their crashes (write-ahead log), so
// damage comes from outside them (a copy over it, a bad disk, another
// program), which changes the file's status. checkedSuffix's file beside
// the database records, after a writer's clean Close, the status of the
// file as it left it (its stamp) and when the check last ran; a process
// whose file still has that stamp skips the check. Anything else checks:
// no record, another stamp (any write since by whatever did not record,
// a writer that died, a log left over), a record older than
// integrityRecheck (what the stamp cannot see, a disk's decay, goes unseen
// no longer than that), or a system without stamps.

// checkedSuffix names the record of a database's integrity check, beside
// it as SQLite's -wal and -shm files are.
const checkedSuffix = "-checked"

// CheckRecord is the path of the record of the integrity check of the
// SQLite database at path.
func CheckRecord(path string) string { return path + checkedSuffix }

// integrityRecheck is how long a check stands for an unchanged file.
const integrityRecheck = 7 * 24 * time.Hour

// A fileStamp is what changes when anything writes a file: its identity,
// size, and modification and status-change times (the status change is
// the kernel's own: no copy or touch sets it back).
type fileStamp struct {
	Dev, Ino         uint64
	Size             int64
	MtimeNS, CtimeNS int64
}

// A dbStamp is the stamp of the database and the size of its write-ahead
// log: one holding writes not yet in the database (a writer that died, or
// one still writing) is checked.
type dbStamp struct {
	DB     fileStamp
	WALLen int64
}

// checkRecord is the record of checkedSuffix's file.
type checkRecord struct {
	Stamp     dbStamp
	CheckedNS int64 // when the check last ran over the file
}

// stampOf is the stamp of the SQLite database at path; false when the
// system gives none.
func stampOf(path string) (dbStamp, bool) {
	db, ok := statStamp(path)
	if !ok {
		return dbStamp{}, false
	}
	s := dbStamp{DB: db}
	switch info, err := os.Stat(path + "-wal"); {
	case err == nil:
		s.WALLen = info.Size()
	case !os.IsNotExist(err):
		return dbStamp{}, false
	}
	return s, true
}

// checkedBefore says whether the database at path is as the last writer
// that recorded it left it, within integrityRecheck of the check, and
// when that check ran.
func checkedBefore(path string, now time.Time) (time.Time, bool) {
	data, err := os.ReadFile(path + checkedSuffix)
	if err != nil {
		return time.Time{}, false
	}
	var r checkRecord
	if err := json.Unmarshal(data, &r); err != nil {
		return time.Time{}, false
	}
	stamp, ok := stampOf(path)
	checked := time.Unix(0, r.CheckedNS)
	if !ok || stamp != r.Stamp || now.Sub(checked) >= integrityRecheck || checked.After(now) {
		return time.Time{}, false
	}
	return checked, true
}

// recordChecked records the database at path as checked at checked, as it
// is now. A record that cannot be written only costs the next process a
// check.
func recordChecked(path string, checked time.Time) {
	stamp, ok := stampOf(path)
	if !ok {
		os.Remove(path + checkedSuffix)
		return
	}
	data, err := json.Marshal(checkRecord{Stamp: stamp, CheckedNS: checked.UnixNano()})
	if err == nil {
		atomicfile.WriteFile(path+checkedSuffix, data, 0o644)
	}
}
