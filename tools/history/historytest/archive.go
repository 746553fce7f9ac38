package historytest

import (
	"context"
	"os"
	"path/filepath"
	"time"

	"havlak-lab/internal/labdir"
	"havlak-lab/tools/history"
	"havlak-lab/tools/runrecord"
)

// NightDir is night n's directory in the archive of the history kept in
// dir (history.NightsDir, history.NightName).
func NightDir(dir string, n int) string {
	return filepath.Join(dir, history.NightsDir, history.NightName(NightTime(n), Commit(n)))
}

// ArchiveNight archives night n of s in the archive of the history kept
// in dir as the nightly job does (tools/nightly): its results
// (WriteNight), ingested into db from there, its run's record (promoted:
// the night became the baseline), then the lab's marker. It returns the
// night's directory.
func ArchiveNight(ctx context.Context, db *history.DB, dir string, s Spec, n int, promoted bool) (string, error) {
	night := NightDir(dir, n)
	zips, err := WriteNight(night, s, n)
	if err != nil {
		return "", err
	}
	for _, zip := range zips {
		if _, err := db.Ingest(ctx, zip); err != nil {
			return "", err
		}
	}
	if _, err := RecordNight(dir, n, promoted); err != nil {
		return "", err
	}
	return night, labdir.Mark(night, labdir.NightArchive)
}

// RecordNight writes night n's run's record (a passed run, promoted or
// not) into its directory of the archive of the history kept in dir,
// making it: alone, it is a night that archived no result. It returns
// the night's directory.
func RecordNight(dir string, n int, promoted bool) (string, error) {
	night := NightDir(dir, n)
	if err := os.MkdirAll(night, 0o755); err != nil {
		return "", err
	}
	at := NightTime(n)
	r := &runrecord.Record{Started: at, Finished: at.Add(time.Hour), Status: runrecord.Passed, Promoted: promoted,
		ChangePoints: runrecord.ChangePointsOn}
	return night, runrecord.Write(filepath.Join(night, runrecord.FileName), r)
}
