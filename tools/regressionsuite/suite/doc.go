package suite

import (
	"bytes"
	"fmt"
	"os"

	"havlak-lab/internal/atomicfile"
)

// The markers between which a document keeps the latest matrix.
const (
	BeginMarker = "<!-- regression-suite matrix: begin (tools/regressionsuite --doc writes it) -->"
	EndMarker   = "<!-- regression-suite matrix: end -->"
)

// UpdateDoc replaces what lies between the markers of the document at
// path with matrix.
func UpdateDoc(path string, matrix []byte) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	updated, err := ReplaceBetweenMarkers(data, matrix)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return atomicfile.WriteFile(path, updated, 0o644)
}

// ReplaceBetweenMarkers returns doc with the text between its markers,
// each once and in order, replaced by text.
func ReplaceBetweenMarkers(doc, text []byte) ([]byte, error) {
	begin, end := []byte(BeginMarker), []byte(EndMarker)
	if bytes.Count(doc, begin) != 1 || bytes.Count(doc, end) != 1 {
		return nil, fmt.Errorf("want the markers %q and %q once each", BeginMarker, EndMarker)
	}
	i, j := bytes.Index(doc, begin)+len(begin), bytes.Index(doc, end)
	if j < i {
		return nil, fmt.Errorf("%q comes before %q", EndMarker, BeginMarker)
	}
	var out bytes.Buffer
	out.Write(doc[:i])
	out.WriteString("\n")
	out.Write(bytes.TrimSpace(text))
	out.WriteString("\n")
	out.Write(doc[j:])
	return out.Bytes(), nil
}
