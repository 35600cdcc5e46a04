package main

import (
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/replay"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// specServer is vLLM drafting (its speculative stream shape) whose /metrics serves
// the draft counters of internal/engine/testdata/specdecode's pages, written from
// vLLM's source (vllm/v1/spec_decode/metrics.py at ee4ceaae), advancing with every
// token it generates: any window sees the pages' acceptance rate, 1,620 accepted of
// 3,000 drafted tokens (0.54), and mean accepted length 1 + 1,620/1,000 (2.62).
var specServer = replay.Config{Shape: "vllm-spec-decoding", Discovery: discoveryDir("vllm-0.26"), Tokenize: "vllm", Metrics: true,
	ChatOverhead: 3, Step: 25 * time.Millisecond, SpecDecode: &replay.SpecPages{
		Before: filepath.Join("..", "..", "internal", "engine", "testdata", "specdecode", "vllm-before.txt"),
		After:  filepath.Join("..", "..", "internal", "engine", "testdata", "specdecode", "vllm-after.txt"),
	}}

// TestSpecDecodeThroughARun: a matrix run and a rate run against specServer record in
// every cell the acceptance rate and mean accepted length the fixture's counters give,
// flag that the prompts were random words, and re-score to every figure; the same
// server without draft counters records neither.
func TestSpecDecodeThroughARun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a matrix and a rate cell against the replay")
	}
	t.Run("matrix", func(t *testing.T) {
		t.Parallel()
		cr := runReplay(t, specServer, false, "--contexts", "0", "--concurrency", "1,2", "--prefill", "", "--duration", "2s", "--max-output", "48")
		if cr.err != nil || cr.doc == nil || len(cr.doc.Decode) != 2 {
			t.Fatalf("run: %v\n%s", cr.err, cr.output)
		}
		for i := range cr.doc.Decode {
			c := &cr.doc.Decode[i]
			if c.CellDetail == nil {
				t.Fatalf("%d × %d: %s %s", c.Context, c.Concurrency, c.Status, c.Reason)
			}
			checkSpec(t, c.Server, c.Flags)
		}
		cr.checkRescore(t)
	})
	t.Run("rate", func(t *testing.T) {
		t.Parallel()
		cr := runReplay(t, specServer, false, rateArgs...)
		c := rateCell(t, cr)
		checkSpec(t, c.Server, c.Flags)
		checkRecheck(t, cr)
	})
	t.Run("no counters", func(t *testing.T) {
		t.Parallel()
		plain := specServer
		plain.SpecDecode = nil
		cr := runReplay(t, plain, false, "--contexts", "0", "--concurrency", "1", "--prefill", "", "--duration", "2s", "--max-output", "48")
		c := cell(cr.doc, 0, 1)
		if c.CellDetail == nil || c.Server == nil || c.Server.SpecDecode != nil || slices.Contains(c.Flags, measure.FlagSpecRandomWords) {
			t.Errorf("a server without draft counters: %+v, flags %v; want server metrics without spec_decode, no flag", c.CellDetail, c.Flags)
		}
	})
}

func checkSpec(t *testing.T, m *rundoc.ServerMetrics, flags []string) {
	t.Helper()
	if m == nil || m.SpecDecode == nil {
		t.Fatalf("no speculative decoding read: %+v", m)
	}
	d := m.SpecDecode
	t.Logf("%s: %.0f drafts, %.0f drafted, %.0f accepted: rate %v, length %v, by position %v", d.Source, d.Drafts, d.DraftTokens, d.AcceptedTokens, ptrVal(d.AcceptanceRate), ptrVal(d.MeanAcceptedLength), d.PerPosition)
	if d.Drafts <= 0 || d.AcceptanceRate == nil || *d.AcceptanceRate != 0.54 || d.MeanAcceptedLength == nil || *d.MeanAcceptedLength != 2.62 ||
		!slices.Equal(d.PerPosition, []float64{0.75, 0.53, 0.34}) {
		t.Errorf("speculative decoding %+v: want acceptance 0.54, mean accepted length 2.62, by position [0.75 0.53 0.34]", d)
	}
	if !slices.Contains(flags, measure.FlagSpecRandomWords) {
		t.Errorf("flags %v: the prompts were random words, want %s", flags, measure.FlagSpecRandomWords)
	}
}

func ptrVal(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}
