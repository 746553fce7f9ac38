package main

import (
	"strings"
	"testing"
)

func TestRefusesBadInput(t *testing.T) {
	for name, c := range map[string]struct {
		args []string
		want string
	}{
		"one commit":     {[]string{"HEAD", "--benchmark", "havlak6"}, "want GOOD and BAD"},
		"no benchmark":   {[]string{"HEAD~1", "HEAD"}, "--benchmark"},
		"go without pkg": {[]string{"A", "B", "--benchmark", "x", "--build=go", "--spec", "s.json"}, "--go-package"},
		"no manifest":    {[]string{"A", "B", "--benchmark", "x", "--build=go", "--go-package", "./x", "--manifest", "/nonexistent/manifest.json"}, "/nonexistent/manifest.json"},
		"manifest twice": {[]string{"A", "B", "--benchmark", "x", "--manifest", "m.json", "--manifest-target", "//perf:manifest"}, "the manifest, once"},
		"unknown build":  {[]string{"A", "B", "--benchmark", "x", "--build=make"}, `--build "make"`},
	} {
		err := run(c.args)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: run(%q) = %v, want an error saying %q", name, c.args, err, c.want)
		}
	}
}
