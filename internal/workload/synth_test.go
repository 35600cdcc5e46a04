package workload

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/llmbench/llmbench/internal/golden"
)

// testTraceSpec is the spec of the project's test trace (testdata/synthetic-trace.md).
var testTraceSpec = SynthSpec{
	Requests: 2000, Seed: 35, BlockSize: MooncakeBlockSize,
	SystemPrompts: 4, SystemBlocks: 1, SessionsPerSecond: 0.5,
	MeanTurns: 4, MaxTurns: 10, UserTokens: [2]int{32, 512}, OutputTokens: [2]int{16, 256},
	ThinkSeconds: 10, ReplySecondsPerToken: 0.02,
}

// TestSyntheticTrace: the committed test trace is what the generator makes from its
// spec, byte for byte; it reads back as a valid Mooncake trace of 2,000 requests; and
// its figures in synthetic-trace.md are the ones computed here.
func TestSyntheticTrace(t *testing.T) {
	tr, err := Synthesize(testTraceSpec)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tr.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	golden.File(t, "testdata/synthetic-trace-2k.jsonl", buf.Bytes())
	back, err := ParseMooncake("synthetic-trace-2k.jsonl", buf.Bytes(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(back.Requests) != 2000 {
		t.Fatalf("%d requests", len(back.Requests))
	}
	figures := traceFigures(back)
	golden.Section(t, "testdata/synthetic-trace.md", "<!-- BEGIN synthetic-trace figures (go test ./internal/workload -run TestSyntheticTrace -update) -->\n",
		"<!-- END synthetic-trace figures -->", figures)
	golden.Section(t, "../../docs/workloads.md", "<!-- BEGIN test-trace figures (go test ./internal/workload -run TestSyntheticTrace -update) -->\n",
		"<!-- END test-trace figures -->", figures)
}

// traceFigures is the table of a trace's sizes and ideal cache-hit ratios.
func traceFigures(tr *Trace) string {
	var in, out, shared int
	first := map[int]bool{}
	for _, r := range tr.Requests {
		in += r.InputLength
		out += r.OutputLength
		if first[r.HashIDs[0]] {
			shared++
		}
		first[r.HashIDs[0]] = true
	}
	n := len(tr.Requests)
	last := tr.Requests[n-1].Timestamp
	_, r512 := tr.IdealCached(CacheModel{})
	_, r16 := tr.IdealCached(CacheModel{Block: 16})
	var b bytes.Buffer
	fmt.Fprintf(&b, "| Figure | Value |\n|---|---|\n")
	fmt.Fprintf(&b, "| requests | %d |\n", n)
	fmt.Fprintf(&b, "| span (first to last timestamp) | %.1f s (%.2f requests/s; at speed 500, %.0f requests/s) |\n", last/1000, float64(n)/(last/1000), float64(n)/(last/1000)*500)
	fmt.Fprintf(&b, "| input tokens | %d in all, %.0f on average, %d at most |\n", in, float64(in)/float64(n), maxInput(tr))
	fmt.Fprintf(&b, "| output tokens | %d in all, %.0f on average |\n", out, float64(out)/float64(n))
	fmt.Fprintf(&b, "| requests whose first block an earlier request had | %d |\n", shared)
	fmt.Fprintf(&b, "| **ideal cache-hit ratio, blocks of 512** | **%.4f** |\n", r512)
	fmt.Fprintf(&b, "| **ideal cache-hit ratio, blocks of 16** | **%.4f** |\n", r16)
	return b.String()
}

func maxInput(tr *Trace) int {
	m := 0
	for _, r := range tr.Requests {
		m = max(m, r.InputLength)
	}
	return m
}

// TestSynthesizeShape: turn after turn a conversation's prompt keeps the whole blocks
// of the one before under the same ids, and grows by its reply and a message.
func TestSynthesizeShape(t *testing.T) {
	tr, err := Synthesize(SynthSpec{Requests: 200, Seed: 1, BlockSize: 64, SystemPrompts: 2, SystemBlocks: 2,
		SessionsPerSecond: 1, MeanTurns: 3, MaxTurns: 6, UserTokens: [2]int{10, 100}, OutputTokens: [2]int{5, 50},
		ThinkSeconds: 1, ReplySecondsPerToken: 0.01})
	if err != nil {
		t.Fatal(err)
	}
	byFirstNew := map[int]TraceRequest{} // a conversation's requests chain through their ids
	chained := 0
	for _, r := range tr.Requests {
		if r.HashIDs[0] > 1*2+1 || r.HashIDs[0] < 0 {
			t.Fatalf("first block %d is not a system prompt's (ids 0-3)", r.HashIDs[0])
		}
		if len(r.HashIDs) > 2 {
			if prev, ok := byFirstNew[r.HashIDs[2]]; ok {
				keep := prev.InputLength / 64
				if r.InputLength < prev.InputLength+prev.OutputLength+10 {
					t.Errorf("a turn of %d tokens after one of %d + %d reply", r.InputLength, prev.InputLength, prev.OutputLength)
				}
				for b := 0; b < keep; b++ {
					if r.HashIDs[b] != prev.HashIDs[b] {
						t.Errorf("block %d changed id between turns", b)
					}
				}
				if keep < len(prev.HashIDs) && len(r.HashIDs) > keep && r.HashIDs[keep] == prev.HashIDs[keep] {
					t.Error("the previous turn's short last block kept its id after the reply filled it")
				}
				chained++
			}
			byFirstNew[r.HashIDs[2]] = r
		}
	}
	if chained < 50 {
		t.Errorf("only %d later turns found", chained)
	}
	if _, err := Synthesize(SynthSpec{}); err == nil {
		t.Error("an empty spec was accepted")
	}
}
