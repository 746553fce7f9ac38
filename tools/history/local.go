package history

import (
	"os"
	"path/filepath"

	"havlak-lab/internal/labcache"
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
)

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
