package history

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"time"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labcache"
	"havlak-lab/tools/result"
)

// The lab's local history: the one the nightly job keeps and the
// dashboard shows when told of no other.
const (
	// DSNEnv names another database for it.
	DSNEnv = "HAVLAK_LAB_HISTORY"
	// DirEnv names another directory for its nights and SQLite file.
	DirEnv = "HAVLAK_LAB_HISTORY_DIR"
	// sqliteFile is the SQLite database's name in that directory.
	sqliteFile = "history.sqlite"
	// NightsDir is the directory, in that directory (or the nightly job's
	// --history-dir), where the nightly job archives each night it
	// records: NightsDir/NIGHT/TEST/outputs.zip, a result as the history
	// ingests it (its source), and NightsDir/NIGHT/report/, the night's
	// report; the night is archived once the lab's marker is there too
	// (labdir.NightArchive). The dashboard serves them from there
	// (--archive).
	NightsDir = "nights"
	// nightStamp is the layout of the time in a night's name (NightName).
	nightStamp = "20060102T150405Z"
)

// ArchivedResult is where the archive keeps the result of test of the
// night named night: NightsDir/NIGHT/TEST/outputs.zip (result.NightZip in
// the night's directory), relative to the history's directory and
// slash-separated, as an fs.FS or an os.Root names it.
func ArchivedResult(night, test string) string {
	return path.Join(NightsDir, night, test, result.ZipName)
}

// ParseArchivedResult reads the night and the test of a path that ends as
// ArchivedResult's (.../nights/NIGHT/TEST/outputs.zip), whatever is before
// it: an archive moved or mounted elsewhere than where the nightly job
// wrote it is still read. The names are not checked.
func ParseArchivedResult(p string) (night, test string, ok bool) {
	parts := strings.Split(filepath.ToSlash(p), "/")
	if len(parts) < 4 {
		return "", "", false
	}
	parts = parts[len(parts)-4:]
	if parts[0] != NightsDir || parts[3] != result.ZipName {
		return "", "", false
	}
	return parts[1], parts[2], true
}

// NightName is the name, in NightsDir, of the night that started then at
// commit: its time in UTC to the second and its commit's short name
// (gitwork.Short, "unknown" for none), 20261106T020000Z-0123456789ab. The
// names sort as the nights ran.
func NightName(started time.Time, commit string) string {
	return started.UTC().Format(nightStamp) + "-" + gitwork.Short(commit)
}

// ParseNightName reads a name NightName made: when the night started and
// its commit's short name. Any other name, a temporary one beside a night
// (NIGHT.tmp) say, is false.
func ParseNightName(name string) (started time.Time, commit string, ok bool) {
	stamp, commit, found := strings.Cut(name, "-")
	if !found || commit == "" {
		return time.Time{}, "", false
	}
	for _, c := range commit {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return time.Time{}, "", false
		}
	}
	started, err := time.Parse(nightStamp, stamp)
	if err != nil || started.Format(nightStamp) != stamp {
		return time.Time{}, "", false
	}
	return started, commit, true
}

// LocalDir is the local history's directory: $HAVLAK_LAB_HISTORY_DIR, else
// history in the lab's cache directory.
func LocalDir() (string, error) {
	if dir := os.Getenv(DirEnv); dir != "" {
		return dir, nil
	}
	return labcache.Dir("history")
}

// DirDSN is the DSN of the SQLite history kept in dir.
func DirDSN(dir string) string { return "sqlite:" + filepath.Join(dir, sqliteFile) }

// LocalDSN is the local history's DSN: $HAVLAK_LAB_HISTORY, else the
// SQLite file in LocalDir.
func LocalDSN() (string, error) {
	if dsn := os.Getenv(DSNEnv); dsn != "" {
		return dsn, nil
	}
	dir, err := LocalDir()
	if err != nil {
		return "", err
	}
	return DirDSN(dir), nil
}
