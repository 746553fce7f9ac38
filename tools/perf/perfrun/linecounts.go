package perfrun

import (
	"fmt"
	"os"

	"havlak-lab/tools/perf/cachegrind/linecounts"
)

// countedOut is the outputs' file of counted run i's Cachegrind output.
func countedOut(i int) string { return fmt.Sprintf("cachegrind.%d.out", i) }

// keepLineCounts keeps the first counted run's counts per line among the
// outputs (linecounts.FileName), which the result names: the run that
// simulates the caches (simulatesCaches), so every event is there. Its
// files are named by their workspace paths, the runfiles tree the run was
// staged in (a count's /tmp/havlak-count-*, perfrun.CountDir) stripped,
// and its records sorted: the same counts give the same bytes wherever
// they are taken, as a cached count action needs. A reader of the result
// follows a figure's change to the lines that made it (package
// attribution) without the binary or Cachegrind's own output, whose
// command line names the count's directory.
func (p *program) keepLineCounts() error {
	raw := p.outPath(countedOut(1))
	in, err := os.Open(raw)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := linecounts.FromCachegrind(in, raw, []string{p.runfiles})
	if err != nil {
		return err
	}
	data, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("%s: %w", raw, err)
	}
	if err := os.WriteFile(p.outPath(linecounts.FileName), data, 0o644); err != nil {
		return err
	}
	p.lineCounts = linecounts.FileName
	return nil
}
