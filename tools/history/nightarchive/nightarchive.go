// Package nightarchive keeps the history's archive of nights
// (history.NightsDir: each night's results as the history ingested them,
// its report and its run's record) from growing without bound, by a
// policy that keeps what the history, its alerts and the baseline cite
// (docs/history.md#pruning-the-archive). Decide lists the nights and
// decides which to keep; the Plan it returns says why of each night, and
// its Remove removes the others, each whole: renamed aside, then removed,
// so that no reader ever finds half a night.
//
// A Policy keeps:
//
//   - the newest KeepNights nights, whatever cites them;
//   - every night that results of the history were ingested from
//     (history.DB.Sources), unless MaxAge is set and the night is older:
//     its results stay in the database, figures and result.json whole,
//     and only their files (profiles, views) go (history.Stored.Outputs
//     reads them as gone);
//   - every night an open alert cites, or one whose last change or
//     finding is within MaxAge (every alert, without MaxAge): the night of
//     its report and profile diffs, the nights at the commits of its range
//     and of its last finding, and the nights of its times;
//   - the night the baseline was promoted from: the newest whose run's
//     record says it was;
//   - a night whose run's record cannot be read: it may be the baseline's.
//
// It never removes what it cannot classify, and names it (Plan.Left): an
// entry that is not a directory, one not named as a night (a night still
// being written, NIGHT.tmp), and a directory without the lab's marker
// (labdir.NightArchive) that holds anything but its run's record alone
// (what the nightly job leaves for a night that archived no result).
package nightarchive

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/labdir"
	"havlak-lab/tools/alert"
	"havlak-lab/tools/history"
	"havlak-lab/tools/runrecord"
)

// A Policy is what a prune keeps (the package's doc).
type Policy struct {
	// KeepNights is how many of the newest nights are kept whatever
	// cites them: at least 1, so that the night the gate just archived
	// stays.
	KeepNights int
	// MaxAge, when not zero, is the age past which the results a night
	// holds no longer keep it, and a closed alert no longer keeps the
	// nights it cites. Zero: they keep them however old.
	MaxAge time.Duration
	// Now is when ages are measured from.
	Now time.Time
}

// check says what is wrong with p.
func (p Policy) check() error {
	switch {
	case p.KeepNights < 1:
		return fmt.Errorf("keep %d nights: want at least 1 (the newest night is the one the gate just archived)", p.KeepNights)
	case p.MaxAge < 0:
		return fmt.Errorf("max age %s: want none (0) or a positive age", p.MaxAge)
	case p.Now.IsZero():
		return errors.New("no time to measure ages from")
	}
	return nil
}

// A Night is a night of the archive.
type Night struct {
	// Name is its directory's name in the archive (history.NightName),
	// Started and Commit what the name says.
	Name    string
	Started time.Time
	Commit  string
	// Archived: the night archived results (the lab's marker is there);
	// else its directory holds its run's record alone.
	Archived bool
	// Promoted: its run's record says the night became the baseline.
	Promoted bool
	// RecordErr is why its run's record could not be read, nil when it
	// was, or when it has none (a night from before the records).
	RecordErr error
}

// A Decision is what a plan does with a night.
type Decision struct {
	Night
	// Kept says why it is kept, one reason a line; none: it is removed.
	Kept []string
}

// Keep tells whether the night is kept.
func (d Decision) Keep() bool { return len(d.Kept) > 0 }

// A Left is an entry of the archive a plan cannot classify: it is left as
// it is.
type Left struct {
	Name, Why string
}

// A Plan is what a prune of an archive keeps and removes.
type Plan struct {
	// Dir is the archive's directory of nights.
	Dir string
	// Nights are its nights, oldest first.
	Nights []Decision
	// Left are the entries it cannot classify, and leaves.
	Left []Left
	// Leftovers are what an earlier prune, stopped between renaming
	// nights aside and removing them, left (aside names): removed.
	Leftovers []string
}

// Removed is the nights the plan removes, oldest first.
func (p *Plan) Removed() []Decision {
	var removed []Decision
	for _, d := range p.Nights {
		if !d.Keep() {
			removed = append(removed, d)
		}
	}
	return removed
}

// asideSuffix ends the name a night is renamed to before it is removed:
// ".NIGHT.pruned", which no reader takes for a night (the dot first).
const asideSuffix = ".pruned"

// aside is the name night is renamed to before its removal.
func aside(night string) string { return "." + night + asideSuffix }

// leftover tells whether name is the aside name of a night.
func leftover(name string) bool {
	night, ok := strings.CutPrefix(name, ".")
	if night, ok = strings.CutSuffix(night, asideSuffix); !ok {
		return false
	}
	_, _, ok = history.ParseNightName(night)
	return ok
}

// Decide lists the nights of the archive in historyDir (its
// history.NightsDir) and decides, by p, which to keep, from what db, the
// archive's history, cites. It changes nothing. A database that cites
// none of the archive's nights is refused: it is not this archive's
// history, and the nights it would keep are others.
func Decide(ctx context.Context, db *history.DB, historyDir string, p Policy) (*Plan, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	plan := &Plan{Dir: filepath.Join(historyDir, history.NightsDir)}
	entries, err := os.ReadDir(plan.Dir)
	if err != nil {
		return nil, fmt.Errorf("the archive of nights: %w", err)
	}
	var nights []Night
	for _, e := range entries {
		if e.IsDir() && leftover(e.Name()) {
			plan.Leftovers = append(plan.Leftovers, e.Name())
			continue
		}
		night, why := classify(plan.Dir, e)
		if why != "" {
			plan.Left = append(plan.Left, Left{Name: e.Name(), Why: why})
			continue
		}
		nights = append(nights, night)
	}
	slices.SortFunc(nights, func(a, b Night) int { return a.Started.Compare(b.Started) })
	c, err := citations(ctx, db, nights, p)
	if err != nil {
		return nil, err
	}
	if err := c.sameHistory(db, plan.Dir, nights); err != nil {
		return nil, err
	}
	baseline := -1
	for i, n := range nights {
		if n.Promoted {
			baseline = i
		}
	}
	for i, n := range nights {
		d := Decision{Night: n}
		switch {
		case i == len(nights)-1:
			d.Kept = append(d.Kept, "the newest night")
		case i >= len(nights)-p.KeepNights:
			d.Kept = append(d.Kept, fmt.Sprintf("one of the newest %d nights", p.KeepNights))
		}
		if c.results[n.Name] {
			if p.MaxAge == 0 || p.Now.Sub(n.Started) <= p.MaxAge {
				d.Kept = append(d.Kept, "results of the history were ingested from it")
			}
		}
		d.Kept = append(d.Kept, c.alerts[n.Name]...)
		if i == baseline {
			d.Kept = append(d.Kept, "the baseline was promoted from it (its run's record)")
		}
		if n.RecordErr != nil {
			d.Kept = append(d.Kept, fmt.Sprintf("its run's record is unreadable, so it may be the baseline's night: %v", n.RecordErr))
		}
		plan.Nights = append(plan.Nights, d)
	}
	return plan, nil
}

// classify says what the entry e of the archive's directory dir is: a
// night, or why it is not one (which leaves it).
func classify(dir string, e fs.DirEntry) (Night, string) {
	switch {
	case e.Type()&fs.ModeSymlink != 0:
		return Night{}, "a symbolic link, not a night's directory"
	case !e.IsDir():
		return Night{}, "not a directory"
	}
	started, commit, ok := history.ParseNightName(e.Name())
	if !ok {
		return Night{}, "not named as a night (TIME-COMMIT): a night still being written, or not the lab's"
	}
	n := Night{Name: e.Name(), Started: started, Commit: commit}
	path := filepath.Join(dir, e.Name())
	record := filepath.Join(path, runrecord.FileName)
	state, err := labdir.Check("the archive's night", path, labdir.NightArchive, nil)
	if err == nil && state == labdir.Marked {
		n.Archived = true
		r, err := runrecord.Read(record)
		switch {
		case err == nil:
			n.Promoted = r.Promoted
		case !errors.Is(err, fs.ErrNotExist):
			n.RecordErr = err
		}
		return n, ""
	}
	if _, merr := os.Lstat(filepath.Join(path, labdir.Marker)); merr == nil {
		why := fmt.Sprintf("its %s is not a night's archive's", labdir.Marker)
		if err != nil {
			why = err.Error()
		}
		return Night{}, why
	}
	// Unmarked: a night that archived no result holds its run's record
	// alone, and nothing else is the lab's.
	names, rerr := readNames(path)
	switch {
	case rerr != nil:
		return Night{}, rerr.Error()
	case len(names) == 0:
		return Night{}, "an empty directory without the lab's marker: a night being written, or not the lab's"
	case len(names) > 1 || names[0] != runrecord.FileName:
		return Night{}, fmt.Sprintf("no %s (the mark of a night that archived its results), and more than its run's record", labdir.Marker)
	}
	info, err := os.Lstat(record)
	if err != nil {
		return Night{}, err.Error()
	}
	if !info.Mode().IsRegular() {
		return Night{}, fmt.Sprintf("its %s is not a regular file", runrecord.FileName)
	}
	r, err := runrecord.Read(record)
	if err != nil {
		return Night{}, fmt.Sprintf("holds only a %s that is not a run's record: %v", runrecord.FileName, err)
	}
	n.Promoted = r.Promoted
	return n, ""
}

// readNames is the names in the directory path, at most two: enough to
// tell a run's record alone from more.
func readNames(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	names, err := f.Readdirnames(2)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return names, err
}

// cited is what the history cites of the archive's nights, by name.
type cited struct {
	// results: results were ingested from the night.
	results map[string]bool
	// alerts: why alerts keep the night ("alert 12 (acknowledged) cites
	// it").
	alerts map[string][]string
}

// citations reads what db cites of nights: the nights of its results'
// sources, and those the alerts p counts cite.
func citations(ctx context.Context, db *history.DB, nights []Night, p Policy) (cited, error) {
	c := cited{results: map[string]bool{}, alerts: map[string][]string{}}
	err := db.Sources(ctx, func(source string) error {
		if night := nightOf(source); night != "" {
			c.results[night] = true
		}
		return nil
	})
	if err != nil {
		return cited{}, err
	}
	all, err := db.Alerts(ctx)
	if err != nil {
		return cited{}, err
	}
	for _, a := range all {
		if !a.State().Open() && p.MaxAge > 0 && p.Now.Sub(lastActivity(a)) > p.MaxAge {
			continue
		}
		why := fmt.Sprintf("alert %d (%s) cites it", a.ID, a.State())
		for _, night := range alertNights(a, nights) {
			if !slices.Contains(c.alerts[night], why) {
				c.alerts[night] = append(c.alerts[night], why)
			}
		}
	}
	return c, nil
}

// sameHistory refuses a database that cites none of the archive's
// nights that archived results, while there are some: every result the
// nightly job archives it ingests, and the database keeps them all, so
// that db is another archive's history (or none's), whose citations say
// nothing of these nights.
func (c cited) sameHistory(db *history.DB, dir string, nights []Night) error {
	archived := 0
	for _, n := range nights {
		if n.Archived {
			archived++
			if c.results[n.Name] {
				return nil
			}
		}
	}
	if archived == 0 {
		return nil
	}
	return fmt.Errorf("%s: no result of the history was ingested from any of the %d nights that archived results in %s: "+
		"it is not this archive's history; refused, nothing removed", db.Name(), archived, dir)
}

// nightOf is the night of the archive that path (a result's source, an
// alert's report) is in: the name of the directory under a directory
// named history.NightsDir, "" for none. Only the names count, so that an
// archive moved, or reached through another path, is still found.
func nightOf(path string) string {
	if path == "" {
		return ""
	}
	for p := filepath.Clean(path); ; {
		parent := filepath.Dir(p)
		if parent == p {
			return ""
		}
		if filepath.Base(parent) == history.NightsDir {
			return filepath.Base(p)
		}
		p = parent
	}
}

// lastActivity is when a was last found or changed.
func lastActivity(a alert.Alert) time.Time {
	last := a.LastFound
	for _, c := range a.Changes {
		if c.At.After(last) {
			last = c.At
		}
	}
	return last
}

// alertNights are the nights (oldest first) alert a cites: its report's
// and profile diffs', the nights at the commits of its range and its
// last finding, and the nights its times fall in (nightAt).
func alertNights(a alert.Alert, nights []Night) []string {
	var names []string
	for _, path := range append([]string{a.Report}, a.ProfileDiffs...) {
		if night := nightOf(path); night != "" {
			names = append(names, night)
		}
	}
	for _, commit := range []string{a.Range.From, a.Range.To, a.LastFoundCommit} {
		if commit == "" {
			continue
		}
		for _, n := range nights {
			if n.Commit == gitwork.Short(commit) {
				names = append(names, n.Name)
			}
		}
	}
	for _, t := range []time.Time{a.Range.FromTime, a.Range.ToTime, a.LastPoint, a.FirstFound, a.LastFound} {
		if night := nightAt(nights, t); night != "" {
			names = append(names, night)
		}
	}
	slices.Sort(names)
	return slices.Compact(names)
}

// nightAt is the night a point measured at t belongs to: the newest of
// nights (oldest first) that started no later than t; "" for none, or a
// zero t.
func nightAt(nights []Night, t time.Time) string {
	if t.IsZero() {
		return ""
	}
	i, _ := slices.BinarySearchFunc(nights, t, func(n Night, t time.Time) int {
		if n.Started.After(t) {
			return 1
		}
		return -1
	})
	if i == 0 {
		return ""
	}
	return nights[i-1].Name
}

// Remove removes what an earlier prune left (Leftovers), then each night
// the plan does not keep: classified again as it is now (a night that
// changed since Decide is left, and said so), renamed aside, then
// removed. It calls removed with each night's name once it is gone, and
// stops at the first error.
func (p *Plan) Remove(removed func(night string)) error {
	for _, name := range p.Leftovers {
		if err := os.RemoveAll(filepath.Join(p.Dir, name)); err != nil {
			return fmt.Errorf("removing %s, which an earlier prune left: %w", filepath.Join(p.Dir, name), err)
		}
	}
	for _, d := range p.Removed() {
		path := filepath.Join(p.Dir, d.Name)
		info, err := os.Lstat(path)
		if err != nil {
			return fmt.Errorf("the night %s: %w", path, err)
		}
		now, why := classify(p.Dir, fs.FileInfoToDirEntry(info))
		if why != "" || now.Archived != d.Archived || now.Promoted != d.Promoted || (now.RecordErr == nil) != (d.RecordErr == nil) {
			return fmt.Errorf("the night %s changed since the plan was made: left, and the prune stopped", path)
		}
		to := filepath.Join(p.Dir, aside(d.Name))
		if err := os.Rename(path, to); err != nil {
			return fmt.Errorf("the night %s: %w", path, err)
		}
		if err := os.RemoveAll(to); err != nil {
			return fmt.Errorf("the night %s, renamed %s to be removed: %w (the next prune removes it)", path, to, err)
		}
		removed(d.Name)
	}
	return nil
}
