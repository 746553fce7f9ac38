package web

import (
	"cmp"
	"context"
	"fmt"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
	"havlak-lab/tools/verdict"
	"net/http"
	"slices"
	"strings"
	"time"
)

// maxResultsPerCommit bounds what one side of a comparison reads: a night
// of the whole suite is a few dozen results.
const maxResultsPerCommit = 2000

// A side is the results of one commit, by benchmark and workload: the
// newest of each when the commit was measured more than once.
type side struct {
	Commit string // as the results have it
	Night  string // the date asked for, when a night was: 2026-11-20
	// Others are the other commits of the night's results, in the order
	// they were measured, when it has more than one (nightCommit).
	Others  []string
	Results map[benchKey]history.Stored
	// Recent has, by benchmark, its figures' medians and its sweeps in
	// the history's newest results of the identity and environment of its
	// result here (history.Recent): what calibrates a base's thresholds,
	// its growths' too.
	Recent map[benchKey]history.RecentResults
}

// loadRecent reads the recent results of the identity of each of sd's
// results (verdict.Lab.HistoryResults of them), for sd as a base.
func (s *Server) loadRecent(ctx context.Context, sd *side) error {
	sd.Recent = map[benchKey]history.RecentResults{}
	for k, st := range sd.Results {
		r := st.Result
		if r.Identity == nil {
			continue
		}
		recent, err := s.db.Recent(ctx, history.RecentQuery{Benchmark: k.Benchmark, Workload: k.Workload,
			EnvKey: result.EnvironmentKey(r.Environment), Identity: *r.Identity, N: verdict.Lab.HistoryResults})
		if err != nil {
			return err
		}
		sd.Recent[k] = recent
	}
	return nil
}

// nightOf reads a side's parameter as a night, its date (2026-11-20: the
// night whose results started that day, UTC), if it is one.
func nightOf(asked string) (time.Time, bool) {
	if len(asked) != len(time.DateOnly) {
		return time.Time{}, false
	}
	day, err := time.Parse(time.DateOnly, asked)
	return day, err == nil
}

type benchKey struct{ Benchmark, Workload string }

// loadSide reads the results of the commit (a commit's name or a prefix of
// one) or of the night (its date) from the history: of a night of
// several commits, those of the commit nightCommit picks. A prefix of two
// commits' names is refused, naming them.
func (s *Server) loadSide(ctx context.Context, name, commit string) (side, int, error) {
	q := history.ResultQuery{Commit: commit}
	sd := side{Results: map[benchKey]history.Stored{}}
	if day, ok := nightOf(commit); ok {
		q, sd.Night = history.ResultQuery{}.Night(day), commit
	} else if commit == "" || strings.ContainsFunc(commit, func(c rune) bool {
		return !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z')
	}) {
		// The history refuses any other name too; this is the page's own
		// check of its parameter, to answer 400 rather than fail.
		return side{}, http.StatusBadRequest, fmt.Errorf("%s=%q: want a commit (its name or a prefix of it: letters and digits) or a night (its date, 2026-11-20)", name, commit)
	}
	stored, err := s.db.Results(ctx, q, maxResultsPerCommit)
	if err != nil {
		return side{}, http.StatusInternalServerError, err
	}
	commits := commitsOf(stored)
	switch {
	case len(commits) == 0 && sd.Night != "":
		return side{}, http.StatusNotFound, fmt.Errorf("%s=%s: the history has no result that started that day (UTC)", name, commit)
	case len(commits) == 0:
		return side{}, http.StatusNotFound, fmt.Errorf("%s=%s: the history has no result of such a commit", name, commit)
	case len(commits) > 1 && sd.Night == "":
		return side{}, http.StatusBadRequest, fmt.Errorf("%s=%s names more than one commit (%s): give more of it", name, commit, strings.Join(commits, ", "))
	}
	sd.Commit = nightCommit(stored)
	for _, st := range stored {
		if c := st.Result.Environment.Source.Commit; c != sd.Commit {
			if !slices.Contains(sd.Others, c) {
				sd.Others = append(sd.Others, c)
			}
			continue
		}
		// Oldest first: the newest of a benchmark stays.
		sd.Results[benchKey{st.Result.Benchmark.Name, st.Result.Benchmark.Workload.Name}] = st
	}
	return sd, 0, nil
}

// commitsOf are the commits of results, in the order they were measured.
func commitsOf(results []history.Stored) []string {
	var commits []string
	for _, st := range results {
		if c := st.Result.Environment.Source.Commit; !slices.Contains(commits, c) {
			commits = append(commits, c)
		}
	}
	return commits
}

// nightCommit is the commit that stands for a night whose results, oldest
// first, are of several commits (a personal history's runs by hand, a
// rerun): the one of the most results, of those the last measured. A
// night of the nightly job is its one commit of the whole suite; a run by
// hand that day, of fewer results, does not stand for it.
func nightCommit(results []history.Stored) string {
	count, last := map[string]int{}, map[string]int{}
	for i, st := range results {
		c := st.Result.Environment.Source.Commit
		count[c]++
		last[c] = i
	}
	return slices.MaxFunc(commitsOf(results), func(x, y string) int {
		return cmp.Or(cmp.Compare(count[x], count[y]), cmp.Compare(last[x], last[y]))
	})
}
