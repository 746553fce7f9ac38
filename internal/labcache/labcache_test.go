package labcache

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// A case of the rule: an environment (only the rule's variables; "" is
// set but empty), the subdirectory asked for, and the answer.
type ruleCase struct {
	name    string
	env     map[string]string
	sub     string
	want    string // the directory, when there is one
	wantErr string // else the whole error message
}

var ruleCases = []ruleCase{
	{"HAVLAK_LAB_CACHE first", map[string]string{"HAVLAK_LAB_CACHE": "/srv/lab", "XDG_CACHE_HOME": "/x", "HOME": "/home/u"},
		"bisect", "/srv/lab/bisect", ""},
	{"HAVLAK_LAB_CACHE itself", map[string]string{"HAVLAK_LAB_CACHE": "/srv/lab/", "HOME": "/home/u"},
		"", "/srv/lab", ""},
	{"then XDG_CACHE_HOME", map[string]string{"XDG_CACHE_HOME": "/x/cache", "HOME": "/home/u"},
		"nightly-baseline", "/x/cache/havlak-lab/nightly-baseline", ""},
	{"an empty variable counts as unset", map[string]string{"HAVLAK_LAB_CACHE": "", "XDG_CACHE_HOME": "", "HOME": "/home/u"},
		"netty-tcnative", "/home/u/.cache/havlak-lab/netty-tcnative", ""},
	{"then HOME", map[string]string{"HOME": "/home/u"},
		"", "/home/u/.cache/havlak-lab", ""},
	{"the root as cache", map[string]string{"HAVLAK_LAB_CACHE": "/"},
		"", "/", ""},
	{"a relative HAVLAK_LAB_CACHE is refused, not skipped", map[string]string{"HAVLAK_LAB_CACHE": "cache", "HOME": "/home/u"},
		"bisect", "", `the lab's cache directory: HAVLAK_LAB_CACHE="cache" is not an absolute path`},
	{"a relative XDG_CACHE_HOME", map[string]string{"XDG_CACHE_HOME": "./c", "HOME": "/home/u"},
		"", "", `the lab's cache directory: XDG_CACHE_HOME="./c" is not an absolute path`},
	{"a relative HOME", map[string]string{"HOME": "u"},
		"", "", `the lab's cache directory: HOME="u" is not an absolute path`},
	{"nothing set", map[string]string{},
		"cluster", "", "the lab's cache directory: none of HAVLAK_LAB_CACHE, XDG_CACHE_HOME and HOME is set"},
	{"a path as subdirectory", map[string]string{"HOME": "/home/u"},
		"a/b", "", `the lab's cache directory: subdirectory "a/b": want one plain name`},
	{"a way out as subdirectory", map[string]string{"HOME": "/home/u"},
		"..", "", `the lab's cache directory: subdirectory "..": want one plain name`},
}

func TestDir(t *testing.T) {
	for _, c := range ruleCases {
		t.Run(c.name, func(t *testing.T) {
			for _, v := range variables {
				t.Setenv(v.name, c.env[v.name])
			}
			got, err := Dir(c.sub)
			switch {
			case c.wantErr != "" && (err == nil || err.Error() != c.wantErr):
				t.Fatalf("Dir(%q) = %q, %v; want the error %q", c.sub, got, err, c.wantErr)
			case c.wantErr == "" && (err != nil || got != c.want):
				t.Fatalf("Dir(%q) = %q, %v; want %q", c.sub, got, err, c.want)
			}
		})
	}
}

// TestShellAgrees runs labcache.sh's labcache_dir in each case of the rule:
// the same directory (the shell does not tidy a path as filepath.Join
// does, so both are compared cleaned), or the same error on stderr and a
// failure.
func TestShellAgrees(t *testing.T) {
	script, err := filepath.Abs("labcache.sh")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range ruleCases {
		t.Run(c.name, func(t *testing.T) {
			cmd := exec.Command("bash", "-c", `set -euo pipefail; source "$1"; labcache_dir "$2"`, "labcache", script, c.sub)
			cmd.Env = []string{"PATH=/usr/bin:/bin"}
			for name, value := range c.env {
				cmd.Env = append(cmd.Env, name+"="+value)
			}
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			got := strings.TrimSuffix(string(out), "\n")
			if c.wantErr != "" {
				if err == nil || strings.TrimSpace(stderr.String()) != c.wantErr || got != "" {
					t.Fatalf("labcache_dir %q: %v, printed %q, said %q; want a failure saying %q", c.sub, err, got, stderr.String(), c.wantErr)
				}
				return
			}
			if err != nil || stderr.Len() > 0 || !filepath.IsAbs(got) || filepath.Clean(got) != c.want {
				t.Fatalf("labcache_dir %q: %v, printed %q, said %q; want %q", c.sub, err, got, stderr.String(), c.want)
			}
		})
	}
}
