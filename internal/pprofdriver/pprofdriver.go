// Package pprofdriver runs pprof's driver (github.com/google/pprof/driver)
// in the process on profiles the caller already holds. pprof is given a
// command line, the profiles it may name, and nothing else: it reads no
// file, opens no binary, symbolizes nothing, reaches no network, and what
// it writes as its -output comes back to the caller instead of a file.
// Which flags pprof gets, and what is done with its web UI, is the
// caller's.
package pprofdriver

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/google/pprof/driver"
	"github.com/google/pprof/profile"
)

// UI gets what pprof says; a nil func drops it.
type UI struct {
	// Print is pprof's output to a terminal, PrintErr its errors and
	// notes ("Generating report in ...").
	Print, PrintErr func(args ...any)
}

// Options are one run of pprof.
type Options struct {
	// Args is pprof's command line without the program's name. The
	// profile sources it names, -diff_base's and -base's too, are keys of
	// Profiles.
	Args []string
	// Profiles are what pprof may read; it is given copies (pprof changes
	// the profiles it reads, e.g. negates a -diff_base).
	Profiles map[string]*profile.Profile
	UI       UI
	// HTTPServer, when not nil, is given pprof's web UI (-http) in place
	// of a server of pprof's own; pprof returns when it returns.
	HTTPServer func(*driver.HTTPServerArgs) error
}

// running lets one run at a time into pprof's driver: the driver keeps
// the configuration the flags make in a variable of its package.
var running sync.Mutex

// errRefused is what pprof is answered when it would reach outside.
var errRefused = errors.New("not done: pprof runs on the profiles it was given only")

// Run runs pprof and returns what it wrote as its -output (no file is
// written), nil when it wrote nothing.
func Run(o Options) ([]byte, error) {
	if o.HTTPServer != nil {
		// pprof's web UI reads its saved settings from the user's
		// configuration directory and fails without one.
		if _, err := os.UserConfigDir(); err != nil {
			return nil, fmt.Errorf("pprof's web UI needs a configuration directory for its settings: %v", err)
		}
	}
	flags := newFlags(o.Args)
	out := &memWriter{}
	running.Lock()
	defer running.Unlock()
	err := driver.PProf(&driver.Options{
		Writer:        out,
		Flagset:       flags,
		Fetch:         fetcher(o.Profiles),
		Sym:           noSymbols{},
		Obj:           refusedObj{},
		UI:            ui{o.UI},
		HTTPTransport: refusedTransport{},
		HTTPServer:    o.HTTPServer,
	})
	if flags.err != nil {
		// pprof's own error would be that no profile was named.
		return nil, fmt.Errorf("pprof's arguments %q: %v", o.Args, flags.err)
	}
	if err != nil {
		return nil, err
	}
	return out.bytes(), nil
}

// fetcher gives pprof copies of the profiles it holds, and an error for
// any other name: pprof falls back to a file or a URL only when a fetcher
// finds nothing and says nothing.
type fetcher map[string]*profile.Profile

// Fetch gives no source URL: pprof would save a copy of a profile it
// fetched from one.
func (f fetcher) Fetch(src string, _, _ time.Duration) (*profile.Profile, string, error) {
	p, ok := f[src]
	if !ok {
		return nil, "", fmt.Errorf("%s: not one of the profiles pprof was given", src)
	}
	return p.Copy(), "", nil
}

// flags gives pprof's driver its command line.
type flags struct {
	*flag.FlagSet
	args  []string
	extra string
	// err is why args were not pprof's command line.
	err error
}

func newFlags(args []string) *flags {
	fs := flag.NewFlagSet("pprof", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	return &flags{FlagSet: fs, args: args}
}

func (f *flags) StringList(name, def, usage string) *[]*string {
	list := &stringList{}
	if def != "" {
		list.values = []*string{&def}
	}
	f.Var(list, name, usage)
	return &list.values
}

func (f *flags) ExtraUsage() string         { return f.extra }
func (f *flags) AddExtraUsage(extra string) { f.extra += extra }

// Parse does not print pprof's usage: Run names the error instead.
func (f *flags) Parse(func()) []string {
	if err := f.FlagSet.Parse(f.args); err != nil {
		f.err = err
		return nil
	}
	if f.NArg() == 0 {
		f.err = errors.New("no profile named")
		return nil
	}
	return f.Args()
}

// stringList is a flag that may be given many times.
type stringList struct{ values []*string }

func (l *stringList) String() string { return "" }
func (l *stringList) Set(v string) error {
	l.values = append(l.values, &v)
	return nil
}

// memWriter keeps what pprof writes as its -output.
type memWriter struct {
	mu  sync.Mutex
	buf *bytes.Buffer
}

func (w *memWriter) Open(string) (io.WriteCloser, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf != nil {
		return nil, errors.New("pprof's output was written once already")
	}
	w.buf = &bytes.Buffer{}
	return nopCloser{w.buf}, nil
}

func (w *memWriter) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.buf == nil {
		return nil
	}
	return w.buf.Bytes()
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

type (
	refusedObj       struct{}
	refusedTransport struct{}
)

func (refusedObj) Open(string, uint64, uint64, uint64, string) (driver.ObjFile, error) {
	return nil, errRefused
}

func (refusedObj) Disasm(string, uint64, uint64, bool) ([]driver.Inst, error) { return nil, errRefused }

func (refusedTransport) RoundTrip(*http.Request) (*http.Response, error) { return nil, errRefused }

// noSymbols leaves a profile as it is: the lab's profiles are symbolized
// when taken, and pprof is given no binary.
type noSymbols struct{}

func (noSymbols) Symbolize(string, driver.MappingSources, *profile.Profile) error { return nil }

// ui is pprof's UI: no terminal, no browser, no input.
type ui struct{ UI }

func (ui) ReadLine(string) (string, error) { return "", io.EOF }

func (u ui) Print(args ...any) {
	if u.UI.Print != nil {
		u.UI.Print(args...)
	}
}

func (u ui) PrintErr(args ...any) {
	if u.UI.PrintErr != nil {
		u.UI.PrintErr(args...)
	}
}

func (ui) IsTerminal() bool                    { return false }
func (ui) WantBrowser() bool                   { return false }
func (ui) SetAutoComplete(func(string) string) {}
