package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// instructionCounts are what one run under Cachegrind executed.
type instructionCounts struct {
	// Total is every instruction of the process, Cachegrind's summary.
	Total uint64
	// Own leaves out the Go runtime's functions (packages runtime and
	// internal/runtime/...): its scheduler, page allocator and stack
	// unwinder do an amount of work that depends on timing and on where
	// the kernel put memory, while the program's own code, the standard
	// library included, executes the same instructions run after run.
	// For a C or C++ program it equals Total.
	Own uint64
}

// goRuntime tells whether a Cachegrind function name is the Go runtime's.
func goRuntime(fn string) bool {
	return strings.HasPrefix(fn, "runtime.") || strings.HasPrefix(fn, "internal/runtime/")
}

// readCachegrind reads a Cachegrind output file written with
// --cache-sim=no, whose only event is Ir: "fn=NAME" lines, each followed
// by "LINE COUNT" lines, and a "summary: TOTAL" line.
func readCachegrind(path string) (instructionCounts, error) {
	f, err := os.Open(path)
	if err != nil {
		return instructionCounts{}, err
	}
	defer f.Close()
	var c instructionCounts
	var sum uint64
	summary, inRuntime := false, false
	s := bufio.NewScanner(f)
	s.Buffer(nil, 1<<20)
	for line := 1; s.Scan(); line++ {
		text := s.Text()
		bad := func(why string) error { return fmt.Errorf("%s:%d: %s: %q", path, line, why, text) }
		switch {
		case strings.HasPrefix(text, "events:"):
			if strings.TrimSpace(strings.TrimPrefix(text, "events:")) != "Ir" {
				return c, bad("want Ir as the only event (--cache-sim=no)")
			}
		case strings.HasPrefix(text, "fn="):
			inRuntime = goRuntime(strings.TrimPrefix(text, "fn="))
		case strings.HasPrefix(text, "summary:"):
			total, err := strconv.ParseUint(strings.TrimSpace(strings.TrimPrefix(text, "summary:")), 10, 64)
			if err != nil {
				return c, bad("not a count")
			}
			c.Total, summary = total, true
		case text != "" && text[0] >= '0' && text[0] <= '9':
			fields := strings.Fields(text)
			if len(fields) != 2 {
				return c, bad("want LINE COUNT")
			}
			n, err := strconv.ParseUint(fields[1], 10, 64)
			if err != nil {
				return c, bad("not a count")
			}
			sum += n
			if !inRuntime {
				c.Own += n
			}
		}
	}
	if err := s.Err(); err != nil {
		return c, err
	}
	switch {
	case !summary:
		return c, fmt.Errorf("%s: no summary line: not a whole Cachegrind output", path)
	case sum != c.Total:
		return c, fmt.Errorf("%s: the functions' counts add up to %d, the summary says %d", path, sum, c.Total)
	}
	return c, nil
}
