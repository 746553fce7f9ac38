package runtimemetrics

import (
	"encoding/json"
	"net/http"
)

// Path is where a server of the lab serves its figures so far, next to
// net/http/pprof, for the perf runner to read before and after each
// measured round of load (its allocations per request).
const Path = "/debug/runtime-metrics"

// Handler serves this process's figures now, as JSON (Figures).
func Handler(w http.ResponseWriter, _ *http.Request) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(Read())
}
