// Package bazelquery reads the target graph of a workspace's own packages
// as `bazel query --output=xml` prints it, and answers which targets a set
// of source files can reach: the targets whose build depends on them.
//
// Only the packages queried are loaded (their BUILD files and the .bzl
// files these load), never the external repositories their targets depend
// on: a query of the lab's packages needs no toolchain, no Go module and
// no compiler, so that it answers in seconds on a cold machine. Edges into
// external repositories are kept as labels and not followed; an external
// target that depends back on a workspace target is not seen, which the
// caller must rule out (the lab registers no toolchain of its own).
package bazelquery

import (
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"sort"
	"strings"
)

// MaxOutput bounds the query output read: the lab's packages print about
// 1 MB.
const MaxOutput = 256 << 20

// A Rule is a rule target: its class, its inputs (every label it depends
// on, implicit ones included, every branch of a select) and its
// attributes of one string or label value, by name, and of a list of
// labels.
type Rule struct {
	Label   string
	Class   string
	Inputs  []string
	Strings map[string]string
	Lists   map[string][]string
}

// A Graph is the targets of the packages queried.
type Graph struct {
	Rules map[string]*Rule
	// Sources are the source files the packages declare (listed in a
	// rule's attribute, matched by a glob, or exported).
	Sources map[string]bool
	// GeneratedBy is the rule that generates each generated file.
	GeneratedBy map[string]string
}

// ReadXML reads `bazel query --output=xml` output, at most MaxOutput bytes.
func ReadXML(r io.Reader) (*Graph, error) {
	g := &Graph{Rules: map[string]*Rule{}, Sources: map[string]bool{}, GeneratedBy: map[string]string{}}
	limited := &io.LimitedReader{R: r, N: MaxOutput + 1}
	// Bazel declares XML 1.1, which encoding/xml refuses to read; what the
	// query prints is XML 1.0 but for that declaration.
	in := bufio.NewReader(limited)
	if prolog, err := in.Peek(len("<?xml")); err == nil && string(prolog) == "<?xml" {
		if _, err := in.ReadString('>'); err != nil {
			return nil, fmt.Errorf("the query's output: its XML declaration: %w", err)
		}
	}
	dec := xml.NewDecoder(in)
	var rule *Rule  // the rule being read
	var list string // the name of the rule's list being read
	depth := 0      // of the element being read, the query's own at 1
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			if limited.N <= 0 {
				return nil, fmt.Errorf("the query's output is larger than %d bytes", MaxOutput)
			}
			return nil, fmt.Errorf("the query's output: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			depth++
			attr := func(name string) string {
				for _, a := range t.Attr {
					if a.Name.Local == name {
						return a.Value
					}
				}
				return ""
			}
			switch {
			case depth == 2 && t.Name.Local == "rule":
				rule = &Rule{Label: attr("name"), Class: attr("class"), Strings: map[string]string{}, Lists: map[string][]string{}}
				if rule.Label == "" {
					return nil, fmt.Errorf("the query's output: line %d: a rule without a name", line(dec))
				}
				g.Rules[rule.Label] = rule
			case depth == 2 && t.Name.Local == "source-file":
				g.Sources[attr("name")] = true
			case depth == 2 && t.Name.Local == "generated-file":
				g.GeneratedBy[attr("name")] = attr("generating-rule")
			case rule == nil:
			case depth == 3 && t.Name.Local == "rule-input":
				rule.Inputs = append(rule.Inputs, attr("name"))
			case depth == 3 && (t.Name.Local == "string" || t.Name.Local == "label"):
				rule.Strings[attr("name")] = attr("value")
			case depth == 3 && t.Name.Local == "list":
				list = attr("name")
				rule.Lists[list] = []string{}
			case depth == 4 && list != "" && (t.Name.Local == "label" || t.Name.Local == "string"):
				rule.Lists[list] = append(rule.Lists[list], attr("value"))
			}
		case xml.EndElement:
			switch depth {
			case 2:
				rule = nil
			case 3:
				list = ""
			}
			depth--
		}
	}
	if len(g.Rules) == 0 && len(g.Sources) == 0 {
		return nil, errors.New("the query's output holds no target")
	}
	return g, nil
}

func line(dec *xml.Decoder) int {
	l, _ := dec.InputPos()
	return l
}

// Reaching is every target whose build depends on one of targets (them
// included): the reverse closure over the graph's rules and generated
// files.
func (g *Graph) Reaching(targets []string) map[string]bool {
	users := map[string][]string{}
	for _, r := range g.Rules {
		for _, in := range r.Inputs {
			users[in] = append(users[in], r.Label)
		}
	}
	for file, rule := range g.GeneratedBy {
		users[rule] = append(users[rule], file)
	}
	reached := map[string]bool{}
	queue := append([]string(nil), targets...)
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		if reached[t] {
			continue
		}
		reached[t] = true
		queue = append(queue, users[t]...)
	}
	return reached
}

// DependedOn is every target the builds of targets depend on (them
// included): the closure over the graph's rules' inputs and the rules that
// generate files, within the packages queried.
func (g *Graph) DependedOn(targets []string) map[string]bool {
	deps := map[string]bool{}
	queue := append([]string(nil), targets...)
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		if deps[t] {
			continue
		}
		deps[t] = true
		if r, ok := g.Rules[t]; ok {
			queue = append(queue, r.Inputs...)
		}
		if rule, ok := g.GeneratedBy[t]; ok {
			queue = append(queue, rule)
		}
	}
	return deps
}

// RulesOf lists the rules of one package (pkg: "benchmarks", "" for the
// workspace's root), sorted.
func (g *Graph) RulesOf(pkg string) []string {
	var labels []string
	for label := range g.Rules {
		if p, _, ok := strings.Cut(strings.TrimPrefix(label, "//"), ":"); ok && p == pkg && strings.HasPrefix(label, "//") {
			labels = append(labels, label)
		}
	}
	sort.Strings(labels)
	return labels
}

// Packages are the workspace's packages, from the list of its files
// (slash-separated, relative to the workspace): the directories holding a
// BUILD or BUILD.bazel file, "" for the root; sorted.
func Packages(files []string) []string {
	seen := map[string]bool{}
	for _, f := range files {
		dir, base := path.Split(f)
		if base == "BUILD" || base == "BUILD.bazel" {
			seen[strings.TrimSuffix(dir, "/")] = true
		}
	}
	pkgs := make([]string, 0, len(seen))
	for p := range seen {
		pkgs = append(pkgs, p)
	}
	sort.Strings(pkgs)
	return pkgs
}

// Everything is the query of every target of the packages, none of their
// dependencies beyond them.
func Everything(pkgs []string) string {
	patterns := make([]string, len(pkgs))
	for i, p := range pkgs {
		patterns[i] = "//" + p + ":*"
	}
	return strings.Join(patterns, " + ")
}

// Owner is the label a workspace file has as a source file, in the
// package of the nearest directory above it that is one (pkgs sorted, as
// Packages gives them); false when no package holds it.
func Owner(pkgs []string, file string) (label, pkg string, ok bool) {
	for dir := path.Dir(file); ; dir = path.Dir(dir) {
		if dir == "." {
			dir = ""
		}
		if i := sort.SearchStrings(pkgs, dir); i < len(pkgs) && pkgs[i] == dir {
			rel := strings.TrimPrefix(file, dir)
			return "//" + dir + ":" + strings.TrimPrefix(rel, "/"), dir, true
		}
		if dir == "" {
			return "", "", false
		}
	}
}
