// Package uplot is uPlot (github.com/leeoniya/uPlot, MIT licence), the
// charting library of the report's trend charts and the dashboard's
// series, embedded so that the report inlines it into a page that works
// offline. It is a shared helper of both, so it lives under internal/.
//
// Its files come from the npm package pinned in the WORKSPACE (@uplot);
// Bazel copies them here. A host `go build` needs them copied by hand:
//
//	tools/bazel build //internal/uplot:dist && cp bazel-bin/internal/uplot/uPlot.* bazel-bin/internal/uplot/LICENSE internal/uplot/
package uplot

import _ "embed"

// Script is uPlot's minified browser build, which defines the global uPlot.
//
//go:embed uPlot.iife.min.js
var Script string

// Style is uPlot's style sheet.
//
//go:embed uPlot.min.css
var Style string

// License is uPlot's licence, which must accompany every copy: the page
// carries it in a comment.
//
//go:embed LICENSE
var License string
