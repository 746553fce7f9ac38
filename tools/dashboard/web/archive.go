package web

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"os"
	"path"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"havlak-lab/tools/history"
	"havlak-lab/tools/nightdir"
)

// The nightly job's archive (Options.Archive, the directory that holds
// history.NightsDir): each night it records keeps its results,
// nights/NIGHT/TEST/outputs.zip, which the history names as their
// sources, and its report, nights/NIGHT/report/. The dashboard serves
// the reports (this file) and the results' profiles (profiles.go) from
// there. A name in a URL or in the history is untrusted: it reaches the
// file system only as one validated name per level, and through os.Root,
// so that neither ../ nor a symlink leads out of the archive.

// maxArchivedFile bounds a file of a night's report that the dashboard
// serves: the report's pages and graphs are a few MiB.
const maxArchivedFile = 64 << 20

// archiveName tells whether s can name one file or directory of the
// archive: letters, digits and ._- , not starting with a dot (no . or
// .., no hidden file, no temporary of the report's writer).
func archiveName(s string) bool {
	if s == "" || len(s) > 200 || s[0] == '.' {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '.' || c == '_' || c == '-') {
			return false
		}
	}
	return true
}

// nightName tells whether s can name a night of the archive: a name,
// and not the directory the nightly job is still writing (NIGHT.tmp,
// renamed to NIGHT when whole).
func nightName(s string) bool { return archiveName(s) && !strings.HasSuffix(s, ".tmp") }

// archived is where the result ingested from source is in the archive
// (its night and test), if source is a result of the nightly job's
// archive: .../nights/NIGHT/TEST/outputs.zip. Only the last levels count,
// so that an archive moved or mounted elsewhere than where the nightly
// job wrote it is still found.
func archived(source string) (night, test string, ok bool) {
	night, test, ok = history.ParseArchivedResult(source)
	if !ok || !nightName(night) || !archiveName(test) {
		return "", "", false
	}
	return night, test, true
}

// reportLink is the dashboard's address of the night's report that the
// result ingested from source belongs to, "" for a result from anywhere
// else.
func reportLink(source string) string {
	night, _, ok := archived(source)
	if !ok {
		return ""
	}
	return "/nights/" + night + "/" + nightdir.Report + "/"
}

// archivedLink is the dashboard's address of a file of a night's report
// that the history names by its path (an alert's report or profile
// diff: .../nights/NIGHT/report/REST), "" for a path elsewhere.
func archivedLink(p string) string {
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i := len(parts) - 3; i >= 0; i-- {
		if parts[i] != history.NightsDir || !nightName(parts[i+1]) || parts[i+2] != nightdir.Report {
			continue
		}
		rest := parts[i+3:]
		for _, r := range rest {
			if !archiveName(r) {
				return ""
			}
		}
		return "/nights/" + parts[i+1] + "/" + nightdir.Report + "/" + strings.Join(rest, "/")
	}
	return ""
}

// readerPath is a path of the server's (an alert's report or profile diff)
// as v may see it: whole when signed in; else from the archive's
// nights/NIGHT/ on, or its last name, so that nobody who merely reaches
// the port learns how the server's disks are laid out.
func readerPath(v viewer, p string) string {
	if v.User != "" || !filepath.IsAbs(p) {
		return p
	}
	parts := strings.Split(filepath.ToSlash(p), "/")
	for i := len(parts) - 2; i >= 0; i-- {
		if parts[i] == history.NightsDir && nightName(parts[i+1]) {
			return strings.Join(parts[i:], "/")
		}
	}
	return ".../" + filepath.Base(p)
}

// An archiveError is something of the archive that is not there, or not
// served: a 404 that names it.
type archiveError struct{ what string }

func (e *archiveError) Error() string { return e.what }

func missing(format string, args ...any) error { return &archiveError{fmt.Sprintf(format, args...)} }

// openArchive opens the archive's directory.
func (s *Server) openArchive() (*os.Root, error) {
	if s.opts.Archive == "" {
		return nil, missing("this dashboard serves no archive of the nightly job (--archive)")
	}
	root, err := os.OpenRoot(s.opts.Archive)
	if err != nil {
		return nil, missing("the archive cannot be opened (--archive): %v", unwrapPath(err))
	}
	return root, nil
}

// unwrapPath is err without the path os puts before it, which the page
// names its own way.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// failArchive answers an error of the archive: a 404 page naming what is
// missing, or the server's error, logged.
func (s *Server) failArchive(w http.ResponseWriter, err error) {
	var ae *archiveError
	if errors.As(err, &ae) {
		s.fail(w, "", http.StatusNotFound, ae.what)
		return
	}
	s.fail(w, "", http.StatusInternalServerError, err.Error())
}

// reportSecurity is the policy a night's report is served with. The
// report is the lab's own HTML, but made of results, which are untrusted:
// sandbox gives it an opaque origin, so that no script of it reads or
// sends anything with the dashboard's privileges (its cookies, its
// pages, its forms); its own inline scripts (the uPlot charts) run, and
// it fetches nothing from anywhere.
const reportSecurity = "sandbox allow-scripts; default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; " +
	"img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

// nightReport serves a file of a night's report from the archive:
// /nights/NIGHT/report/PATH (index.html for a directory).
func (s *Server) nightReport(w http.ResponseWriter, r *http.Request) {
	night, rest := r.PathValue("night"), r.PathValue("path")
	if !nightName(night) {
		s.fail(w, "", http.StatusNotFound, fmt.Sprintf("%q names no night of the archive", night))
		return
	}
	var parts []string
	for _, p := range strings.Split(rest, "/") {
		if p == "" {
			continue
		}
		if !archiveName(p) {
			s.fail(w, "", http.StatusNotFound, fmt.Sprintf("%q names no file of a night's report", rest))
			return
		}
		parts = append(parts, p)
	}
	root, err := s.openArchive()
	if err != nil {
		s.failArchive(w, err)
		return
	}
	defer root.Close()
	// The night's report is a root of its own: nothing in it, a symlink
	// included, reaches the night's results or another night.
	dir := path.Join(history.NightsDir, night, nightdir.Report)
	report, err := root.OpenRoot(dir)
	if err != nil {
		s.failArchive(w, missing("the archive has no report of the night %s: %v", night, unwrapPath(err)))
		return
	}
	defer report.Close()
	name := path.Join(parts...)
	if name == "" {
		name = "."
	}
	f, info, served, err := openServed(report, name)
	if err != nil {
		s.failArchive(w, missing("%s/%s in the archive: %v", dir, name, err))
		return
	}
	defer f.Close()
	h := w.Header()
	h.Set("Content-Security-Policy", reportSecurity)
	h.Set("X-Content-Type-Options", "nosniff")
	contentType := mime.TypeByExtension(path.Ext(served))
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	h.Set("Content-Type", contentType)
	fix := reportText(path.Ext(served), viewerOf(r))
	if fix == nil {
		http.ServeContent(w, r, "", info.ModTime(), f)
		return
	}
	data, err := io.ReadAll(f)
	if err != nil {
		s.fail(w, "", http.StatusInternalServerError, fmt.Sprintf("%s/%s in the archive: %v", dir, name, err))
		return
	}
	// Served as this reader may see it: no time of its own, so that no
	// cache answers another reader with it.
	h.Set("Cache-Control", "no-store")
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(fix(data)))
}

// reportText is how a file of a night's report with extension ext
// reaches reader v, nil for as it is (an image, a profile). Its pages'
// text goes through textFix, as the dashboard's own pages do: the report
// is made of results, and says the baseline's path and the results'. A
// text file (the summary's JSON, its Markdown) has its paths hidden from
// a reader not signed in.
func reportText(ext string, v viewer) func([]byte) []byte {
	switch strings.ToLower(ext) {
	case ".html", ".htm", ".svg":
		fix := textFix(v)
		return func(data []byte) []byte { return pageText(data, fix) }
	case ".json", ".md", ".txt", ".csv":
		if v.User == "" {
			return func(data []byte) []byte { return []byte(hideServerPaths(string(data))) }
		}
	}
	return nil
}

// openServed opens name in root for serving: a regular file, or a
// directory's index.html, of at most maxArchivedFile bytes; it returns
// the name of the file it opened.
func openServed(root *os.Root, name string) (*os.File, fs.FileInfo, string, error) {
	for range 2 {
		// O_NONBLOCK: a named pipe opens at once and is refused below.
		f, err := root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
		if err != nil {
			return nil, nil, "", unwrapPath(err)
		}
		info, err := f.Stat()
		switch {
		case err != nil:
		case info.IsDir():
			f.Close()
			name = path.Join(name, "index.html")
			continue
		case !info.Mode().IsRegular():
			err = errors.New("not a regular file")
		case info.Size() > maxArchivedFile:
			err = fmt.Errorf("%d bytes, more than the dashboard serves (%d)", info.Size(), maxArchivedFile)
		}
		if err != nil {
			f.Close()
			return nil, nil, "", err
		}
		return f, info, name, nil
	}
	return nil, nil, "", errors.New("a directory")
}
