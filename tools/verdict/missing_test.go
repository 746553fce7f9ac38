package verdict

import (
	"fmt"
	"strings"
	"testing"
)

func TestGoneBenchmarks(t *testing.T) {
	baseline := map[string]string{"havlak6": "base/havlak6", "havlak7": "base/havlak7", "explodepath": "base/explodepath"}
	tonight := map[string]bool{"havlak6": true}
	gone := GoneBenchmarks(baseline, tonight, []string{"havlak7"}, "tonight has no result of it")
	if fmt.Sprint(gone) != "[{explodepath the baseline has it (base/explodepath), tonight has no result of it false} "+
		"{havlak7 the baseline has it (base/havlak7), tonight has no result of it true}]" {
		t.Errorf("GoneBenchmarks: %v", gone)
	}
	for retire, want := range map[string]string{
		"nope":    "--retire nope: the baseline has no such benchmark",
		"havlak6": "--retire havlak6: it is still measured",
	} {
		if err := CheckRetire(baseline, tonight, []string{retire}); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("CheckRetire(%s): %v, want %q", retire, err, want)
		}
	}
	if err := CheckRetire(baseline, tonight, []string{"havlak7"}); err != nil {
		t.Errorf("CheckRetire(havlak7): %v", err)
	}
}
