package rundoc

import (
	"fmt"
	"testing"
)

// TestValidateSeries: a cell's series, rate drift, reasoning split and published
// repeat are checked like its other figures: one entry a slice in every list, finite
// and plausible figures, a slice of 10 ms or more, a published repeat among the
// repeats.
func TestValidateSeries(t *testing.T) {
	base := `{"schema_version":1,"id":"a","created_at":"2026-01-01T00:00:00Z","tool":{"name":"t"},"engine":{"name":"e"},"model":{"id":"m"},"config":{"contexts":[0],"concurrency":[1]},"prefill":[],"decode":[{"context":0,"concurrency":1,"status":"valid","total_tok_s":1,"per_request_tok_s":1,"ttft_ms":1,"tbt_ms":1%s}]}`
	good := `"slice_s":1,"tok_s":[10,6.7],"producing":[1,1],"ttft_ms":[30,null]`
	for _, tc := range []struct{ cell, field string }{
		{`,"series":{` + good + `},"rate_drift":{"at_s":1,"before_tok_s":10,"after_tok_s":6.7,"t":12},"ttfo_ms":40,"reasoning_tokens":20,"answer_tokens":28`, ""},
		{`,"series":{"slice_s":1,"tok_s":[10,6.7],"producing":[1],"ttft_ms":[30,null]}`, "decode[0].series"},
		{`,"series":{"slice_s":0.001,"tok_s":[10],"producing":[1],"ttft_ms":[null]}`, "decode[0].series.slice_s"},
		{`,"series":{"slice_s":1,"tok_s":[10,-1],"producing":[1,1],"ttft_ms":[30,null]}`, "decode[0].series.tok_s[1]"},
		{`,"rate_drift":{"at_s":-1,"before_tok_s":10,"after_tok_s":6.7}`, "decode[0].rate_drift.at_s"},
		{`,"reasoning_tokens":-3`, "decode[0].reasoning_tokens"},
		{`,"repeats":[{"status":"valid"},{"status":"valid"}],"published_repeat":2,"published_why":"slower_of_middle_two"`, ""},
		{`,"repeats":[{"status":"valid"}],"published_repeat":2`, "decode[0].published_repeat"},
	} {
		ferr := validateJSON(t, []byte(fmt.Sprintf(base, tc.cell)))
		switch {
		case tc.field == "" && ferr != nil:
			t.Errorf("%s: refused: %v", tc.cell, ferr)
		case tc.field != "" && (ferr == nil || ferr.Field != tc.field):
			t.Errorf("%s: %v, want a refusal of %s", tc.cell, ferr, tc.field)
		}
	}
}
