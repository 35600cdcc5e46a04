package rundoc

import (
	"testing"

	"github.com/llmbench/llmbench/internal/stats"
)

// TestLimitsSlots (issue 34 item 2): on a server with slots a request must fit one
// slot, and requests beyond the slots queue; the reason names the slot.
func TestLimitsSlots(t *testing.T) {
	p := func(v int64) *int64 { return &v }
	split := Limits{MaxModelLen: p(2048), Slots: p(4), SlotTokens: p(2048)} // -c 8192 -np 4
	for _, tc := range []struct {
		l                       Limits
		context, prompt, n, out int
		reason                  string
		length                  bool
	}{
		{split, 1024, 1024, 4, 256, "", false},
		{split, 1024, 1024, 64, 256, "", false}, // 60 of them wait for a slot
		{split, 2048, 2048, 1, 256, "context + max output = 2304 tokens exceeds one slot's context of 2048 tokens (the server runs 4 slots of 2048)", true},
		// The chat template's tokens count: context 0 is 89 tokens on llama-server.
		{split, 0, 89, 4, 2048, "the prompt (89 tokens with the chat template) + max output = 2137 tokens exceeds one slot's context of 2048 tokens (the server runs 4 slots of 2048)", true},
		// -np 1 -c 8192: one request at a time holds the cache, the rest queue.
		{Limits{KVCacheTokens: p(8192), MaxModelLen: p(8192), Slots: p(1), SlotTokens: p(8192)}, 1024, 1024, 8, 256, "", false},
		// A shared cache given with --kv-capacity: one request per slot must fit it.
		{Limits{KVCacheTokens: p(8192), Slots: p(4), SlotTokens: p(8192)}, 4096, 4096, 8, 1024, "4 requests at once (one per slot) × 5120 tokens = 20480 exceeds the KV cache (8192 tokens)", false},
		// No slots: the seed's rule.
		{Limits{KVCacheTokens: p(72000)}, 16384, 16384, 4, 8192, "4 requests × 24576 tokens = 98304 exceeds the KV cache (72000 tokens)", false},
	} {
		reason, length := tc.l.Check(tc.context, tc.prompt, tc.n, tc.out)
		if reason != tc.reason || length != tc.length || IsLengthReason(reason) != tc.length {
			t.Errorf("%d (prompt %d) × %d + %d: %q %v, want %q %v", tc.context, tc.prompt, tc.n, tc.out, reason, length, tc.reason, tc.length)
		}
		// Every reason reads back as the numbers it was written from (a page in
		// another language writes it again from them).
		if f, ok := ParseFitReason(reason); reason != "" && (!ok || f.String() != reason) {
			t.Errorf("%q read back as %+v (%v), written again as %q", reason, f, ok, f.String())
		}
	}
}

// TestPerRequestTokSCI: per_request_tok_s is 1000 / tbt_ms, so its interval is 1000
// over tbt_ms_ci's ends; a document without one scales total tok/s's.
func TestPerRequestTokSCI(t *testing.T) {
	f := &DecodeFigures{TotalTokS: 200, PerRequestTokS: 50, TBTMs: 20}
	ci := &CellIntervals{TBTMsCI: &stats.Interval{Low: 16, High: 25}, TotalTokSCI: &stats.Interval{Low: 180, High: 220}}
	if iv := ci.PerRequestTokSCI(f); iv == nil || iv.Low != 40 || iv.High != 62.5 {
		t.Errorf("from TBT: %+v, want 40–62.5", iv)
	}
	ci.TBTMsCI = nil
	if iv := ci.PerRequestTokSCI(f); iv == nil || iv.Low != 45 || iv.High != 55 {
		t.Errorf("from total tok/s: %+v, want 45–55", iv)
	}
	if iv := (*CellIntervals)(nil).PerRequestTokSCI(f); iv != nil {
		t.Errorf("no intervals: %+v", iv)
	}
}
