// Command whichsteps prints which steps of a Buildkite pipeline a build
// runs: the steps whose `if` condition holds for the build's variables,
// one key (or label) a line, in pipeline order.
//
//	whichsteps -pipeline RESOLVED.json -var NAME=VALUE...
//
// RESOLVED.json is the pipeline as `buildkite-agent pipeline upload
// --dry-run --format json` prints it. The agent (v3.78.0) interpolates
// environment variables but leaves `if` alone: Buildkite's servers
// evaluate conditions when a pipeline is uploaded, and their evaluator is
// not published as a module. This is an evaluator of the subset of the
// documented syntax ("Using conditionals": comparators == != =~ !~, logical
// operators && || and the prefix !, parentheses, string, integer, true,
// false and null literals, and regular expressions), so that
// //tools/ci:pipeline_test can check the routing of pull requests from
// forks, same-repository pull requests, pushes and the nightly schedule.
// Array `includes` and build.env() are refused, as is any variable not
// given: a condition that names what the test does not model fails loudly.
//
// VALUE is a JSON literal (true, false, null, 42, "text") or else a
// string: -var build.source=schedule -var build.pull_request.repository.fork=null.
package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strings"

	"havlak-lab/internal/cli"
)

type vars map[string]string

func (v vars) String() string { return fmt.Sprint(map[string]string(v)) }

func (v vars) Set(s string) error {
	name, value, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", s)
	}
	v[name] = value
	return nil
}

func main() { cli.Exit(run(os.Args[1:], os.Stdout)) }

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("whichsteps", flag.ContinueOnError)
	pipeline := fs.String("pipeline", "", "the resolved pipeline (JSON, from the agent's dry run)")
	given := vars{}
	fs.Var(given, "var", "a conditional variable, NAME=VALUE (repeatable)")
	if help, err := cli.ParseFlags(fs, args); help || err != nil {
		return err
	}
	if *pipeline == "" || fs.NArg() > 0 {
		return cli.Usagef("usage: whichsteps -pipeline RESOLVED.json -var NAME=VALUE...")
	}
	env := map[string]value{}
	for name, raw := range given {
		env[name] = parseValue(raw)
	}
	data, err := os.ReadFile(*pipeline)
	if err != nil {
		return err
	}
	steps, err := selectSteps(data, env)
	if err != nil {
		return fmt.Errorf("%s: %w", *pipeline, err)
	}
	for _, s := range steps {
		fmt.Fprintln(stdout, s)
	}
	return nil
}

// selectSteps returns the key (else the label) of each step of the
// pipeline whose condition holds.
func selectSteps(pipeline []byte, env map[string]value) ([]string, error) {
	var p struct {
		Steps []map[string]any `json:"steps"`
	}
	if err := json.Unmarshal(pipeline, &p); err != nil {
		return nil, err
	}
	var out []string
	for i, step := range p.Steps {
		name, _ := step["key"].(string)
		if name == "" {
			name, _ = step["label"].(string)
		}
		if name == "" {
			name = fmt.Sprintf("step %d", i+1)
		}
		cond, has := step["if"]
		if has {
			text, ok := cond.(string)
			if !ok {
				return nil, fmt.Errorf("%s: if is %T, not a string", name, cond)
			}
			holds, err := evaluate(text, env)
			if err != nil {
				return nil, fmt.Errorf("%s: if %q: %w", name, text, err)
			}
			if !holds {
				continue
			}
		}
		out = append(out, name)
	}
	return out, nil
}

// parseValue reads a variable's value: a JSON literal, or else a string.
func parseValue(raw string) value {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return value{kind: kindString, s: raw}
	}
	switch v := v.(type) {
	case nil:
		return value{kind: kindNull}
	case bool:
		return value{kind: kindBool, b: v}
	case float64:
		if v == float64(int64(v)) {
			return value{kind: kindInt, i: int64(v)}
		}
	case string:
		return value{kind: kindString, s: v}
	}
	return value{kind: kindString, s: raw}
}

var errUnsupported = errors.New("not supported by this evaluator")
