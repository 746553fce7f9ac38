package web

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/google/pprof/driver"
	"github.com/google/pprof/profile"

	"havlak-lab/internal/pprofdriver"
	"havlak-lab/tools/history"
	"havlak-lab/tools/result"
)

// A result's profiles, read from its outputs.zip in the archive
// (archive.go), are served through pprof's own web UI, in this process:
// /results/ID/profiles/KIND/ (flamegraph, top, graph, peek, download),
// and a profile diff, B's profile with A's as its base (pprof's
// -diff_base), at /results/B/diff/A/KIND/. ID is a result's key in the
// history (its sha256), KIND the profile the result keeps
// (result.File.Profile: cpu, heap, allocs, mutex, block, ...).

// Bounds on what one profile costs the server: its file in the zip, and
// the profile once inflated. The lab's profiles are a few KiB to a few
// MiB; pprof holds a profile in memory several times over.
const (
	maxProfileBytes         = 16 << 20
	maxInflatedProfileBytes = 64 << 20
	// maxProfileUIs is how many profiles (and diffs) are kept ready to
	// serve; the oldest made goes first.
	maxProfileUIs = 8
	// maxPprofAtOnce is how many requests pprof works on at once; others
	// wait their turn.
	maxPprofAtOnce = 2
)

// pprofPages are pprof's pages that the dashboard serves ("" redirects
// to the flame graph). pprof's others are left out: source and disasm
// read source files and binaries from the server's disk by the names a
// profile gives, and saveconfig and deleteconfig write the settings file
// of the server's user.
var pprofPages = []string{"", "flamegraph", "top", "graph", "peek", "download"}

// pprofSecurity is the policy pprof's pages are served with: pprof's
// pages run inline scripts and styles of their own; the profile they
// show is untrusted, so, like a night's report, they are sandboxed with
// an opaque origin, apart from the dashboard's privileges.
const pprofSecurity = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
	"img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// profileKind tells whether s can name a kind of profile.
func profileKind(s string) bool { return len(s) <= 32 && archiveName(s) }

// profileLink is the address of pprof's page (flamegraph, ...) of the
// result id's profile of kind, or of its diff against base's when base
// is not "".
func profileLink(id, base, kind, page string) string {
	if base != "" {
		return "/results/" + id + "/diff/" + base + "/" + kind + "/" + page
	}
	return "/results/" + id + "/profiles/" + kind + "/" + page
}

// profileCache keeps the pprof UIs made last.
type profileCache struct {
	*recentCache[map[string]http.Handler]
	// slots bounds pprof's work at once (pprofdriver lets one UI be made
	// at a time).
	slots chan struct{}
}

func newProfileCache() *profileCache {
	return &profileCache{recentCache: newRecentCache[map[string]http.Handler](maxProfileUIs), slots: make(chan struct{}, maxPprofAtOnce)}
}

// profiles serves pprof's UI of a result's profile, or of a diff of two
// results' profiles.
func (s *Server) profiles(w http.ResponseWriter, r *http.Request) {
	id, base, kind, page := r.PathValue("id"), r.PathValue("base"), r.PathValue("kind"), r.PathValue("page")
	switch {
	case !result.IsSHA256(id) || base != "" && !result.IsSHA256(base):
		s.fail(w, "", http.StatusNotFound, "a result is named by its key, a sha256 in hex (64 digits 0-9a-f)")
		return
	case !profileKind(kind):
		s.fail(w, "", http.StatusNotFound, fmt.Sprintf("%q names no kind of profile", kind))
		return
	case !slices.Contains(pprofPages, page):
		s.fail(w, "", http.StatusNotFound, fmt.Sprintf("pprof's page %q is not served here (only %s): pprof's source and "+
			"disassembly read files of the server's, its settings write them", page, strings.Join(pprofPages[1:], ", ")))
		return
	}
	select {
	case s.pprof.slots <- struct{}{}:
		defer func() { <-s.pprof.slots }()
	case <-r.Context().Done():
		return
	}
	key := id + " " + base + " " + kind
	ui, ok := s.pprof.get(key)
	if !ok {
		var err error
		if ui, err = s.makeProfileUI(r.Context(), id, base, kind); err != nil {
			s.failArchive(w, err)
			return
		}
		s.pprof.put(key, ui)
	}
	h := w.Header()
	h.Set("Content-Security-Policy", pprofSecurity)
	h.Set("X-Content-Type-Options", "nosniff")
	// pprof's handlers are keyed by their paths from its root, and link
	// to each other relatively (./top, flamegraph): under the prefix
	// this page's address ends in, the links stay in it.
	in := r.Clone(r.Context())
	in.URL.Path = "/" + page
	in.URL.RawPath = ""
	ui["/"+page].ServeHTTP(w, in)
}

// makeProfileUI reads the profiles and makes pprof's UI of them.
func (s *Server) makeProfileUI(ctx context.Context, id, base, kind string) (map[string]http.Handler, error) {
	p, err := s.readProfile(ctx, id, kind)
	if err != nil {
		return nil, err
	}
	var pbase *profile.Profile
	if base != "" {
		if pbase, err = s.readProfile(ctx, base, kind); err != nil {
			return nil, err
		}
	}
	return pprofUI(p, pbase, s.logf)
}

// readProfile reads the profile of kind that the result id keeps, from
// its outputs.zip in the archive (tools/result's reader, inside the
// archive's os.Root).
func (s *Server) readProfile(ctx context.Context, id, kind string) (*profile.Profile, error) {
	found, err := s.db.Results(ctx, history.ResultQuery{SHA256: id}, 1)
	if err != nil {
		return nil, err
	}
	if len(found) == 0 {
		return nil, missing("the history has no result %s", id)
	}
	st := found[0]
	r := st.Result
	name := r.Find(result.RoleProfile, kind)
	if name == "" {
		return nil, missing("%s's result %s keeps no %s profile: %s", r.Benchmark.Name, id, kind, keptProfiles("it", &st))
	}
	out, zip, err := s.archivedOutputs(&st, "profiles")
	if err != nil {
		return nil, err
	}
	defer out.Close()
	rc, err := out.OpenFile(name)
	if err != nil {
		return nil, missing("%s in the archive: %v", zip, err)
	}
	defer rc.Close()
	data, err := io.ReadAll(io.LimitReader(rc, maxProfileBytes+1))
	if err != nil {
		return nil, missing("%s: %v", out.Path(name), err)
	}
	if len(data) > maxProfileBytes {
		return nil, missing("%s: more than %d bytes, more than the dashboard reads of a profile", out.Path(name), maxProfileBytes)
	}
	p, err := parseProfile(data)
	if err != nil {
		return nil, missing("%s: %v", out.Path(name), err)
	}
	return p, nil
}

// parseProfile parses a profile, inflating a gzipped one to at most
// maxInflatedProfileBytes (pprof's own parser inflates without a bound).
func parseProfile(data []byte) (*profile.Profile, error) {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		gz, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, fmt.Errorf("decompressing the profile: %v", err)
		}
		if data, err = io.ReadAll(io.LimitReader(gz, maxInflatedProfileBytes+1)); err != nil {
			return nil, fmt.Errorf("decompressing the profile: %v", err)
		}
		if len(data) > maxInflatedProfileBytes {
			return nil, fmt.Errorf("more than %d bytes once decompressed, more than the dashboard reads of a profile", maxInflatedProfileBytes)
		}
	}
	return profile.ParseData(data)
}

// pprofUI makes pprof's web UI of p (of p against base, pprof's
// -diff_base, when base is not nil) and returns its handlers, those of
// pprofPages only. pprof runs with no symbolization and no object tool,
// no network and no files (internal/pprofdriver): it shows the profiles
// as they are.
func pprofUI(p, base *profile.Profile, logf func(string, ...any)) (map[string]http.Handler, error) {
	args := []string{"-http=localhost:0", "-no_browser", "-symbolize=none"}
	profiles := map[string]*profile.Profile{pprofSource: p}
	if base != nil {
		args = append(args, "-diff_base="+pprofBase)
		profiles[pprofBase] = base
	}
	args = append(args, pprofSource)
	// What pprof says goes to the server's log.
	log := func(args ...any) { logf("pprof: %s", strings.TrimSuffix(fmt.Sprint(args...), "\n")) }
	var handlers map[string]http.Handler
	_, err := pprofdriver.Run(pprofdriver.Options{
		Args:     args,
		Profiles: profiles,
		UI:       pprofdriver.UI{Print: log, PrintErr: log},
		HTTPServer: func(a *driver.HTTPServerArgs) error {
			handlers = a.Handlers
			return nil
		},
	})
	if err != nil {
		return nil, fmt.Errorf("pprof: %w", err)
	}
	kept := map[string]http.Handler{}
	for _, page := range pprofPages {
		h, ok := handlers["/"+page]
		if !ok {
			return nil, fmt.Errorf("pprof's UI has no page /%s", page)
		}
		kept["/"+page] = h
	}
	return kept, nil
}

// The names pprof's driver is given for the profile and its base.
const (
	pprofSource = "profile"
	pprofBase   = "base"
)

// archivedOutputs opens the outputs.zip in the nightly job's archive of
// the result st (the caller closes it), and names it for messages; what
// is what the dashboard reads from it ("profiles"), for the error of a
// result that is not the archive's.
func (s *Server) archivedOutputs(st *history.Stored, what string) (result.Outputs, string, error) {
	night, test, ok := archived(st.Source)
	if !ok {
		return nil, "", missing("%s's result %s was not ingested from the nightly job's archive: "+
			"the dashboard reads the %s of the archive's results only", st.Result.Benchmark.Name, st.SHA256, what)
	}
	root, err := s.openArchive()
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	zip := history.ArchivedResult(night, test)
	out, err := result.OpenZipIn(root, zip)
	if err != nil {
		return nil, "", missing("%s in the archive: %v", zip, unwrapPath(err))
	}
	return out, zip, nil
}
