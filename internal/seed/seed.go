// Package seed owns the project's copy of the seed: the published speed test matrix page
// llmbench must reproduce (llm-inference-bench v0.8.0, Qwen3.8-27B-INT4 on an RTX 3090)
// and the same run written as a run document (schema v1), whose field names are the
// contract between run, report, the site and outside tools.
//
// Tests read the seed from here and nowhere else, so a fresh clone with nothing beside it
// passes its own tests. The files are byte-for-byte copies of the team's shared seed
// (seed/000_f4746f295f65ae80.txt and seed/seed-run.json, copied 2026-12-01); README.md in
// this folder says so too. The page's tables, transcribed for the renderers' tests, are
// ours (tables.go).
package seed

import (
	_ "embed"
	"path/filepath"
	"runtime"
)

// RunJSON is the seed run document.
//
//go:embed seed-run.json
var RunJSON []byte

// PageText is the seed page as published, in its text form.
//
//go:embed seed-page.txt
var PageText string

// RunPath is the seed run document's path in this checkout, for tests that hand a file
// to a command. It is found from this source file, so it works from any package's
// working directory.
func RunPath() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		panic("seed: no caller information to locate seed-run.json")
	}
	return filepath.Join(filepath.Dir(file), "seed-run.json")
}
