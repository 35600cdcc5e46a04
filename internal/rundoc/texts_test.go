package rundoc

import (
	"slices"
	"testing"
)

// TestFitReasonsReadBack: every reason Fit writes reads back as the numbers it was
// written from, so that a page can write it in another language; other text does not.
func TestFitReasonsReadBack(t *testing.T) {
	kv, maxLen := int64(81355), int64(40960)
	for _, tc := range []struct {
		context, concurrency, maxOutput int
		want                            FitReason
	}{
		{32768, 1, 8192, FitReason{ByLength: true, PerRequest: 40960 + 1, MaxModelLen: maxLen}},
		{16384, 8, 8192, FitReason{Concurrency: 8, PerRequest: 24576, Need: 8 * 24576, KVCache: kv}},
		{0, 128, 8192, FitReason{Concurrency: 128, PerRequest: 8192, Need: 128 * 8192, KVCache: kv}},
	} {
		if tc.want.ByLength {
			tc.context = 32769
		}
		fits, reason := Fit(tc.context, tc.concurrency, tc.maxOutput, &kv, &maxLen)
		if fits {
			t.Fatalf("%d × %d fits; want it over capacity", tc.context, tc.concurrency)
		}
		got, ok := ParseFitReason(reason)
		if !ok || got != tc.want {
			t.Errorf("Fit wrote %q, read back as %+v (%v), want %+v", reason, got, ok, tc.want)
		}
	}
	// A prefill row's reason: one request against the KV cache.
	_, reason := Fit(131072, 1, 1, &kv, nil)
	if got, ok := ParseFitReason(reason); !ok || got.Concurrency != 1 || got.PerRequest != 131073 {
		t.Errorf("%q read back as %+v (%v)", reason, got, ok)
	}
	for _, other := range []string{"", "over capacity", "context + max output = 12 tokens exceeds max_model_len", "8 requests × 10 tokens = 80 exceeds the KV cache (70 tokens) by far",
		"99999999999999999999 requests × 1 tokens = 1 exceeds the KV cache (0 tokens)"} {
		if f, ok := ParseFitReason(other); ok {
			t.Errorf("%q read as a Fit reason: %+v", other, f)
		}
	}
}

// TestRepeatNoteReadsBack: the --repeat note, with and without unstable cells, reads
// back as what it was written from; a note that only starts like it does not.
func TestRepeatNoteReadsBack(t *testing.T) {
	for _, n := range []RepeatNote{{Repeats: 3}, {Repeats: 5, Unstable: []string{"0 × 1", "16K × 8"}}} {
		s := n.String()
		if !IsRepeatNote(s) {
			t.Errorf("%q is not recognised as the repeat note", s)
		}
		got, ok := ParseRepeatNote(s)
		if !ok || got.Repeats != n.Repeats || !slices.Equal(got.Unstable, n.Unstable) {
			t.Errorf("%q read back as %+v (%v), want %+v", s, got, ok, n)
		}
	}
	for _, other := range []string{"Every cell and prefill row was measured twice.", "Every cell and prefill row was measured 3 times, the plan run whole once per repeat: each shows its median repeat, with the 95% interval over the repeats. And more."} {
		if n, ok := ParseRepeatNote(other); ok {
			t.Errorf("%q read as the repeat note: %+v", other, n)
		}
	}
}
