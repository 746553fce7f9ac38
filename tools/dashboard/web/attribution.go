package web

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"havlak-lab/internal/gitwork"
	"havlak-lab/internal/numfmt"
	"havlak-lab/tools/history"
	"havlak-lab/tools/perf/cachegrind"
	"havlak-lab/tools/perf/cachegrind/attribution"
	"havlak-lab/tools/perf/cachegrind/linecounts"
	"havlak-lab/tools/result"
)

// A figure's attribution between two results that kept their counts per
// line (result.LineCounts, package linecounts), read from their
// outputs.zip in the archive as their profiles are (profiles.go):
// /results/B/attribution/A?figure=F splits F's change from A's result
// (the base) to B's by function and by line (package attribution, the
// one owner of the split, as the perf check's comment shows it). With
// the lab's checkout (Options.Repo, read with git, never written), the
// diff between the results' commits maps the lines, the page splits the
// change between the change's lines and the rest, and shows the source
// around the lines that moved most with both sides' counts, the diff's
// lines marked; without it, functions and lines by file:line only.

// Bounds on what one attribution shows and reads.
const (
	shownFunctions   = 25
	shownLines       = 30
	sourceAnchors    = 8 // the lines that moved most, shown in their source
	sourceFiles      = 4
	sourceContext    = 4 // lines either side of one that moved
	maxSourceBytes   = 4 << 20
	shownNameRunes   = 300
	shownSourceRunes = 300
	// maxAttributingAtOnce is how many attributions are made at once; a
	// side's line counts are up to linecounts.MaxBytes. One more is
	// refused (503), to be asked again after attributionRetryAfter
	// seconds: a queue would hold its requests' memory and answer them
	// late. keptAttributions is how many finished ones are kept, each
	// answered again without a slot.
	maxAttributingAtOnce  = 2
	attributionRetryAfter = 5
	keptAttributions      = 32
)

// attributionLink is the address of the attribution of figure between
// the result resultID and baseID's, the base: what a row of the compare
// page links to.
func attributionLink(resultID, baseID, figure string) string {
	return link("/results/"+resultID+"/attribution/"+baseID, query("figure", figure))
}

// An attributionPage is what the page shows.
type attributionPage struct {
	Nav                     string
	Benchmark, Figure       string
	A, B                    attributionSide
	Figures                 []figureChoice
	Base, Change, Delta     string
	Compare                 string
	NoSource                string // why the source and the split are not shown
	Outside                 bool
	OutsideLabel, OwnMoved  string
	Parts                   []countsRow
	Functions               []countsRow
	MoreFunctions           int
	Lines                   []countsRow
	MoreLines               int
	Sources                 []sourceFile
	NoChange                bool
	ChangedPart, EditedPart string
}

// An attributionSide is one result of the two.
type attributionSide struct {
	ID, Commit, Started string
}

// A figureChoice links the page of another figure of the same results.
type figureChoice struct {
	Name, Link string
	Current    bool
}

// A countsRow is a part, a function or a line with its counts on both
// sides, its change and its share of the figure's.
type countsRow struct {
	Name, Note                 string
	Changed, Edited            bool
	Base, Change, Delta, Share string
}

// A sourceFile is the source around the lines of one file that moved
// most.
type sourceFile struct {
	File, Note string
	Lines      []sourceLine
}

// A sourceLine is one line of it: the change's line and the base's, each
// side's count, its text; Mark is "added" (a line the change added or
// edited), "removed" (a base line it removed) or ""; Gap starts lines
// apart from the ones before.
type sourceLine struct {
	Line, BaseLine, Base, Change, Text, Mark string
	Top, Gap                                 bool
}

// attribution serves the page: a finished one kept (attributions), or
// one made in one of the slots (attributing), or, all of them taken, a
// 503 that says when to ask again.
func (s *Server) attribution(w http.ResponseWriter, r *http.Request) {
	id, base := r.PathValue("id"), r.PathValue("base")
	if !result.IsSHA256(id) || !result.IsSHA256(base) {
		s.fail(w, "", http.StatusNotFound, "a result is named by its key, a sha256 in hex (64 digits 0-9a-f)")
		return
	}
	key := id + " " + base + " " + param(r, "figure")
	if page, ok := s.attributions.get(key); ok {
		s.render(w, http.StatusOK, "attribution", page)
		return
	}
	select {
	case s.attributing <- struct{}{}:
		defer func() { <-s.attributing }()
	default:
		w.Header().Set("Retry-After", strconv.Itoa(attributionRetryAfter))
		s.render(w, http.StatusServiceUnavailable, "error", errorPage{Status: http.StatusServiceUnavailable,
			Message: fmt.Sprintf("the server is making %d attributions, as many as it makes at once: ask again in %d seconds",
				maxAttributingAtOnce, attributionRetryAfter)})
		return
	}
	page, err := s.attributionOf(r.Context(), id, base, param(r, "figure"))
	var refused *requestError
	switch {
	case errors.As(err, &refused):
		s.fail(w, "", refused.status, refused.message)
		return
	case err != nil:
		s.failArchive(w, err)
		return
	}
	// Results do not change; a checkout does (a commit fetched later): a
	// page without the source for want of one is made again.
	if page.NoSource == "" || s.opts.Repo == "" {
		s.attributions.put(key, page)
	}
	s.render(w, http.StatusOK, "attribution", page)
}

// A requestError is what was wrong with a request, as a status and the
// page's message.
type requestError struct {
	status  int
	message string
}

func (e *requestError) Error() string { return e.message }

// attributionOf makes the attribution of figure ("" for the gated one)
// between the results id and base; an error is a requestError, an
// archiveError (404) or the server's.
func (s *Server) attributionOf(ctx context.Context, id, base, figure string) (*attributionPage, error) {
	var sides [2]*history.Stored
	var counts [2]*linecounts.File
	for i, key := range []string{base, id} {
		name := [2]string{"A (the base)", "B"}[i]
		st, err := s.storedResult(ctx, key)
		if err == nil {
			sides[i] = st
			counts[i], err = s.readLineCounts(st, figure)
		}
		if errors.Is(err, linecounts.ErrNone) {
			err = missing("%s, %s's result %s, keeps no line counts (line_counts): only a count action's results "+
				"of Cachegrind keep them, so there is nothing to attribute", name, st.Result.Benchmark.Name, key)
		}
		if err != nil {
			return nil, err
		}
	}
	ra, rb := sides[0].Result, sides[1].Result
	if ra.Benchmark.Name != rb.Benchmark.Name {
		return nil, &requestError{http.StatusBadRequest, fmt.Sprintf("A is %s's result, B %s's: an attribution compares two results of one benchmark",
			ra.Benchmark.Name, rb.Benchmark.Name)}
	}
	goProgram := cachegrind.CountsGoProgram(rb)
	cache := counts[0].Cache && counts[1].Cache
	if figure == "" {
		figure = cachegrind.GatedMetric(goProgram)
	}
	page := &attributionPage{Benchmark: rb.Benchmark.Name, Figure: figure,
		A:           attributionSide{ID: base, Commit: ra.Environment.Source.Commit, Started: ra.Environment.Started},
		B:           attributionSide{ID: id, Commit: rb.Environment.Source.Commit, Started: rb.Environment.Started},
		Compare:     link("/compare", query("a", ra.Environment.Source.Commit, "b", rb.Environment.Source.Commit)),
		ChangedPart: attribution.ChangedLines.String(), EditedPart: attribution.EditedFunctions.String()}
	for _, f := range attributable(rb, cache) {
		page.Figures = append(page.Figures, figureChoice{Name: f, Link: attributionLink(id, base, f), Current: f == figure})
	}
	repo, src, why := s.commitsChange(page.A.Commit, page.B.Commit)
	page.NoSource = why
	a, err := attribution.Attribute(counts[0], counts[1], src, figure, goProgram)
	var wrong *attribution.FigureError
	// Attribute weighs the figure before it reads the diff: a figure of
	// the asker's mistake never costs a git diff.
	if err != nil && !errors.As(err, &wrong) && src != nil && s.unreadableDiff(src) {
		page.NoSource, repo, src = "The diff between the commits could not be read (the server's log says why): the source is not shown.", "", nil
		a, err = attribution.Attribute(counts[0], counts[1], nil, figure, goProgram)
	}
	if errors.As(err, &wrong) {
		figures := strings.Join(attributable(rb, cache), ", ")
		if figures == "" {
			figures = "none of B's figures"
		}
		return nil, &requestError{http.StatusBadRequest, fmt.Sprintf("%v; these results' line counts attribute %s, or one of Cachegrind's events: %s",
			err, figures, strings.Join(cacheEvents(cache), " "))}
	}
	if err != nil {
		return nil, &requestError{http.StatusNotFound, fmt.Sprintf("%s of %s cannot be attributed: %v", figure, page.Benchmark, err)}
	}
	diff, _ := diffOf(src) // nil, or read without error: checked above
	page.fill(a, diff != nil)
	if diff != nil {
		page.Sources = attrSources(repo, page.B.Commit, a, diff, counts)
	}
	return page, nil
}

// attributable are r's figures that line counts split and that r keeps
// line counts of (linecounts.FigureFile), those of the cache simulation
// only when both sides simulated it.
func attributable(r *result.Result, cache bool) []string {
	var out []string
	for _, m := range r.Metrics {
		if !attribution.Explains(m.Name) || linecounts.FigureFile(r, m.Name) == "" || slices.Contains(out, m.Name) {
			continue
		}
		if _, _, perOp := result.OfBenchmark(m.Name); perOp || cache || m.Name == cachegrind.MetricInstructions || m.Name == cachegrind.MetricOwnInstructions {
			out = append(out, m.Name)
		}
	}
	return out
}

// events are the events of line counts with or without the cache
// simulation's.
func cacheEvents(cache bool) []string {
	if cache {
		return cachegrind.CacheEvents[:]
	}
	return cachegrind.CacheEvents[:cachegrind.Ir+1]
}

// storedResult is the history's result id.
func (s *Server) storedResult(ctx context.Context, id string) (*history.Stored, error) {
	found, err := s.db.Results(ctx, history.ResultQuery{SHA256: id}, 1)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, missing("the history has no result %s", id)
	}
	return &found[0], nil
}

// readLineCounts reads the line counts st keeps that explain figure ("":
// the run's; linecounts.FigureFile; linecounts.ErrNone: none) from its
// outputs.zip in the archive, bounded as linecounts reads them.
func (s *Server) readLineCounts(st *history.Stored, figure string) (*linecounts.File, error) {
	r := st.Result
	if linecounts.FigureFile(r, figure) == "" {
		return nil, linecounts.ErrNone
	}
	out, _, err := s.archivedOutputs(st, "line counts")
	if err != nil {
		return nil, err
	}
	defer out.Close()
	f, err := linecounts.OpenFigure(r, out, figure)
	if err != nil {
		return nil, missing("the line counts of %s's result %s: %v", r.Benchmark.Name, st.SHA256, err)
	}
	return f, nil
}

// fullCommit is a commit as a result names it and git is given it: 40 or
// 64 hex digits, nothing git could take for an option or a path.
var fullCommit = regexp.MustCompile(`^(?:[0-9a-f]{40}|[0-9a-f]{64})$`)

// unreadableDiff says src's diff cannot be read, and logs why.
func (s *Server) unreadableDiff(src *attribution.Source) bool {
	_, err := src.Diff()
	if err != nil {
		s.logf("attribution: the diff %s..%s: %v", src.Base, src.Change, err)
	}
	return err != nil
}

// diffOf is src's diff, nil for no source.
func diffOf(src *attribution.Source) (*attribution.Diff, error) {
	if src == nil {
		return nil, nil
	}
	return src.Diff()
}

// commitsChange is the change of the lab's checkout (Options.Repo)
// between the results' commits, or why there is none
// (naming the checkout, which a reader not signed in sees as its last
// name: pagetext.go).
func (s *Server) commitsChange(base, change string) (gitwork.Repo, *attribution.Source, string) {
	if s.opts.Repo == "" {
		return "", nil, "The source, the change's diff and the split between the change's lines and the rest need the lab's checkout: " +
			"start the dashboard with --repo DIR. Lines are shown by file:line only."
	}
	repo := gitwork.Repo(s.opts.Repo)
	for _, c := range []struct{ name, commit string }{{"A", base}, {"B", change}} {
		if !fullCommit.MatchString(c.commit) {
			return "", nil, fmt.Sprintf("%s's result names no commit git can read (%q): the source is not shown.", c.name, c.commit)
		}
		if _, err := repo.Commit(c.name+"'s commit", c.commit); err != nil {
			return "", nil, fmt.Sprintf("%s's commit %s is not in the checkout %s (fetch it): the source is not shown.", c.name, c.commit, s.opts.Repo)
		}
	}
	// Its diff is read when an attribution first needs it.
	return repo, attribution.NewSource(repo, base, change), ""
}

// fill fills the page's counts from a: the parts (with a diff only:
// without one no line is a changed one), the functions and the lines.
func (p *attributionPage) fill(a *attribution.Attribution, withDiff bool) {
	total := a.Delta()
	p.Base, p.Change, p.Delta = attrCount(a.Base), attrCount(a.Change), numfmt.Signed(total)
	p.OutsideLabel = attribution.OutsideLabel
	p.NoChange = total == 0 && !slices.ContainsFunc(a.Parts[:], func(s attribution.Sums) bool { return s.Delta() != 0 })
	if withDiff {
		for i, s := range a.Parts {
			p.Parts = append(p.Parts, attrRow(attribution.Part(i).String(), s, total))
		}
		p.Outside = a.Outside()
		if own := a.Parts[attribution.ChangedLines].Delta() + a.Parts[attribution.EditedFunctions].Delta(); own != 0 {
			p.OwnMoved = numfmt.Signed(own)
		}
	}
	for _, f := range a.Functions[:min(len(a.Functions), shownFunctions)] {
		r := attrRow(numfmt.Cut(f.Function, shownNameRunes), f.Sums, total)
		r.Edited = withDiff && f.Edited
		p.Functions = append(p.Functions, r)
	}
	p.MoreFunctions = len(a.Functions) - len(p.Functions)
	var lines []attribution.LineDelta
	for _, l := range a.Lines {
		if l.Delta() != 0 {
			lines = append(lines, l)
		}
	}
	for _, l := range lines[:min(len(lines), shownLines)] {
		r := attrRow(numfmt.Cut(lineName(l), shownNameRunes), l.Sums, total)
		r.Changed = withDiff && l.Part == attribution.ChangedLines
		if withDiff {
			r.Note = l.Part.String()
		}
		p.Lines = append(p.Lines, r)
	}
	p.MoreLines = len(lines) - len(p.Lines)
}

// lineName is a line as file:line: the change's line, the base's after
// it when it moved, or the base's alone for a line the change removed.
func lineName(l attribution.LineDelta) string {
	switch {
	case l.Line == 0:
		return fmt.Sprintf("%s:%d (the base's line, removed)", l.File, l.BaseLine)
	case l.BaseLine != 0 && l.BaseLine != l.Line:
		return fmt.Sprintf("%s:%d (the base's %d)", l.File, l.Line, l.BaseLine)
	}
	return fmt.Sprintf("%s:%d", l.File, l.Line)
}

func attrRow(name string, s attribution.Sums, total int64) countsRow {
	return countsRow{Name: name, Base: attrCount(s.Base), Change: attrCount(s.Change), Delta: numfmt.Signed(s.Delta()), Share: numfmt.Share(s.Delta(), total)}
}

func attrCount(v uint64) string { return numfmt.Number(float64(v)) }

// sourcePath tells whether file, a line's file from the line counts or
// the diff, is one the page may ask git for: the program's own, clean,
// relative, inside the checkout, nothing git reads as anything but a
// path after "COMMIT:".
func sourcePath(file string) bool {
	return linecounts.Origin(file) == linecounts.KindOwn && file != "" && file != "." && path.Clean(file) == file &&
		!path.IsAbs(file) && file != ".." && !strings.HasPrefix(file, "../") && !strings.ContainsAny(file, ":\x00\n\\")
}

// sources are the change's source around the own lines of a that moved
// most (and the lines the change edited that ran), read from the
// checkout at the change's commit, each line with both sides' counts, the
// base's lines the change removed in their place.
func attrSources(repo gitwork.Repo, commit string, a *attribution.Attribution, d *attribution.Diff,
	counts [2]*linecounts.File) []sourceFile {
	anchors := map[string][]uint64{}
	var files []string
	shown := 0
	for _, l := range a.Lines { // largest change first
		if shown == sourceAnchors {
			break
		}
		if len(anchors) == sourceFiles && anchors[l.File] == nil {
			continue
		}
		if l.Line == 0 || !sourcePath(l.File) || l.Delta() == 0 && l.Part != attribution.ChangedLines {
			continue
		}
		if anchors[l.File] == nil {
			files = append(files, l.File)
		}
		anchors[l.File] = append(anchors[l.File], l.Line)
		shown++
	}
	var out []sourceFile
	for _, file := range files {
		out = append(out, sourceOf(repo, commit, file, anchors[file], a, d, counts))
	}
	return out
}

// maxRemovedShown bounds the base's removed lines shown in one place.
const maxRemovedShown = 20

// pairedBefore is the base's line paired with the last line before line n
// of the change's file that has one, 0 when none before it has; ok is
// false when none of the maxRemovedShown lines before it has, so that a
// long run of added lines is not searched line by line.
func pairedBefore(d *attribution.Diff, file string, n uint64) (uint64, bool) {
	for k := n - 1; k >= 1 && k+maxRemovedShown >= n; k-- {
		if _, bl, ok := d.BaseOf(file, k); ok {
			return bl, true
		}
	}
	return 0, n <= maxRemovedShown+1
}

// sourceOf is file's source around the lines at.
func sourceOf(repo gitwork.Repo, commit, file string, at []uint64, a *attribution.Attribution, d *attribution.Diff,
	counts [2]*linecounts.File) sourceFile {
	sf := sourceFile{File: file}
	data, err := repo.OutputLimited(maxSourceBytes, "cat-file", "blob", commit+":"+file)
	switch {
	case err != nil:
		sf.Note = fmt.Sprintf("not shown: git has no file %s at %s, or one over %d MiB", file, gitwork.Short(commit), maxSourceBytes>>20)
		return sf
	case bytes.IndexByte(data, 0) >= 0:
		sf.Note = "not shown: not text"
		return sf
	}
	text := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
	baseFile, _, _ := d.BaseOf(file, 1)
	changeSums := a.LineSums(counts[1], file)
	var baseSums map[uint64]uint64
	if baseFile != "" {
		baseSums = a.LineSums(counts[0], baseFile)
	}
	top := map[uint64]bool{}
	var show []uint64 // the lines shown, in order
	for _, n := range at {
		top[n] = true
		for k := max(1, int64(n)-sourceContext); k <= min(int64(len(text)), int64(n)+sourceContext); k++ {
			show = append(show, uint64(k))
		}
	}
	slices.Sort(show)
	show = slices.Compact(show)
	number := func(v uint64) string {
		if v == 0 {
			return ""
		}
		return attrCount(v)
	}
	var last, lastBase uint64
	known := false // lastBase is known: the removed lines after it can be shown
	for _, n := range show {
		gap := last != 0 && n != last+1
		if last == 0 || gap {
			lastBase, known = pairedBefore(d, file, n)
		}
		_, bl, ok := d.BaseOf(file, n)
		if ok && known {
			// The base's lines between the last paired one and this one
			// are lines the change removed.
			for b := lastBase + 1; b < bl && b <= lastBase+maxRemovedShown; b++ {
				if t, shown := d.Text(file, 0, b); shown {
					sf.Lines = append(sf.Lines, sourceLine{BaseLine: fmt.Sprint(b), Base: number(baseSums[b]),
						Text: numfmt.Cut(t, shownSourceRunes), Mark: "removed"})
				}
			}
		}
		l := sourceLine{Line: fmt.Sprint(n), Change: number(changeSums[n]), Text: numfmt.Cut(text[n-1], shownSourceRunes), Top: top[n], Gap: gap}
		if ok {
			l.BaseLine, l.Base = fmt.Sprint(bl), number(baseSums[bl])
			lastBase, known = bl, true
		} else {
			l.Mark = "added"
		}
		sf.Lines = append(sf.Lines, l)
		last = n
	}
	return sf
}
