package report

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/rundoc/rundoctest"
	seedcopy "github.com/llmbench/llmbench/internal/seed"

	"github.com/llmbench/llmbench/internal/golden"
)

var seedPath = seedcopy.RunPath()

// readSeed reads the seed run, the project's own copy (internal/seed).
func readSeed(t testing.TB) *rundoc.Run {
	t.Helper()
	run, err := rundoc.ReadFile(seedPath)
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	return run
}

func readFixture(t testing.TB, name string) *rundoc.Run {
	t.Helper()
	run, err := rundoc.ReadFile(rundoctest.Path(name))
	if err != nil {
		t.Fatal(err)
	}
	return run
}

func render(t testing.TB, run *rundoc.Run, opts Options) string {
	t.Helper()
	var buf bytes.Buffer
	if err := Write(&buf, run, opts); err != nil {
		t.Fatalf("Write(%+v): %v", opts, err)
	}
	return buf.String()
}

func TestGolden(t *testing.T) {
	runs := map[string]*rundoc.Run{
		"seed":      readSeed(t),
		"failures":  readFixture(t, "failures-run.json"),
		"predicted": readFixture(t, "predicted-run.json"),
		"energy":    readFixture(t, "energy-run.json"),
		"rate":      readFixture(t, "rate-run.json"),
		"search":    readFixture(t, "rate-search-run.json"),
		"eval-bf16": readFixture(t, "eval-bf16-run.json"),
		"eval-fp8":  readFixture(t, "eval-fp8-run.json"),
	}
	ab := [2]*rundoc.Run{runs["eval-bf16"], runs["eval-fp8"]}
	cases := []struct {
		run  string
		opts Options
		file string
	}{
		{"seed", Options{Format: "text"}, "seed.txt.golden"},
		{"energy", Options{Format: "text"}, "energy.txt.golden"},
		{"energy", Options{Format: "md"}, "energy.md.golden"},
		{"energy", Options{Format: "csv"}, "energy.csv.golden"},
		{"energy", Options{Format: "html"}, "energy.html.golden"},
		{"energy", Options{Format: "html", Lang: "ja"}, "energy.ja.html.golden"},
		{"seed", Options{Format: "text", Lang: "ja"}, "seed.ja.txt.golden"},
		{"seed", Options{Format: "text", Color: true}, "seed.color.txt.golden"},
		{"seed", Options{Format: "md"}, "seed.md.golden"},
		{"seed", Options{Format: "csv"}, "seed.csv.golden"},
		{"seed", Options{Format: "html"}, "seed.html.golden"},
		{"seed", Options{Format: "html", Lang: "ja"}, "seed.ja.html.golden"},
		{"failures", Options{Format: "text"}, "failures.txt.golden"},
		{"failures", Options{Format: "md"}, "failures.md.golden"},
		{"failures", Options{Format: "csv"}, "failures.csv.golden"},
		{"failures", Options{Format: "html"}, "failures.html.golden"},
		{"predicted", Options{Format: "text"}, "predicted.txt.golden"},
		{"predicted", Options{Format: "md"}, "predicted.md.golden"},
		{"predicted", Options{Format: "html"}, "predicted.html.golden"},
		{"rate", Options{Format: "text"}, "rate.txt.golden"},
		{"rate", Options{Format: "text", Lang: "ja"}, "rate.ja.txt.golden"},
		{"rate", Options{Format: "md"}, "rate.md.golden"},
		{"rate", Options{Format: "csv"}, "rate.csv.golden"},
		{"rate", Options{Format: "html"}, "rate.html.golden"},
		{"search", Options{Format: "text"}, "rate-search.txt.golden"},
		{"search", Options{Format: "html", Lang: "ja"}, "rate-search.ja.html.golden"},
		{"eval-bf16", Options{Format: "md"}, "eval.md.golden"},
		{"eval-bf16", Options{Format: "html"}, "eval.html.golden"},
		{"eval-bf16", Options{Format: "html", Lang: "ja"}, "eval.ja.html.golden"},
		{"eval-fp8", Options{Format: "html", AB: ab}, "eval-ab.html.golden"},
		{"eval-fp8", Options{Format: "html", Lang: "ja", AB: ab}, "eval-ab.ja.html.golden"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			golden.File(t, filepath.Join("testdata", c.file), []byte(render(t, runs[c.run], c.opts)))
		})
	}
}

// TestInferredQueueingSaysHowMany: a cell whose queue was inferred (no waiting gauge)
// tells the reader how many requests streamed at once, in both languages.
func TestInferredQueueingSaysHowMany(t *testing.T) {
	cell := &rundoc.DecodeCell{Context: 0, Concurrency: 8, Status: rundoc.StatusValid,
		CellDetail: &rundoc.CellDetail{Queueing: true, PeakStreaming: 4, Flags: []string{"queueing_inferred"}}}
	for lang, want := range map[string]string{"en": "at most 4 of 8 requests streamed at once", "ja": "最大 4 / 8"} {
		warnings, _ := cellDetails(lang, cell)
		if len(warnings) == 0 || !strings.Contains(warnings[0], want) {
			t.Errorf("%s: warnings %q, want the first to say %q", lang, warnings, want)
		}
	}
	cell.CellDetail.PeakStreaming = 8 // a gauge said so; every request did stream at once
	if warnings, _ := cellDetails("en", cell); strings.Contains(warnings[0], "streamed at once") {
		t.Errorf("peak equal to the concurrency still reported: %q", warnings[0])
	}
}
