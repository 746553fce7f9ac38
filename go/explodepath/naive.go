package explodepath

import "strings"

// Naive returns the non-empty segments of path, or nil if there are none.
// It builds the result by appending to a nil slice the non-empty pieces of
// strings.Split(path, "/").
func Naive(path string) []string {
	var segments []string
	for _, s := range strings.Split(path, "/") {
		if s != "" {
			segments = append(segments, s)
		}
	}
	return segments
}
