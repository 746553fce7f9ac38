package exports

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"havlak-lab/tools/result"
)

// No OpenMetrics parser is among the lab's Go modules (the Prometheus
// modules' parsers would bring a dozen more), so parseOpenMetrics checks
// the rules of the OpenMetrics text format that the export relies on, as
// its specification's ABNF states them: metric and label names, escaped
// label values and help text, # TYPE / # UNIT / # HELP once per family
// before its samples, a family's name ending in its unit, families not
// interleaved, label sets unique in a family, numbers, and # EOF last.
type omSample struct {
	labels map[string]string
	value  float64
}

type omFamily struct {
	typ, unit, help string
	samples         []omSample
}

var (
	omMetricName = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
	omLabelName  = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)
	omTypes      = map[string]bool{"counter": true, "gauge": true, "histogram": true, "gaugehistogram": true,
		"stateset": true, "info": true, "summary": true, "unknown": true}
)

func parseOpenMetrics(text string) (map[string]*omFamily, error) {
	if !strings.HasSuffix(text, "# EOF\n") {
		return nil, fmt.Errorf("does not end with # EOF and a newline")
	}
	lines := strings.Split(strings.TrimSuffix(text, "# EOF\n"), "\n")
	lines = lines[:len(lines)-1] // after the last newline
	families := map[string]*omFamily{}
	var current string
	done := map[string]bool{}
	family := func(name string, n int) (*omFamily, error) {
		if !omMetricName.MatchString(name) {
			return nil, fmt.Errorf("line %d: metric name %q", n, name)
		}
		if name != current {
			if done[name] {
				return nil, fmt.Errorf("line %d: family %s interleaved with another", n, name)
			}
			if current != "" {
				done[current] = true
			}
			current = name
			families[name] = &omFamily{}
		}
		return families[name], nil
	}
	for i, line := range lines {
		n := i + 1
		if line == "" {
			return nil, fmt.Errorf("line %d: empty", n)
		}
		if rest, ok := strings.CutPrefix(line, "# "); ok {
			kind, rest, _ := strings.Cut(rest, " ")
			name, value, ok := strings.Cut(rest, " ")
			if !ok {
				return nil, fmt.Errorf("line %d: %q", n, line)
			}
			f, err := family(name, n)
			if err != nil {
				return nil, err
			}
			if len(f.samples) > 0 {
				return nil, fmt.Errorf("line %d: # %s after the family's samples", n, kind)
			}
			switch kind {
			case "TYPE":
				if f.typ != "" || !omTypes[value] {
					return nil, fmt.Errorf("line %d: TYPE %q again or unknown", n, value)
				}
				f.typ = value
			case "UNIT":
				if f.unit != "" || !omLabelName.MatchString(value) || !strings.HasSuffix(name, "_"+value) {
					return nil, fmt.Errorf("line %d: UNIT %q again, invalid, or not the end of %s", n, value, name)
				}
				f.unit = value
			case "HELP":
				help, err := unescape(value, false)
				if err != nil || f.help != "" {
					return nil, fmt.Errorf("line %d: HELP again or %v", n, err)
				}
				f.help = help
			default:
				return nil, fmt.Errorf("line %d: # %s", n, kind)
			}
			continue
		}
		name, rest, _ := strings.Cut(line, "{")
		labelText, valueText, ok := strings.Cut(rest, "} ")
		if !ok {
			return nil, fmt.Errorf("line %d: a sample without labels: %q", n, line)
		}
		f, err := family(name, n)
		if err != nil {
			return nil, err
		}
		labels, err := parseLabels(labelText)
		if err != nil {
			return nil, fmt.Errorf("line %d: %v", n, err)
		}
		value, err := strconv.ParseFloat(valueText, 64)
		if err != nil || strings.ContainsAny(valueText, " \t") {
			return nil, fmt.Errorf("line %d: value %q", n, valueText)
		}
		for _, s := range f.samples {
			if fmt.Sprint(s.labels) == fmt.Sprint(labels) {
				return nil, fmt.Errorf("line %d: label set %v twice in %s", n, labels, name)
			}
		}
		f.samples = append(f.samples, omSample{labels, value})
	}
	return families, nil
}

// parseLabels parses `name="value",...`.
func parseLabels(text string) (map[string]string, error) {
	labels := map[string]string{}
	for text != "" {
		name, rest, ok := strings.Cut(text, `="`)
		if !ok || !omLabelName.MatchString(name) {
			return nil, fmt.Errorf("label name in %q", text)
		}
		if _, twice := labels[name]; twice {
			return nil, fmt.Errorf("label %s twice", name)
		}
		end := -1
		for i := 0; i < len(rest); i++ {
			if rest[i] == '\\' {
				i++
				continue
			}
			if rest[i] == '"' {
				end = i
				break
			}
		}
		if end < 0 {
			return nil, fmt.Errorf("unterminated label value in %q", text)
		}
		value, err := unescape(rest[:end], true)
		if err != nil {
			return nil, err
		}
		labels[name] = value
		text = strings.TrimPrefix(rest[end+1:], ",")
		if text != "" && rest[end+1] != ',' {
			return nil, fmt.Errorf("labels not separated by commas")
		}
	}
	return labels, nil
}

// unescape undoes the escapes of a label value or help text: \\, \" and
// \n, and refuses a bare newline (and, in a label value, a bare quote).
func unescape(s string, label bool) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\n' || label && c == '"':
			return "", fmt.Errorf("unescaped %q in %q", c, s)
		case c == '\\':
			if i+1 == len(s) {
				return "", fmt.Errorf("a trailing backslash in %q", s)
			}
			i++
			switch s[i] {
			case '\\':
				b.WriteByte('\\')
			case '"':
				b.WriteByte('"')
			case 'n':
				b.WriteByte('\n')
			default:
				return "", fmt.Errorf("escape \\%c in %q", s[i], s)
			}
		default:
			b.WriteByte(c)
		}
	}
	return b.String(), nil
}

// The real server result's figures as OpenMetrics.
func TestOpenMetrics(t *testing.T) {
	text := string(export(t, OpenMetrics, readNight(t, nightDir, serversDir)))
	families, err := parseOpenMetrics(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	if len(families) != 6 {
		t.Errorf("%d families, want the server's 6 figures (throughput, 5 latencies):\n%s", len(families), text)
	}
	for name, f := range families {
		if f.typ != "gauge" || f.unit == "" || f.help == "" || len(f.samples) != 1 {
			t.Errorf("%s: %+v; want a gauge with unit, help and one sample (the programs are left out)", name, f)
		}
	}
	throughput := families["havlak_lab_server_throughput_requests_per_second"]
	if throughput == nil || throughput.unit != "requests_per_second" || throughput.samples[0].value != 15819.659888299733 ||
		throughput.samples[0].labels["benchmark"] != "router_mutex" || throughput.samples[0].labels["study"] != "HTTP router under load" ||
		throughput.samples[0].labels["commit"] != "82b484456fed7a9fe8bc2cc670652ed9483be341" {
		t.Errorf("throughput: %+v\n%s", throughput, text)
	}
	if p99 := families["havlak_lab_server_latency_p99_seconds"]; p99 == nil || p99.samples[0].value != 0.003624519 {
		t.Errorf("latency_p99: %+v", p99)
	}
	// A night without servers exposes nothing, validly.
	if empty := string(export(t, OpenMetrics, readNight(t, nightDir))); empty != "# EOF\n" {
		t.Errorf("no servers: %q", empty)
	}
}

// Label values from a result are escaped: what is read back is what the
// result said.
func TestOpenMetricsEscapes(t *testing.T) {
	servers := readNight(t, serversDir)
	r := *servers.Inputs[0].Result
	r.Benchmark.Study = "a \"quoted\" study\\ on\ntwo lines"
	text := string(export(t, OpenMetrics, Set{Inputs: []Input{{&r, servers.Inputs[0].Outputs}}}))
	families, err := parseOpenMetrics(text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	for name, f := range families {
		if got := f.samples[0].labels["study"]; got != r.Benchmark.Study {
			t.Errorf("%s: study read back as %q", name, got)
		}
	}
	// Two figures that would make one family are refused.
	r = *servers.Inputs[0].Result
	r.Metrics = []result.Metric{{Name: "latency.p99", Unit: "s", Source: "x", Values: []float64{1}}}
	if _, err := openMetrics(Set{Inputs: []Input{{&r, servers.Inputs[0].Outputs}}}); err == nil ||
		!strings.Contains(err.Error(), "would both be havlak_lab_server_latency_p99_seconds") {
		t.Errorf("latency.p99 and latency_p99: %v", err)
	}
	// The checker catches what it should.
	for _, bad := range []string{
		"m{a=\"x\"} 1\n",
		"# TYPE m gauge\nm{a=\"x\ny\"} 1\n# EOF\n",
		"# TYPE m_seconds gauge\n# UNIT m_seconds bytes\n# EOF\n",
		"# TYPE m gauge\nm{a=\"1\"} 1\n# TYPE n gauge\nn{a=\"1\"} 1\nm{a=\"2\"} 1\n# EOF\n",
		"# TYPE m gauge\nm{a=\"1\"} 1\nm{a=\"1\"} 2\n# EOF\n",
	} {
		if _, err := parseOpenMetrics(bad); err == nil {
			t.Errorf("the checker took %q", bad)
		}
	}
}
