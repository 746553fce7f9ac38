package alert

import (
	"strings"

	"havlak-lab/tools/result"
)

// The words after what differs in an environment change's evidence
// (EnvironmentFinding), which Finding.Moved stops reading at.
const (
	notComparedText = "not compared with the baseline, "
	comparedText    = "compared across it, as allowed: "
)

// EnvironmentFinding is the finding of a change of environment since the
// baseline, about tonight's environment key: its evidence says what
// differs (changes, each as the comparison names it: the lab's version
// first, verdict.LabChange), which benchmarks were not compared with the
// baseline (moved: every figure of theirs restarts tonight when another
// version of the lab measured them, their timings otherwise) and which
// were compared across it, as allowed.
func EnvironmentFinding(envKey string, changes, moved, allowed []string, r Range) Finding {
	evidence := strings.Join(changes, "; ")
	restart := "their timings restart tonight"
	if result.MovedBy(changes).Lab {
		restart = "every figure restarts tonight"
	}
	if len(moved) > 0 {
		evidence += "; " + notComparedText + restart + ": " + strings.Join(moved, ", ")
	}
	if len(allowed) > 0 {
		evidence += "; " + comparedText + strings.Join(allowed, ", ")
	}
	return Finding{Kind: EnvironmentChange, Series: Series{EnvKey: envKey}, Evidence: evidence, Range: r}
}

// Moved is what moved since the baseline, for an environment change: the
// lab's version, the environment or both, as its evidence's list of what
// differs says (EnvironmentFinding); nothing for any other kind.
func (f Finding) Moved() result.Moved {
	if f.Kind != EnvironmentChange {
		return result.Moved{}
	}
	var changes []string
	for _, part := range strings.Split(f.Evidence, "; ") {
		if strings.HasPrefix(part, notComparedText) || strings.HasPrefix(part, comparedText) {
			break
		}
		changes = append(changes, part)
	}
	return result.MovedBy(changes)
}
