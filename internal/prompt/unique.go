package prompt

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
)

// UniqueSet is the prompts of one open-loop cell: request i's prompt has about
// Lengths[i] tokens, and no two prompts share anything from their first token — past
// the chat template, which every chat request starts with — except the Prefix tokens
// every prompt starts with when a shared prefix was asked for.
type UniqueSet struct {
	Payloads []Payload
	// Lengths are the prompt sizes as built: exact for token-id prompts, where the
	// server's tokenizer counted them and where they are made of one-token words;
	// estimated from a calibrated ratio elsewhere.
	Lengths []int
	Exact   bool
	// Prefix is the shared prefix's size in tokens (0: prompts are unique).
	Prefix int
	// Overhead is what the server adds to any prompt (the chat template), in tokens:
	// a prefix cache may legitimately hold that much of a "unique" prompt.
	Overhead int
	// PrefixPayload is the shared prefix alone, to warm the cache before the cell.
	PrefixPayload *Payload
}

// Unique builds prompts of the given lengths for one cell, seeded so the same seed
// gives the same prompts. prefix > 0 starts every prompt with the same prefix tokens
// (drawn from seed, so each cell's prefix is its own and cold until warmed). exact
// says b.Counter is cheap (a tokenize route): each text prompt is then counted and
// corrected once; otherwise prompts are built from filler words found, with a few
// counts, to be one token each, and where too few are, lengths come from a ratio
// calibrated with two counts.
func (b *Builder) Unique(ctx context.Context, lengths []int, prefix int, seed uint64, exact bool) (*UniqueSet, error) {
	if b.Tokenizer != nil && b.API == Completions {
		return b.uniqueIDs(ctx, lengths, prefix, seed)
	}
	return b.uniqueText(ctx, lengths, prefix, seed, exact)
}

// randomWords draws n filler words: common words a BPE tokenizer encodes as one token
// each, in an order no other prompt shares.
func randomWords(rng *rand.Rand, n int) string {
	var sb strings.Builder
	sb.Grow(n * 6)
	for i := 0; i < n; i++ {
		if i > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(fillerWords[rng.IntN(len(fillerWords))])
	}
	return sb.String()
}

func (b *Builder) uniqueText(ctx context.Context, lengths []int, prefix int, seed uint64, exact bool) (*UniqueSet, error) {
	count := func(text string) (int, error) {
		n, err := b.Counter.Count(ctx, makePayload(b.API, text))
		if err != nil {
			return 0, fmt.Errorf("counting prompt tokens (%s): %w", b.Counter.Name(), err)
		}
		return n, nil
	}
	if !exact {
		// Counting every prompt would cost a request each and warm it in the server's
		// prefix cache: build them from words of known size instead (singlewords.go).
		if b.singles == nil {
			found, err := b.findSingleWords(ctx, count)
			if err != nil {
				return nil, err
			}
			b.singles = &singlesSearch{found: found}
		}
		if s := b.singles.found; s != nil {
			return b.uniqueSingleWords(s, lengths, prefix, seed), nil
		}
	}
	// Two counts calibrate the template's overhead and tokens per word.
	const sample = 512
	cal := rand.New(rand.NewPCG(seed, 0x63616c))
	one, err := count(randomWords(cal, 1))
	if err != nil {
		return nil, err
	}
	many, err := count(randomWords(cal, sample))
	if err != nil {
		return nil, err
	}
	perWord := float64(many-one) / (sample - 1)
	if !(perWord > 0) {
		return nil, fmt.Errorf("calibrating prompt length: %d words counted as %d tokens", sample, many)
	}
	overhead := max(0, int(math.Round(float64(one)-perWord)))
	words := func(tokens int) int { return max(1, int(math.Round(float64(tokens)/perWord))) }

	set := &UniqueSet{Overhead: overhead, Exact: exact}
	var shared string
	if prefix > 0 {
		shared = randomWords(rand.New(rand.NewPCG(seed, 0x707265666978)), words(prefix)) + " "
		p := makePayload(b.API, strings.TrimSpace(shared))
		set.PrefixPayload = &p
		set.Prefix = prefix
		if exact {
			n, err := count(strings.TrimSpace(shared))
			if err != nil {
				return nil, err
			}
			set.Prefix = max(1, n-overhead)
		}
	}
	for i, target := range lengths {
		rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
		unique := max(1, target-overhead-prefix)
		text := shared + randomWords(rng, words(unique))
		n := overhead + prefix + unique
		if exact {
			if n, err = count(text); err != nil {
				return nil, err
			}
			// One correction: add or drop words by the miss, then count again.
			if diff := target - n; diff != 0 {
				w := strings.Fields(strings.TrimPrefix(text, shared))
				want := max(1, len(w)+int(math.Round(float64(diff)/perWord)))
				if want < len(w) {
					w = w[:want]
				} else if want > len(w) {
					w = append(w, strings.Fields(randomWords(rng, want-len(w)))...)
				}
				text = shared + strings.Join(w, " ")
				if n, err = count(text); err != nil {
					return nil, err
				}
			}
		}
		set.Payloads = append(set.Payloads, makePayload(b.API, text))
		set.Lengths = append(set.Lengths, n)
	}
	return set, nil
}

// uniqueIDs builds token-id prompts: exact lengths by construction, each a random draw
// from the ids the server's tokenizer gave for filler text.
func (b *Builder) uniqueIDs(ctx context.Context, lengths []int, prefix int, seed uint64) (*UniqueSet, error) {
	pool, err := b.TokenPool(ctx)
	if err != nil {
		return nil, err
	}
	draw := func(rng *rand.Rand, n int, dst []int) []int {
		for k := 0; k < n; k++ {
			dst = append(dst, pool[rng.IntN(len(pool))])
		}
		return dst
	}
	set := &UniqueSet{Exact: true, Prefix: prefix}
	var shared []int
	if prefix > 0 {
		shared = draw(rand.New(rand.NewPCG(seed, 0x707265666978)), prefix, nil)
		set.PrefixPayload = &Payload{IDs: shared}
	}
	for i, target := range lengths {
		rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
		n := max(prefix+1, target)
		ids := make([]int, 0, n)
		ids = append(ids, shared...)
		ids = draw(rng, n-prefix, ids)
		set.Payloads = append(set.Payloads, Payload{IDs: ids})
		set.Lengths = append(set.Lengths, n)
	}
	return set, nil
}

// TokenPool is the distinct token ids the server's tokenizer gives for filler text:
// the vocabulary of token-id prompts (completions API with a Tokenizer).
func (b *Builder) TokenPool(ctx context.Context) ([]int, error) {
	sample, err := b.Tokenizer.Tokenize(ctx, b.filler(512))
	if err != nil {
		return nil, fmt.Errorf("tokenizing filler: %w", err)
	}
	var pool []int
	seen := map[int]bool{}
	for _, id := range sample {
		if !seen[id] {
			seen[id] = true
			pool = append(pool, id)
		}
	}
	if len(pool) < 16 {
		return nil, fmt.Errorf("the tokenizer returned too few distinct tokens (%d) for token-id prompts", len(pool))
	}
	return pool, nil
}

// OneTokenWords are words the server's tokenizer takes as one token each after a
// first word (singlewords.go), for text whose length is its number of words: a
// session's synthetic messages, a trace's blocks. Found once per builder; where too
// few are, the filler words (lengths then near, not exact: the server's usage says).
func (b *Builder) OneTokenWords(ctx context.Context) ([]string, error) {
	if b.singles == nil {
		found, err := b.findSingleWords(ctx, func(text string) (int, error) {
			n, err := b.Counter.Count(ctx, makePayload(b.API, text))
			if err != nil {
				return 0, fmt.Errorf("counting prompt tokens (%s): %w", b.Counter.Name(), err)
			}
			return n, nil
		})
		if err != nil {
			return nil, err
		}
		b.singles = &singlesSearch{found: found}
	}
	if s := b.singles.found; s != nil {
		return s.words, nil
	}
	return fillerWords, nil
}
