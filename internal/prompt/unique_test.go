package prompt

import (
	"context"
	"slices"
	"strings"
	"testing"
)

// sharedPrefixTokens is how many leading tokens (words, for these counters) two
// prompts have in common.
func sharedPrefixTokens(a, b []string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

func promptWords(p Payload) []string {
	if p.Messages != nil {
		return strings.Fields(p.Messages[0].Content)
	}
	return strings.Fields(p.Text)
}

func TestUniqueTextLengthsAndSharing(t *testing.T) {
	lengths := []int{100, 1024, 1500, 512, 1024, 2048, 700, 64}
	for _, api := range []API{Chat, Completions} {
		for _, prefix := range []int{0, 300} {
			for _, exact := range []bool{true, false} {
				c := &wordCounter{}
				b := &Builder{API: api, Counter: c}
				lengths := lengths
				if prefix > 0 {
					// A prompt is never shorter than its shared prefix and one token.
					lengths = []int{400, 1024, 1500, 512, 1024, 2048, 700, 320}
				}
				set, err := b.Unique(context.Background(), lengths, prefix, 42, exact)
				if err != nil {
					t.Fatal(err)
				}
				if len(set.Payloads) != len(lengths) {
					t.Fatalf("%d prompts for %d lengths", len(set.Payloads), len(lengths))
				}
				for i, p := range set.Payloads {
					got, _ := c.Count(context.Background(), p)
					// Long words count two, so a prompt may miss by a few tokens; a
					// corrected (exact) one by at most 1%, an estimated one by 5%.
					tol := 0.05
					if exact {
						tol = 0.01
						if got != set.Lengths[i] {
							t.Errorf("%s prefix %d: prompt %d counted %d, set says %d", api, prefix, i, got, set.Lengths[i])
						}
					}
					if d := float64(got-lengths[i]) / float64(lengths[i]); d > tol+2.0/float64(lengths[i]) || d < -tol-2.0/float64(lengths[i]) {
						t.Errorf("%s prefix %d exact %v: prompt %d has %d tokens, %d asked", api, prefix, exact, i, got, lengths[i])
					}
				}
				// Shared prefix: exactly the prefix's words (no more) in common; none without one.
				for i := 1; i < len(set.Payloads); i++ {
					s := sharedPrefixTokens(promptWords(set.Payloads[0]), promptWords(set.Payloads[i]))
					wantLo, wantHi := 0, 1 // a random first word may coincide
					if prefix > 0 {
						pw := len(promptWords(*set.PrefixPayload))
						wantLo, wantHi = pw, pw+1
					}
					if s < wantLo || s > wantHi {
						t.Errorf("%s prefix %d: prompts 0 and %d share %d leading words, want %d–%d", api, prefix, i, s, wantLo, wantHi)
					}
				}
			}
		}
	}
}

func TestUniqueReproducibleFromSeed(t *testing.T) {
	b := &Builder{API: Chat, Counter: &wordCounter{}}
	a, _ := b.Unique(context.Background(), []int{200, 300}, 50, 7, true)
	again, _ := b.Unique(context.Background(), []int{200, 300}, 50, 7, true)
	other, _ := b.Unique(context.Background(), []int{200, 300}, 50, 8, true)
	if !slices.Equal(promptWords(a.Payloads[1]), promptWords(again.Payloads[1])) {
		t.Error("the same seed gave different prompts")
	}
	if sharedPrefixTokens(promptWords(a.Payloads[0]), promptWords(other.Payloads[0])) > 1 {
		t.Error("another seed (another cell) shares a prefix with this one: it would be warm")
	}
}

type idTokenizer struct{}

func (idTokenizer) Tokenize(_ context.Context, text string) ([]int, error) {
	var ids []int
	for i, w := range strings.Fields(text) {
		ids = append(ids, 100+len(w)*37+i%50)
	}
	return ids, nil
}

func TestUniqueIDsExact(t *testing.T) {
	b := &Builder{API: Completions, Counter: &wordCounter{}, Tokenizer: idTokenizer{}}
	set, err := b.Unique(context.Background(), []int{10, 1000, 4096}, 0, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []int{10, 1000, 4096} {
		if len(set.Payloads[i].IDs) != want || set.Lengths[i] != want {
			t.Errorf("prompt %d: %d ids, %d asked", i, len(set.Payloads[i].IDs), want)
		}
	}
	withPrefix, _ := b.Unique(context.Background(), []int{1000, 1000}, 400, 1, false)
	a, c := withPrefix.Payloads[0].IDs, withPrefix.Payloads[1].IDs
	if !slices.Equal(a[:400], c[:400]) || slices.Equal(a[:401], c[:401]) && slices.Equal(a[:410], c[:410]) {
		t.Error("token-id prompts do not share exactly the 400-token prefix")
	}
}

// costlyCounter is a tokenizer that takes no filler word as one token: every word
// costs two.
type costlyCounter struct{ calls int }

func (c *costlyCounter) Name() string { return "costly" }
func (c *costlyCounter) Count(_ context.Context, p Payload) (int, error) {
	c.calls++
	return 5 + 2*len(promptWords(p)), nil
}

// TestUniqueUsageCountedPromptsAreExact: with only a request's usage to count by
// (exact=false), prompts are built from words found to be one token each: every
// prompt has the length the set says without being counted itself, the search
// spends a bounded number of counts once per builder, and a tokenizer with no
// one-token words falls back to the calibrated estimate, saying it is one.
func TestUniqueUsageCountedPromptsAreExact(t *testing.T) {
	lengths := []int{128, 131, 1024, 4000, 64}
	c := &wordCounter{}
	b := &Builder{API: Chat, Counter: c}
	for cell, prefix := range []int{0, 40} {
		set, err := b.Unique(context.Background(), lengths, prefix, uint64(cell+1), false)
		if err != nil {
			t.Fatal(err)
		}
		if !set.Exact {
			t.Fatalf("prefix %d: the set says its lengths are estimates", prefix)
		}
		for i, p := range set.Payloads {
			got, _ := c.Count(context.Background(), p)
			c.calls--
			if got != set.Lengths[i] || got != lengths[i] {
				t.Errorf("prefix %d: prompt %d has %d tokens, the set says %d, %d asked", prefix, i, got, set.Lengths[i], lengths[i])
			}
		}
		if prefix > 0 {
			shared, _ := c.Count(context.Background(), *set.PrefixPayload)
			c.calls--
			if shared != set.Overhead+set.Prefix || shared != prefix {
				t.Errorf("the shared prefix has %d tokens, the set says %d + %d, %d asked", shared, set.Overhead, set.Prefix, prefix)
			}
		}
	}
	if c.calls == 0 || c.calls > singleWordsMaxCounts {
		t.Errorf("the word search spent %d counts for two cells, want 1–%d (once per builder)", c.calls, singleWordsMaxCounts)
	}

	cc := &costlyCounter{}
	set, err := (&Builder{API: Chat, Counter: cc}).Unique(context.Background(), lengths, 0, 1, false)
	if err != nil {
		t.Fatal(err)
	}
	if set.Exact || cc.calls > singleWordsMaxCounts+2 {
		t.Errorf("no one-token words: exact %v after %d counts; want the estimate, within the search's bound", set.Exact, cc.calls)
	}
}
