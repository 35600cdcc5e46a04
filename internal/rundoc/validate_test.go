package rundoc

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc/rundoctest"
)

// validateJSON decodes a document and validates it, as the site does once the
// document's JSON has passed its own checks.
func validateJSON(t testing.TB, doc []byte) *FieldError {
	t.Helper()
	var r Run
	if err := json.Unmarshal(doc, &r); err != nil {
		t.Fatalf("decoding the document: %v", err)
	}
	return Validate(&r)
}

func rateDoc(t testing.TB) []byte {
	t.Helper()
	b, err := rundoctest.Read("rate-run.json")
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestValidateEnergy: the energy fields are checked like the other figures.
func TestValidateEnergy(t *testing.T) {
	base := `{"schema_version":1,"id":"a","created_at":"2026-01-01T00:00:00Z","tool":{"name":"t"},"engine":{"name":"e"},"model":{"id":"m"},"config":{"contexts":[0],"concurrency":[1]},"prefill":[],%s"decode":[{"context":0,"concurrency":1,"status":"valid","total_tok_s":1,"per_request_tok_s":1,"ttft_ms":1,"tbt_ms":1%s}]}`
	for _, tc := range []struct {
		run, cell, field string
	}{
		{"", `,"power_w_mean":300,"energy_j":9000,"joules_per_token":2,"usd_per_mtok":6.7`, ""},
		{"", `,"energy_j":-1`, "decode[0].energy_j"},
		{"", `,"joules_per_token":-0.5`, "decode[0].joules_per_token"},
		{`"energy":{"telemetry":"nvidia-smi","price":{"usd_per_hour":0,"source":"x"}},`, "", "energy.price.usd_per_hour"},
		{`"energy":{"telemetry":"nvidia-smi","price":{"usd_per_hour":2.5,"source":"x"}},`, `,"usd_per_mtok":1`, ""},
	} {
		ferr := validateJSON(t, []byte(fmt.Sprintf(base, tc.run, tc.cell)))
		switch {
		case tc.field == "" && ferr != nil:
			t.Errorf("%s%s: refused: %v", tc.run, tc.cell, ferr)
		case tc.field != "" && (ferr == nil || ferr.Field != tc.field):
			t.Errorf("%s%s: %v, want a refusal of %s", tc.run, tc.cell, ferr, tc.field)
		}
	}
}

// TestValidateNamesTheFirstFaultEveryTime: a document with several bad figures is
// refused on the same field however often it is sent (the first the checks read), so
// that a submitter who fixes it sees the faults one by one, in order, and two
// submissions of one document get one answer.
func TestValidateNamesTheFirstFaultEveryTime(t *testing.T) {
	matrix := `{"schema_version":1,"id":"a","created_at":"2026-01-01T00:00:00Z","tool":{"name":"t"},"engine":{"name":"e"},"model":{"id":"m"},"config":{"contexts":[0],"concurrency":[1]},"prefill":[],"decode":[{"context":0,"concurrency":1,"status":"valid","total_tok_s":1,"per_request_tok_s":1,"ttft_ms":1,"tbt_ms":1,"peak_streaming_requests":-1,"tbt_samples":-1,"errors":-1}]}`
	rateCell := func(edit func(c map[string]any)) []byte {
		var m map[string]any
		if err := json.Unmarshal(rateDoc(t), &m); err != nil {
			t.Fatal(err)
		}
		edit(m["rate"].([]any)[0].(map[string]any))
		b, _ := json.Marshal(m)
		return b
	}
	for _, tc := range []struct {
		name, field string
		doc         []byte
	}{
		{"a decode cell's counts", "decode[0].errors", []byte(matrix)},
		{"a rate cell's counts", "rate[0].failed_requests", rateCell(func(c map[string]any) {
			c["peak_in_flight"], c["output_tokens"], c["failed_requests"] = -1, -1, -1
		})},
		{"a rate cell's latencies", "rate[0].ttft_ms.p50", rateCell(func(c map[string]any) {
			for _, k := range []string{"e2e_ms", "itl_ms", "tpot_ms", "ttft_ms"} {
				c[k].(map[string]any)["p50"] = -1
			}
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 50 {
				ferr := validateJSON(t, tc.doc)
				if ferr == nil || ferr.Field != tc.field {
					t.Fatalf("refused on %v, want %s every time", ferr, tc.field)
				}
			}
		})
	}
}

func TestTotalVRAMDoesNotOverflow(t *testing.T) {
	h := Hardware{GPUs: []GPU{{Name: "x", VRAMBytes: math.MaxInt64 / 2, Count: 3}}}
	if _, ok := TotalVRAMBytes(h); ok {
		t.Errorf("MaxInt64/2 × 3 bytes added up without overflow")
	}
	h = Hardware{GPUs: []GPU{{Name: "x", VRAMBytes: 24 << 30, Count: 2}, {Name: "y", VRAMBytes: 8 << 30}}}
	if v, ok := TotalVRAMBytes(h); !ok || v != 56<<30 {
		t.Errorf("2 × 24 GiB + 8 GiB = %d, %v", v, ok)
	}
}

// TestValidateOutcomes: a cell's request_outcomes are a few names with counts; too
// many, a name too long or a negative count is refused naming the outcome, the first
// by name every time.
func TestValidateOutcomes(t *testing.T) {
	base := `{"schema_version":1,"id":"a","created_at":"2026-01-01T00:00:00Z","tool":{"name":"t"},"engine":{"name":"e"},"model":{"id":"m"},"config":{"contexts":[0],"concurrency":[1]},"prefill":[],"decode":[{"context":0,"concurrency":1,"status":"valid","total_tok_s":1,"per_request_tok_s":1,"ttft_ms":1,"tbt_ms":1,"requests":3,"request_outcomes":%s}]}`
	many := "{"
	for i := range maxOutcomes + 1 {
		many += fmt.Sprintf(`"o%d":1,`, i)
	}
	many = strings.TrimSuffix(many, ",") + "}"
	for _, tc := range []struct{ outcomes, field string }{
		{`{"finished":2,"cancelled":1}`, ""},
		{many, "decode[0].request_outcomes"},
		{`{"z":-1,"finished":-1}`, "decode[0].request_outcomes.finished"},
		{`{"` + strings.Repeat("x", MaxName+1) + `":1}`, "decode[0].request_outcomes." + strings.Repeat("x", MaxName+1)},
	} {
		for range 20 {
			ferr := validateJSON(t, []byte(fmt.Sprintf(base, tc.outcomes)))
			if (tc.field == "") != (ferr == nil) || (ferr != nil && ferr.Field != tc.field) {
				t.Fatalf("request_outcomes %.60s: %v, want a refusal of %q", tc.outcomes, ferr, tc.field)
			}
		}
	}
}

// TestValidateRateOf: config.rate.rate_of is "sessions" only where the workload is
// sessions; a document with no rate_of reads its rates as sessions when its workload
// is (documents written before the field), else as requests.
func TestValidateRateOf(t *testing.T) {
	base := `{"schema_version":1,"id":"a","created_at":"2026-01-01T00:00:00Z","tool":{"name":"t"},"engine":{"name":"e"},"model":{"id":"m"},"config":{"contexts":[],"concurrency":[],"rate":{"rates":[1],"arrival":"poisson","input_len":1,"output_len":1,"len_dist":"fixed","drain_timeout_s":1%s}%s},"prefill":[],"decode":[],"rate":[]}`
	sessions := `,"workload":{"sessions":{"turns":2,"think":"0s"}}`
	for _, tc := range []struct {
		rateOf, workload, field string
		sessionRates            bool
	}{
		{``, ``, "", false},
		{``, sessions, "", true},
		{`,"rate_of":"sessions"`, sessions, "", true},
		{`,"rate_of":"sessions"`, ``, "config.rate.rate_of", true}, // refused, but read as it says
		{`,"rate_of":"requests"`, ``, "config.rate.rate_of", false},
	} {
		doc := []byte(fmt.Sprintf(base, tc.rateOf, tc.workload))
		ferr := validateJSON(t, doc)
		if (tc.field == "") != (ferr == nil) || (ferr != nil && ferr.Field != tc.field) {
			t.Errorf("rate_of %q, workload %q: %v, want a refusal of %q", tc.rateOf, tc.workload, ferr, tc.field)
			continue
		}
		var r Run
		if err := json.Unmarshal(doc, &r); err != nil {
			t.Fatal(err)
		}
		if r.SessionRates() != tc.sessionRates {
			t.Errorf("rate_of %q, workload %q: SessionRates %v, want %v", tc.rateOf, tc.workload, r.SessionRates(), tc.sessionRates)
		}
	}
}
