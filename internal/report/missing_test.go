package report

import (
	"encoding/json"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// seedLacking is the seed's document with figures left out, as the site stores a
// valid cell without one (metric.Measured): cell 0 × 1 has no ttft_ms, 0 × 2 no
// total_tok_s, 0 × 4 no per_request_tok_s, 0 × 8 no tbt_ms; prefill 8K no ttft_ms,
// 16K no prompt_tok_s.
func seedLacking(t *testing.T) *rundoc.Run {
	t.Helper()
	b, err := os.ReadFile(seedPath)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	drop := func(list string, match func(map[string]any) bool, field string) {
		for _, x := range doc[list].([]any) {
			if row := x.(map[string]any); match(row) {
				if _, ok := row[field]; !ok {
					t.Fatalf("the seed's %s row %v has no %s to leave out", list, row, field)
				}
				delete(row, field)
				return
			}
		}
		t.Fatalf("no %s row to leave %s out of", list, field)
	}
	cell := func(ctx, n float64) func(map[string]any) bool {
		return func(r map[string]any) bool { return r["context"] == ctx && r["concurrency"] == n }
	}
	row := func(ctx float64) func(map[string]any) bool {
		return func(r map[string]any) bool { return r["context"] == ctx }
	}
	drop("decode", cell(0, 1), "ttft_ms")
	drop("decode", cell(0, 2), "total_tok_s")
	drop("decode", cell(0, 4), "per_request_tok_s")
	drop("decode", cell(0, 8), "tbt_ms")
	drop("prefill", row(8192), "ttft_ms")
	drop("prefill", row(16384), "prompt_tok_s")
	out, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	run, err := rundoc.Decode(out)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// zeroFigure finds a rate or a latency written as zero: "0 ms", "0.0 tok/s", a
// table's lone "0.0".
var zeroFigure = regexp.MustCompile(`(^|[^0-9.,])0(\.0)? ?(ms|tok/s|秒)|(^|[\s|│>(])0\.0([\s|│<)]|$)`)

// TestMissingFigureIsADash: a valid cell or prefill row that lacks a figure shows "—"
// for it in every format and language — the matrix, the prefill table, All
// measurements, hover texts, charts, the CSV (empty) — never 0, and keeps its other
// figures; the json is the document as it is.
func TestMissingFigureIsADash(t *testing.T) {
	full, run := readSeed(t), seedLacking(t)
	for _, lang := range []string{"en", "ja"} {
		for _, format := range []string{"text", "md", "html"} {
			if m := zeroFigure.FindString(render(t, full, Options{Format: format, Lang: lang})); m != "" {
				t.Fatalf("the seed's own %s report (%s) has %q: the test cannot tell a zero figure", format, lang, m)
			}
			out := render(t, run, Options{Format: format, Lang: lang})
			if m := zeroFigure.FindStringIndex(out); m != nil {
				t.Errorf("%s (%s): a missing figure written as zero: %q", format, lang, out[max(0, m[0]-80):m[1]+20])
			}
			want := []string{"48.2", "133", "172.1", "329.4", "2,163", "7,978"} // the figures the rows keep
			switch format {
			case "text":
				want = append(want, "48.2 ("+dash+")", dash+" (133 ms)")
				if !regexp.MustCompile(`16K +— +7,978 ms`).MatchString(out) {
					t.Errorf("text (%s): the prefill row of 16K does not show its prompt tok/s as —", lang)
				}
			case "md":
				want = append(want, "48.2 ("+dash+")", dash+" (133 ms)", "| 8K | 2,163 | — |", "| 16K | — | 7,978 ms |")
			case "html":
				want = append(want, locale.T(lang, "x_ttft", dash), `<td class="lb-num lb-big">—</td>`)
			}
			for _, w := range want {
				if !strings.Contains(out, w) {
					t.Errorf("%s (%s) lacks %q", format, lang, w)
				}
			}
		}
	}
	rows := readCSV(t, render(t, run, Options{Format: "csv"}))
	for key, want := range map[string]map[string]string{
		"decode/0/1":      {"ttft_ms": "", "total_tok_s": "48.2"},
		"decode/0/2":      {"total_tok_s": "", "ttft_ms": "133", "client_headroom": ""},
		"decode/0/4":      {"per_request_tok_s": "", "total_tok_s": "172.1"},
		"decode/0/8":      {"tbt_ms": "", "total_tok_s": "329.4"},
		"prefill/8192/1":  {"ttft_ms": "", "prompt_tok_s": "2163"},
		"prefill/16384/1": {"prompt_tok_s": "", "ttft_ms": "7978"},
	} {
		for col, v := range want {
			if got := rows[key][col]; got != v {
				t.Errorf("csv %s %s = %q, want %q", key, col, got, v)
			}
		}
	}
	back, err := rundoc.Decode([]byte(render(t, run, Options{Format: "json"})))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(run, back); diff != "" {
		t.Errorf("the json is not the document (-in +out):\n%s", diff)
	}
}
