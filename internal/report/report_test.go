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

// TestGolden: every rendering kept as a golden, each run with the formats and
// languages it is kept in. The workload runs were recorded against the built-in
// emulator (llmbench run --turns 5 --concurrency 4; --turns 5 --rate 4 --requests 4;
// --trace synthetic-trace-2k.jsonl --trace-speed 50 against llmbench sim --preset
// h100-8b-fp16 --speed 20).
func TestGolden(t *testing.T) {
	text, md, csv, html := Options{Format: "text"}, Options{Format: "md"}, Options{Format: "csv"}, Options{Format: "html"}
	ja := func(o Options) Options { o.Lang = "ja"; return o }
	ab := [2]*rundoc.Run{readFixture(t, "eval-bf16-run.json"), readFixture(t, "eval-fp8-run.json")}
	abHTML := Options{Format: "html", AB: ab}
	for _, g := range []struct {
		run     *rundoc.Run
		name    string // the goldens' names: name[.ja][.color].<format>.golden
		renders []Options
	}{
		{readSeed(t), "seed", []Options{text, ja(text), {Format: "text", Color: true}, md, csv, html, ja(html)}},
		{readFixture(t, "energy-run.json"), "energy", []Options{text, md, csv, html, ja(html)}},
		{readFixture(t, "failures-run.json"), "failures", []Options{text, md, csv, html}},
		{readFixture(t, "predicted-run.json"), "predicted", []Options{text, md, html}},
		{readFixture(t, "rate-run.json"), "rate", []Options{text, ja(text), md, csv, html}},
		{readFixture(t, "rate-search-run.json"), "rate-search", []Options{text, ja(html)}},
		{ab[0], "eval", []Options{md, html, ja(html)}},
		{ab[1], "eval-ab", []Options{abHTML, ja(abHTML)}},
		{readFixture(t, "workload-sessions-run.json"), "workload-sessions", []Options{text, md, html, ja(html)}},
		{readFixture(t, "workload-rate-sessions-run.json"), "workload-rate-sessions", []Options{text}},
		{readFixture(t, "workload-trace-run.json"), "workload-trace", []Options{ja(text)}},
	} {
		for _, o := range g.renders {
			file := goldenName(g.name, o)
			t.Run(file, func(t *testing.T) {
				golden.File(t, filepath.Join("testdata", file), []byte(render(t, g.run, o)))
			})
		}
	}
}

// goldenName names a rendering's golden after its run, its language and colour, and
// its format.
func goldenName(name string, o Options) string {
	if o.Lang == "ja" {
		name += ".ja"
	}
	if o.Color {
		name += ".color"
	}
	ext := o.Format
	if ext == "text" {
		ext = "txt"
	}
	return name + "." + ext + ".golden"
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
