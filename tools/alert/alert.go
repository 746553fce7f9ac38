// Package alert is the lab's one owner of what a finding of the nightly
// job becomes once people act on it: the alert model (what was found,
// where, how big, on what evidence), its states and who moved it between
// them, the identity that makes the same finding on the next night the same
// alert, and whether a night fails on the alerts it has.
//
// It is a package of its own, not part of tools/history, because it
// decides and stores nothing: tools/history keeps alerts as records (its
// alerts tables, on SQLite and PostgreSQL) and applies this package's
// Reconcile and Transition inside its transactions; the nightly job
// (tools/nightly) turns what its gates found into Findings and asks Fails
// and HoldsBaseline; `history alerts` changes states through Transition.
// None of them decides on its own.
//
// # Kinds
//
//   - regression: tonight's comparison with the baseline (the report,
//     benchgate) found a gated figure worse, by tools/verdict's rule;
//   - change_point: the history's change-point search (tools/changepoint)
//     found a shift for the worse that tonight's point brought;
//   - missing: the baseline has a benchmark or a gated figure that tonight
//     lacks;
//   - stale: a series, a benchmark or a whole environment key got no point
//     for a number of the history's nights (FindStale);
//   - environment_change: tonight's results ran in another environment
//     than the baseline's (another machine, toolchain, ...,
//     result.DifferencesFor), or were measured by another version of the
//     lab (re-baselined: result.AnotherLab): its evidence says what changed
//     and which benchmarks restart their baselines tonight.
//
// # States
//
//	new           found, nobody has looked yet: a regression or change
//	              point in this state fails the night
//	acknowledged  known, with a note or an issue link: listed, does not fail
//	accepted      an intended change (a Perf-Accepted: trailer, or by hand):
//	              the series' new level is its baseline from Range.To on
//	ignored       noise, with a reason
//	fixed         the series came back (seen by the nightly job) or was
//	              fixed by hand
//
// Rules (rules.go) is the one table of the states and the actions into
// them: what each allows and takes, how pages show it.
//
// A missing result fails the night whatever its alert's state: what a gate
// cannot see fails it (docs/security.md); leaving the suite is the gate's
// --retire. A stale series never fails a night: it is listed. An
// environment change never fails a night either, and no night fixes it:
// it stays open until someone acknowledges, ignores or fixes it, since
// the night after it compares with a baseline in the new environment and
// has nothing to say about it.
package alert

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/result"
)

// A Kind is what was found.
type Kind string

// The kinds of alert.
const (
	Regression  Kind = "regression"
	ChangePoint Kind = "change_point"
	Missing     Kind = "missing"
	Stale       Kind = "stale"
	// EnvironmentChange: a finding for triage, never failing a night.
	EnvironmentChange Kind = "environment_change"
)

// Kinds are every kind, in the order tables list them.
var Kinds = []Kind{Regression, ChangePoint, Missing, Stale, EnvironmentChange}

// ParseKind reads a kind, naming the valid ones when s is none.
func ParseKind(s string) (Kind, error) {
	if k := Kind(s); slices.Contains(Kinds, k) {
		return k, nil
	}
	return "", fmt.Errorf("kind %q: want one of %s", s, join(Kinds, ", "))
}

// level tells whether the kind is a change of a series' level.
func (k Kind) level() bool { return k == Regression || k == ChangePoint }

// A State is where an alert is in its triage.
type State string

// The states of an alert; Rules (rules.go) says what each is and allows.
const (
	New          State = "new"
	Acknowledged State = "acknowledged"
	Accepted     State = "accepted"
	Ignored      State = "ignored"
	Fixed        State = "fixed"
)

// ParseState reads a state, naming the valid ones when s is none.
func ParseState(s string) (State, error) {
	if st := State(s); slices.Contains(States, st) {
		return st, nil
	}
	return "", fmt.Errorf("state %q: want one of %s", s, join(States, ", "))
}

// Open tells whether the state still asks for work or tracks a change:
// every state but fixed.
func (s State) Open() bool { return RuleOf(s).Open }

// A Series names what an alert is about: a figure of a benchmark on a
// workload in one class of comparable environments (result.EnvironmentKey).
// A stale alert of a whole benchmark has no Figure; of a whole
// environment, no Benchmark either.
type Series struct {
	Benchmark string `json:"benchmark,omitempty"`
	Figure    string `json:"figure,omitempty"`
	Unit      string `json:"unit,omitempty"`
	Workload  string `json:"workload,omitempty"`
	EnvKey    string `json:"env_key,omitempty"`
}

func (s Series) same(o Series) bool {
	return s.Benchmark == o.Benchmark && s.Figure == o.Figure && s.Unit == o.Unit && s.Workload == o.Workload && s.EnvKey == o.EnvKey
}

// String names the series for people: "havlak6 own_instructions (quick)".
func (s Series) String() string {
	var parts []string
	switch {
	case s.Benchmark == "" && s.EnvKey != "":
		parts = append(parts, "environment "+s.EnvKey)
	case s.Benchmark != "":
		parts = append(parts, s.Benchmark)
	}
	if s.Figure != "" {
		parts = append(parts, s.Figure)
	}
	text := strings.Join(parts, " ")
	if s.Workload != "" {
		text += " (" + s.Workload + ")"
	}
	return text
}

// A Range is where a change came in: after From, up to and including To
// (commits), with the times of the points measured at them.
type Range struct {
	From     string    `json:"from,omitempty"`
	To       string    `json:"to,omitempty"`
	FromTime time.Time `json:"from_time"`
	ToTime   time.Time `json:"to_time"`
}

// overlaps tells whether two ranges share a point: (From, To] each.
func (r Range) overlaps(o Range) bool {
	return r.FromTime.Before(o.ToTime) && o.FromTime.Before(r.ToTime)
}

// A Finding is what a night found: it opens an alert, or is matched to the
// alert that it found before.
type Finding struct {
	Kind Kind `json:"kind"`
	Series
	Range Range `json:"range"`
	// FirstBad is the first bad commit, when it was bisected, with its
	// subject.
	FirstBad        string `json:"first_bad,omitempty"`
	FirstBadSubject string `json:"first_bad_subject,omitempty"`
	// Size is the relative change, +0.03 for 3% more; Before and After
	// the levels on either side.
	Size   float64 `json:"size"`
	Before float64 `json:"before"`
	After  float64 `json:"after"`
	// Evidence says what the finding rests on, in words.
	Evidence string `json:"evidence,omitempty"`
	// Report is the report of the night that found it; ProfileDiffs its
	// profile diffs of the benchmark. An alert keeps those of the night
	// that opened it (Reconcile), where the change came in.
	Report       string   `json:"report,omitempty"`
	ProfileDiffs []string `json:"profile_diffs,omitempty"`
	// LastPoint is, for a stale or missing finding, the night the series
	// was last seen.
	LastPoint time.Time `json:"last_point"`
	// Known: a change point found without tonight's point too. It matches
	// an alert that found it before, but opens none: it is a change of the
	// history from before its alerts were kept.
	Known bool `json:"known,omitempty"`
	// Accepted is the reason a commit since the baseline gave for this
	// change (a Perf-Accepted: trailer), "" when none did.
	Accepted string `json:"accepted,omitempty"`
}

// A Change is one move of an alert into a state, or one assignment
// (assign.go): by whom, when, and why.
type Change struct {
	State State     `json:"state"`
	By    string    `json:"by"`
	At    time.Time `json:"at"`
	// Note is the note or reason; Issue an issue's link.
	Note  string `json:"note,omitempty"`
	Issue string `json:"issue,omitempty"`
	// Assignee is who the alert is assigned to from this change on, ""
	// for nobody: a change of state keeps the one before (then), an
	// assignment (Assign) changes it and keeps the state.
	Assignee string `json:"assignee,omitempty"`
}

// An Alert is a finding and its triage.
type Alert struct {
	ID int64 `json:"id"`
	Finding
	// FirstFound and LastFound are the first and latest night that found
	// it; LastFoundCommit is the latter's commit.
	FirstFound      time.Time `json:"first_found"`
	LastFound       time.Time `json:"last_found"`
	LastFoundCommit string    `json:"last_found_commit,omitempty"`
	// Changes are its states, oldest first: the last is the current one.
	Changes []Change `json:"changes"`
}

// State is the alert's current state.
func (a Alert) State() State {
	if len(a.Changes) == 0 {
		return New
	}
	return a.Changes[len(a.Changes)-1].State
}

// Assignee is who the alert is assigned to, "" for nobody.
func (a Alert) Assignee() string {
	if len(a.Changes) == 0 {
		return ""
	}
	return a.Changes[len(a.Changes)-1].Assignee
}

// then is a's changes with c after them, c keeping a's assignee: only
// Assign changes who it is assigned to.
func (a Alert) then(c Change) []Change {
	c.Assignee = a.Assignee()
	return append(slices.Clone(a.Changes), c)
}

// Current is the change that put the alert in its state: its note or
// issue are what is known of it, whatever assignments came after.
func (a Alert) Current() Change {
	if len(a.Changes) == 0 {
		return Change{State: New}
	}
	i := len(a.Changes) - 1
	for i > 0 && a.Assigned(i) {
		i--
	}
	return a.Changes[i]
}

// Fails tells whether the alert, found tonight, fails the night: a
// regression or change point nobody has looked at, or a missing result.
func (a Alert) Fails() bool {
	switch a.Kind {
	case Missing:
		return a.State() != Fixed
	case Regression, ChangePoint:
		return a.State() == New
	}
	return false
}

// HoldsBaseline tells whether the alert, found tonight, keeps the night
// from becoming the nightly baseline: a regression against the baseline
// that is not accepted stays measured against the good level, so that the
// night it comes back is seen (and the alert fixed).
func (a Alert) HoldsBaseline() bool {
	return a.Fails() || a.Kind == Regression && a.State() != Accepted && a.State().Open()
}

// Matches tells whether f is the finding a found before. Findings match
// by kind and series, and for a change of level by where it came in:
//
//   - a regression matches an open regression of the series (the baseline
//     it is measured against stays while it is open), and an open change
//     point whose range overlaps its own;
//   - a change point matches an alert of the series, fixed ones too, whose
//     range overlaps its own: the history's search finds an old change
//     again every night, and with more points may move it by a commit;
//   - a missing, stale or environment change finding matches an open
//     alert of its kind (of an environment change: the same new
//     environment, against a baseline that stayed).
func (a Alert) Matches(f Finding) bool {
	if !a.Series.same(f.Series) {
		return false
	}
	switch f.Kind {
	case Regression:
		return a.State().Open() && (a.Kind == Regression || a.Kind == ChangePoint && a.Range.overlaps(f.Range))
	case ChangePoint:
		return a.Kind.level() && (a.State().Open() || a.Kind == ChangePoint) && a.Range.overlaps(f.Range)
	}
	return a.Kind == f.Kind && a.State().Open()
}

// Errors of Transition; the message says more.
var (
	ErrState  = errors.New("not allowed in its state")
	ErrReason = errors.New("needs a reason")
	ErrIssue  = errors.New("not an issue's link")
)

// Transition moves a into c.State, checked by the state's rule (Rules):
// the move must be allowed from a's state (acknowledged may be moved
// again, to change its note), the words it takes must be there (a note or
// an http(s) issue link; a reason, in Note), and a state of changes of
// level only (accepted) takes no other kind. c.By and c.At must be set;
// the alert stays assigned as it was (c.Assignee is not read).
func Transition(a Alert, c Change) (Alert, error) {
	from := a.State()
	where := fmt.Sprintf("alert %d (%s %s, %s)", a.ID, a.Kind, a.Series, from)
	if _, err := ParseState(string(c.State)); err != nil {
		return a, fmt.Errorf("%s: %w", where, err)
	}
	rule := RuleOf(c.State)
	if to := RuleOf(from).To; !slices.Contains(to, c.State) {
		return a, fmt.Errorf("%s: %w: from %s it may become %s", where, ErrState, from, join(to, ", "))
	}
	c.Note = strings.TrimSpace(c.Note)
	c.Issue = strings.TrimSpace(c.Issue)
	if c.Issue != "" {
		u, err := url.Parse(c.Issue)
		if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
			return a, fmt.Errorf("%s: %w: issue %q: want the issue's http(s) link", where, ErrIssue, c.Issue)
		}
	}
	switch {
	case c.By == "" || c.At.IsZero():
		return a, fmt.Errorf("%s: a change of state needs who made it and when", where)
	case rule.Words == NoteOrIssue && c.Note == "" && c.Issue == "":
		return a, fmt.Errorf("%s: %w: %s takes a note or an issue link", where, ErrReason, rule.Doing)
	case rule.Words == Reason && c.Note == "":
		return a, fmt.Errorf("%s: %w: say why it is %s", where, ErrReason, c.State)
	case rule.LevelOnly && !a.Kind.level():
		return a, fmt.Errorf("%s: %w: only a change of level (regression, change point) is %s; "+
			"a missing benchmark leaves the suite with the gate's --retire, a stale series is ignored, "+
			"an environment change is acknowledged", where, ErrState, c.State)
	}
	a.Changes = a.then(c)
	return a, nil
}

// ResetAt is where the series' level was last accepted: the time of the
// first point at the new level, which later searches for change points
// start from; zero when no alert of the series is accepted.
func ResetAt(alerts []Alert, s Series) time.Time {
	var at time.Time
	for _, a := range alerts {
		if a.Kind.level() && a.State() == Accepted && a.Series.same(s) && a.Range.ToTime.After(at) {
			at = a.Range.ToTime
		}
	}
	return at
}

// A Night is one run of the nightly job, as it enters the alerts.
type Night struct {
	Time   time.Time
	Commit string
	// By is who the night's own changes of state are by ("nightly").
	By string
}

// Reconcile applies a night's findings to the alerts there are: a finding
// that matches an alert updates it (found again tonight; a trailer's
// acceptance accepts it); one that matches none opens one, new or, with a
// trailer, accepted; an open alert (not accepted, nor an environment
// change, which people close) that tonight did not find is fixed when
// cleared says why: tonight looked at what it is about and found it well
// ("" when it did not, or cleared is nil). It returns every
// alert it changed or opened (those it opened have ID 0), in the order of
// findings, then of the alerts fixed.
func Reconcile(alerts []Alert, findings []Finding, night Night, cleared func(Alert) string) []Alert {
	alerts = slices.Clone(alerts)
	var touched []int // indexes into alerts
	touch := func(i int) {
		if !slices.Contains(touched, i) {
			touched = append(touched, i)
		}
	}
	for _, f := range findings {
		i := slices.IndexFunc(alerts, func(a Alert) bool { return a.Matches(f) })
		if i < 0 {
			if f.Known {
				continue
			}
			a := Alert{Finding: f, FirstFound: night.Time, Changes: []Change{{State: New, By: night.By, At: night.Time}}}
			if f.Accepted != "" {
				a.Changes[0] = Change{State: Accepted, By: night.By + " (Perf-Accepted trailer)", At: night.Time, Note: f.Accepted}
			}
			alerts = append(alerts, a)
			i = len(alerts) - 1
		} else {
			a := &alerts[i]
			// What tonight adds: a bisected first bad commit, a report
			// when the alert has none. Where and how big it came in, on
			// what evidence, and the report and profile diffs of the
			// night that opened it (the night the change came in, which
			// later nights' reports compare past) stay as first found.
			if f.FirstBad != "" {
				a.FirstBad, a.FirstBadSubject = f.FirstBad, f.FirstBadSubject
			}
			if a.Report == "" && f.Report != "" {
				a.Report, a.ProfileDiffs = f.Report, f.ProfileDiffs
			}
			if f.Accepted != "" && a.State() != Accepted {
				a.Changes = a.then(Change{State: Accepted, By: night.By + " (Perf-Accepted trailer)", At: night.Time, Note: f.Accepted})
			}
		}
		alerts[i].LastFound, alerts[i].LastFoundCommit = night.Time, night.Commit
		touch(i)
	}
	for i, a := range alerts {
		if a.LastFound.Equal(night.Time) || !a.State().Open() || a.State() == Accepted || a.Kind == EnvironmentChange || cleared == nil {
			continue
		}
		if why := cleared(a); why != "" {
			alerts[i].Changes = a.then(Change{State: Fixed, By: night.By, At: night.Time,
				Note: why + " on the night of " + night.Time.UTC().Format("2006-01-02") + " (" + gitwork.Short(night.Commit) + ")"})
			touch(i)
		}
	}
	out := make([]Alert, len(touched))
	for j, i := range touched {
		out[j] = alerts[i]
	}
	return out
}

// Fails tells whether any of tonight's alerts fails the night.
func Fails(tonight []Alert) bool {
	return slices.ContainsFunc(tonight, Alert.Fails)
}

// HoldsBaseline tells whether any of tonight's alerts keeps the night from
// becoming the baseline.
func HoldsBaseline(tonight []Alert) bool {
	return slices.ContainsFunc(tonight, Alert.HoldsBaseline)
}

// ChangeText is the finding's size for people: "+3.10% (169,025,503 →
// 174,265,294 instructions)"; for a stale or missing finding, when the
// series was last seen; for an environment change, what moved: another
// version of the lab ("measured by another version of the lab:
// re-baselined"), another environment, or both (Moved; its evidence says
// what changed).
func (f Finding) ChangeText() string {
	switch f.Kind {
	case EnvironmentChange:
		if moved := f.Moved(); moved.Any() {
			return moved.Text()
		}
		return result.AnotherEnvironment
	case Stale, Missing:
		if f.LastPoint.IsZero() {
			return "not seen tonight"
		}
		return "last seen " + day(f.LastPoint)
	}
	text := fmt.Sprintf("%+.2f%%", 100*f.Size)
	if f.Before != 0 || f.After != 0 {
		text += fmt.Sprintf(" (%s → %s", numfmt.Number(f.Before), numfmt.Number(f.After))
		if f.Unit != "" {
			text += " " + f.Unit
		}
		text += ")"
	}
	return text
}

// RangeText is where the change came in: "3f2a9c1e07..9b8e7d6c5a", with
// the first bad commit when it was bisected.
func (f Finding) RangeText() string {
	if f.Range.From == "" && f.Range.To == "" {
		return ""
	}
	text := gitwork.Short(f.Range.From) + ".." + gitwork.Short(f.Range.To)
	if f.FirstBad != "" {
		text += ", first bad " + gitwork.Short(f.FirstBad)
	}
	return text
}
