package explodepath

// Presized returns the non-empty segments of path, or nil if there are
// none. It counts the segments, then allocates the result once.
func Presized(path string) []string {
	n := 0
	for i := 0; i < len(path); i++ {
		if path[i] != '/' && (i == 0 || path[i-1] == '/') {
			n++
		}
	}
	if n == 0 {
		return nil
	}
	segments := make([]string, n)
	k, start := 0, -1 // start of the current segment, or -1 between segments
	for i := 0; i < len(path); i++ {
		switch {
		case path[i] != '/' && start < 0:
			start = i
		case path[i] == '/' && start >= 0:
			segments[k] = path[start:i]
			k++
			start = -1
		}
	}
	if start >= 0 {
		segments[k] = path[start:]
	}
	return segments
}
