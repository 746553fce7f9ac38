// Package explodepath splits a URL path into its non-empty segments,
// "/foo/bar/" into ["foo" "bar"], in three versions that give the same
// result and differ in what they allocate:
//
//   - Naive splits at every '/' with strings.Split, which allocates a slice
//     of all the pieces, empty ones included, then appends the non-empty
//     ones to a nil slice, which grows it again and again;
//   - Presized counts the segments first and allocates the result once,
//     with the exact capacity: one allocation whenever there is a segment;
//   - FieldsFunc lets strings.FieldsFunc do it: it notes the segments'
//     bounds in a small array on its stack, then allocates the result once.
//
// All three return nil, not an empty slice, when the path has no segment
// ("", "/", "//", ...). The segments are substrings of the path: none of
// the versions copies bytes.
package explodepath
