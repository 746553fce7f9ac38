package explodepath

import "strings"

// FieldsFunc returns the non-empty segments of path, or nil if there are
// none, as strings.FieldsFunc finds them.
func FieldsFunc(path string) []string {
	segments := strings.FieldsFunc(path, isSlash)
	if len(segments) == 0 {
		return nil // FieldsFunc returns an empty, non-nil slice
	}
	return segments
}

func isSlash(r rune) bool { return r == '/' }
