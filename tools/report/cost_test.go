package main

import (
	"path/filepath"
	"strings"
	"testing"

	"havlak-lab/tools/summary"
)

// A regression names the figure that caught it and the kind of cost the
// figure stands for, as the figure's producer declared it in result.json
// (here a locality figure the report has no code for): on stderr, in the
// tables, in summary.json; the low-noise table shows the kind.
func TestVerdictNamesTheCost(t *testing.T) {
	oldDir, newDir := t.TempDir(), t.TempDir()
	for dir, misses := range map[string]float64{oldDir: 1e6, newDir: 1.05e6} {
		unzipTo(t, filepath.Join(fixtures, "havlak6cc_quick_test", "outputs.zip"), filepath.Join(dir, "havlak6cc"))
		editResult(t, filepath.Join(dir, "havlak6cc"), func(doc map[string]any) {
			doc["metrics"] = []any{
				map[string]any{"name": "instructions", "unit": "instructions", "source": "test", "cost": "work",
					"values": []float64{1e9}, "gated": true, "threshold": 0.01},
				map[string]any{"name": "d1_misses", "unit": "misses", "source": "test", "cost": "locality",
					"values": []float64{misses}, "gated": true, "threshold": 0.01},
			}
		})
	}
	out := t.TempDir()
	stderr, status, _ := runReport(t, "--from", newDir, "--baseline", oldDir, "--out", out)
	if status != 1 {
		t.Fatalf("exit status %d, want 1 (regressed):\n%s", status, stderr)
	}
	if !strings.Contains(stderr, "havlak6cc: d1_misses +5.00% (REGRESSED, cost: locality: 1,000,000 → 1,050,000 misses") {
		t.Errorf("stderr does not name the figure and its cost:\n%s", stderr)
	}
	table := readFile(t, filepath.Join(out, "table.md"))
	if !strings.Contains(table, "d1_misses +5.00% (REGRESSED, cost: locality)") || strings.Contains(table, "instructions +0.00% (REGRESSED") {
		t.Errorf("table.md does not name the figure that regressed and its cost:\n%s", table)
	}
	if md := readFile(t, filepath.Join(out, "report.md")); !strings.Contains(md, "| havlak6cc | d1_misses | locality | 1050000 misses |") {
		t.Errorf("report.md's low-noise table lacks the figure's cost:\n%s", md)
	}
	sum, err := summary.Read(filepath.Join(out, summary.FileName))
	if err != nil || len(sum.Regressed()) != 1 {
		t.Fatalf("summary.json: %v, %v", sum, err)
	}
	for _, v := range sum.Regressed()[0].Figures {
		if v.Figure == "d1_misses" && (!v.Fails() || v.Cost != "locality") {
			t.Errorf("summary.json's d1_misses: %+v: want a failing verdict of cost locality", v)
		}
	}
}

// A server whose allocations per request grow regresses by that figure,
// named with its cost, even when its throughput and latency, judged by
// the timing rule, do not move.
func TestServerFigurePerRequestRegresses(t *testing.T) {
	oldDir, newDir := t.TempDir(), t.TempDir()
	for dir, objects := range map[string]float64{oldDir: 17, newDir: 17.5} {
		unzipTo(t, "testdata/servers/router_mutex_quick_test/outputs.zip", filepath.Join(dir, "router_mutex"))
		editResult(t, filepath.Join(dir, "router_mutex"), func(doc map[string]any) {
			doc["metrics"] = []any{map[string]any{"name": "alloc_objects_per_request", "unit": "objects/request",
				"source": "test", "cost": "memory management", "values": []float64{objects}, "gated": true, "threshold": 0.01}}
		})
	}
	out := t.TempDir()
	stderr, status, _ := runReport(t, "--from", newDir, "--baseline", oldDir, "--out", out)
	if status != 1 {
		t.Fatalf("exit status %d, want 1 (regressed):\n%s", status, stderr)
	}
	table := readFile(t, filepath.Join(out, "table.md"))
	if !strings.Contains(table, "alloc_objects_per_request +2.94% (REGRESSED, cost: memory management)") {
		t.Errorf("table.md does not name the server's figure and its cost:\n%s", table)
	}
	if md := readFile(t, filepath.Join(out, "report.md")); !strings.Contains(md, "| router_mutex | alloc_objects_per_request | memory management | 17.500 objects/request |") {
		t.Errorf("report.md's low-noise table lacks the server's figure:\n%s", md)
	}
}

// A server's contention, a timing of its metrics, is compared and shown
// with the other figures per request, of cost contention: worse, named,
// and, not gated, failing nothing at twenty times the wait.
func TestServerContentionIsShown(t *testing.T) {
	oldDir, newDir := t.TempDir(), t.TempDir()
	for dir, wait := range map[string]float64{oldDir: 0.01, newDir: 0.2} {
		unzipTo(t, "testdata/servers/router_mutex_quick_test/outputs.zip", filepath.Join(dir, "router_mutex"))
		editResult(t, filepath.Join(dir, "router_mutex"), func(doc map[string]any) {
			doc["metrics"] = []any{map[string]any{"name": "mutex_wait_per_cpu_second", "unit": "s/cpu-s", "source": "test",
				"cost": "contention", "class": "timing", "values": []float64{wait}, "gated": false}}
		})
	}
	out := t.TempDir()
	stderr, status, _ := runReport(t, "--from", newDir, "--baseline", oldDir, "--out", out)
	if status != 0 {
		t.Fatalf("exit status %d, want 0 (the figure is not gated):\n%s", status, stderr)
	}
	table := readFile(t, filepath.Join(out, "table.md"))
	if !strings.Contains(table, "mutex_wait_per_cpu_second +1900.00% (worse, cost: contention)") {
		t.Errorf("table.md does not show the server's contention:\n%s", table)
	}
	if md := readFile(t, filepath.Join(out, "report.md")); !strings.Contains(md, "| router_mutex | mutex_wait_per_cpu_second | contention |") {
		t.Errorf("report.md's low-noise table lacks the server's contention:\n%s", md)
	}
	sum, err := summary.Read(filepath.Join(out, summary.FileName))
	if err != nil || len(sum.Benchmarks) != 1 {
		t.Fatalf("summary.json: %v, %v", sum, err)
	}
	found := false
	for _, v := range sum.Benchmarks[0].Figures {
		if v.Figure == "mutex_wait_per_cpu_second" {
			found = true
			if v.Outcome != "regressed" || v.Fails() || v.Cost != "contention" || v.Class != "timing" {
				t.Errorf("summary.json's mutex_wait_per_cpu_second: %+v: want worse, not failing, a timing of cost contention", v)
			}
		}
	}
	if !found {
		t.Errorf("summary.json has no verdict on mutex_wait_per_cpu_second: %+v", sum.Benchmarks[0].Figures)
	}
}
