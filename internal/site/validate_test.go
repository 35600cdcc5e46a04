package site

import (
	"encoding/json"
	"fmt"
	"testing"
)

// FuzzValidateRun: any body either passes with a run whose id is safe and whose
// re-encoding passes again, or fails with a reason — never a panic.
func FuzzValidateRun(f *testing.F) {
	f.Add(seedDoc(f))
	f.Add([]byte(`{"schema_version":1}`))
	f.Add([]byte(`{"schema_version":1,"id":"a","created_at":"2026-01-01T00:00:00Z","tool":{"name":"t"},"engine":{"name":"e"},"model":{"id":"m"},"config":{"contexts":[0],"concurrency":[1]},"prefill":[],"decode":[{"context":0,"concurrency":1,"status":"valid","total_tok_s":1,"per_request_tok_s":1,"ttft_ms":1,"tbt_ms":1}]}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, doc []byte) {
		run, ferr := ValidateRun(doc)
		if ferr != nil {
			if ferr.Reason == "" {
				t.Fatalf("refused without a reason: %+v", ferr)
			}
			return
		}
		if !idPattern.MatchString(run.ID) {
			t.Fatalf("accepted an unsafe id %q", run.ID)
		}
		again, err := json.Marshal(run)
		if err != nil {
			t.Fatal(err)
		}
		if _, ferr := ValidateRun(again); ferr != nil {
			t.Fatalf("a valid run re-encoded is refused: %v", ferr)
		}
	})
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
		_, ferr := ValidateRun([]byte(fmt.Sprintf(base, tc.run, tc.cell)))
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
				_, ferr := ValidateRun(tc.doc)
				if ferr == nil || ferr.Field != tc.field {
					t.Fatalf("refused on %v, want %s every time", ferr, tc.field)
				}
			}
		})
	}
}
