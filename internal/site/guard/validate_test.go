package guard

import (
	"encoding/json"
	"os"
	"testing"

	seedcopy "github.com/llmbench/llmbench/internal/seed"

	"github.com/llmbench/llmbench/internal/rundoc"
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
		if !rundoc.ValidID(run.ID) {
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

// seedDoc is the seed's run document, as llmbench writes it.
func seedDoc(t testing.TB) []byte {
	t.Helper()
	b, err := os.ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	return b
}
