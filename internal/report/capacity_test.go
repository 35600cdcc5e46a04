package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// TestCapacityInEveryFormat: the seed's answer at 0 context (8 users, limited by the KV
// cache: internal/capacity's TestSeedCapacity) is in every format and both languages,
// with the table at 10, 20 and 40 tok/s.
func TestCapacityInEveryFormat(t *testing.T) {
	run := readSeed(t)
	want := map[string][]string{
		"en": {"At 0 context: 8 users at ≥ 20 tok/s each, first token ≤ 1 s (limit: KV cache — 16 would not fit).", "≥ 10 tok/s", "≥ 40 tok/s", "8 (KV cache)"},
		"ja": {"0 コンテキスト：1 人あたり 20 tok/s 以上、最初のトークン 1 秒 以内 で 8 人（制約：KV キャッシュ — 16 件は収まりません）。", "40 tok/s 以上", "8（KV キャッシュ）"},
	}
	for lang, texts := range want {
		for _, f := range []string{"text", "md", "html"} {
			out := render(t, run, Options{Format: f, Lang: lang})
			for _, w := range texts {
				if !strings.Contains(out, w) {
					t.Errorf("%s %s report lacks %q", lang, f, w)
				}
			}
		}
	}
	var doc struct {
		Users capacity.Summary `json:"users"`
	}
	if err := json.Unmarshal([]byte(render(t, run, Options{Format: "json"})), &doc); err != nil {
		t.Fatal(err)
	}
	if r := doc.Users.Rows; len(r) != 4 || r[0].Users != 8 || r[0].Limit != capacity.LimitKVCache || len(doc.Users.Table) != 3 || !strings.Contains(doc.Users.Sentences[0], "8 users") {
		t.Errorf("json users block: %+v", doc.Users)
	}
	rows := readCSV(t, render(t, run, Options{Format: "csv"}))
	if r := rows["capacity/0/"]; r["users"] != "8" || r["users_limit"] != "kv_cache" || r["users_next"] != "16" || r["target_ttft_ms"] != "1000" {
		t.Errorf("csv capacity row at 0: %v", r)
	}
}

// TestCapacityTargetsAndChart: --capacity's speed joins the table, the html chart draws
// a rule at every speed of the table (the answer's own one strong), and capacity's
// targets reach the sentences.
func TestCapacityTargetsAndChart(t *testing.T) {
	run := readSeed(t)
	opts := Options{Format: "html", Capacity: capacity.Targets{TokS: 30, TTFTMs: 500}}
	out := render(t, run, opts)
	if n := strings.Count(out, `class="lb-rule"`); n != 4 {
		t.Errorf("the capacity chart draws %d target rules, want 4 (10, 20, 30, 40 tok/s)", n)
	}
	if !strings.Contains(out, `stroke="#b42318"`) || !strings.Contains(out, "≥ 30 tok/s") {
		t.Error("the chart does not mark the answer's own target")
	}
	if !strings.Contains(out, "At 16K context: 1 user at ≥ 30 tok/s each, first token ≤ 500 ms (limit: first token — at 2, 562 ms).") {
		t.Error("html lacks the 16K sentence at 30 tok/s, 500 ms")
	}
}

// TestCapacityLast: llmbench run prints the sentences as its last lines (WriteCapacity)
// and leaves them out of the report above, which keeps the table.
func TestCapacityLast(t *testing.T) {
	run := readSeed(t)
	text := render(t, run, Options{Format: "text", CapacityLast: true})
	if strings.Contains(text, "At 0 context:") || !strings.Contains(text, "8 (KV cache)") {
		t.Errorf("CapacityLast: the report should keep the table and drop the sentences:\n%s", text)
	}
	var b bytes.Buffer
	if err := WriteCapacity(&b, run, Options{}); err != nil {
		t.Fatal(err)
	}
	want := "\nHow many users (--capacity tok/s=20,ttft=1s):\n  At 0 context: 8 users"
	if !strings.HasPrefix(b.String(), want) || strings.Count(b.String(), "\n  At ") != 4 {
		t.Errorf("WriteCapacity wrote\n%s\nwant it to start %q and hold 4 sentences", b.String(), want)
	}
}

// TestCapacityFromDense: calc renders the matrix but reads capacity from the dense
// prediction (CapacityFrom), and says so; a predicted document rendered alone does not
// claim to be dense.
func TestCapacityFromDense(t *testing.T) {
	pred := readFixture(t, "predicted-run.json")
	if out := render(t, pred, Options{Format: "text"}); strings.Contains(out, "Predicted for every number") {
		t.Error("a predicted document without CapacityFrom claims every N was predicted")
	}
	dense := &rundoc.Run{SchemaVersion: 1, Status: rundoc.RunPredicted, Config: rundoc.Config{Contexts: []int{0}}}
	for n := 1; n <= 11; n++ {
		dense.Decode = append(dense.Decode, rundoc.DecodeCell{Concurrency: n, Status: rundoc.StatusPredicted,
			DecodeFigures: &rundoc.DecodeFigures{PerRequestTokS: 50 - 3*float64(n), TotalTokS: float64(n) * (50 - 3*float64(n)), TTFTMs: 100}})
	}
	out := render(t, pred, Options{Format: "text", CapacityFrom: dense})
	if !strings.Contains(out, "At 0 context: 10 users at ≥ 20 tok/s each") || !strings.Contains(out, "Predicted for every number of requests") {
		t.Errorf("CapacityFrom: the dense prediction's answer (10: 50 − 3·10 = 20 tok/s) is not the one shown:\n%s", out)
	}
}

// TestCapacityOpenLoop: an open-loop run states its highest rate meeting the SLO in every format.
func TestCapacityOpenLoop(t *testing.T) {
	run := readFixture(t, "rate-run.json")
	want := "1.00 requests/s with TTFT ≤ 1 s, TPOT ≤ 60 ms for 95% of requests (limit: 4.00 requests/s did not meet it)"
	for _, f := range []string{"text", "md", "html", "csv", "json"} {
		if out := render(t, run, Options{Format: f}); !strings.Contains(out, want) {
			t.Errorf("%s report of an open-loop run lacks %q", f, want)
		}
	}
}
