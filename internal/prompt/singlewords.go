package prompt

import (
	"context"
	"math/rand/v2"
	"strings"
)

// Prompts of exact length for a server whose only counter is a real request's
// usage.prompt_tokens (Ollama, LM Studio: no tokenize route). Counting each prompt
// with a request would leave it in the server's prefix cache and make the cell's
// time to first token a cache hit; instead a few counts find filler words the
// server's tokenizer takes as exactly one token each after a lead word, and every
// prompt is the lead word and then those words, so its length is known without
// counting it. Tokenizers split text at spaces before they merge (BPE's
// pre-tokenizer, SentencePiece's whitespace pieces), so a word's tokens do not
// depend on its neighbours; where a tokenizer broke that, the cell's check of the
// server's own prompt counts still says so.

const (
	// singleWordsWanted is enough words for prompts that share nothing: two
	// prompts' first 16 words (a prefix-cache block) coincide with odds 128⁻¹⁶.
	singleWordsWanted = 128
	// singleWordsMin is the fewest worth using; with fewer, prompts are sized from
	// a calibrated ratio as before.
	singleWordsMin = 16
	// singleWordsMaxCounts bounds the requests spent looking (each is one token of
	// output on a short prompt).
	singleWordsMaxCounts = 200
	// singleWordsGroup is how many words one count tries at once.
	singleWordsGroup = 16
)

// singleWords is what the search found: every prompt built from it has
// Base + (the number of words after the lead) tokens.
type singleWords struct {
	lead  string
	base  int // a prompt of the lead word alone: the template and the lead
	words []string
}

// findSingleWords counts groups of filler words after the lead word: a group whose
// count rose by its size holds only one-token words (none costs less than one); a
// group that rose by more is split in two and each half tried, down to single words.
// It returns nil when too few words were found within the counts it may spend.
func (b *Builder) findSingleWords(ctx context.Context, count func(string) (int, error)) (*singleWords, error) {
	lead := fillerWords[0]
	base, err := count(lead)
	if err != nil {
		return nil, err
	}
	found := &singleWords{lead: lead, base: base}
	counts := 1
	var pending [][]string
	for i := 1; i < len(fillerWords); i += singleWordsGroup {
		pending = append(pending, fillerWords[i:min(i+singleWordsGroup, len(fillerWords))])
	}
	for len(pending) > 0 && len(found.words) < singleWordsWanted && counts < singleWordsMaxCounts {
		group := pending[0]
		pending = pending[1:]
		n, err := count(lead + " " + strings.Join(group, " "))
		counts++
		if err != nil {
			return nil, err
		}
		switch {
		case n-base == len(group):
			found.words = append(found.words, group...)
		case len(group) > 1:
			half := len(group) / 2
			pending = append([][]string{group[:half], group[half:]}, pending...)
		}
	}
	if len(found.words) < singleWordsMin {
		return nil, nil
	}
	return found, nil
}

// draw appends n words drawn from the set.
func (s *singleWords) draw(rng *rand.Rand, n int, dst []string) []string {
	for k := 0; k < n; k++ {
		dst = append(dst, s.words[rng.IntN(len(s.words))])
	}
	return dst
}

// uniqueSingleWords builds the cell's prompts from one-token words: the lead word,
// the shared prefix's words, then each prompt's own; every length exact.
func (b *Builder) uniqueSingleWords(s *singleWords, lengths []int, prefix int, seed uint64) *UniqueSet {
	// The lead word is in every prompt: a cache may hold it with the template.
	set := &UniqueSet{Overhead: s.base, Exact: true}
	head := []string{s.lead}
	if prefix > 0 {
		k := max(1, prefix-s.base)
		head = s.draw(rand.New(rand.NewPCG(seed, 0x707265666978)), k, head)
		p := makePayload(b.API, strings.Join(head, " "))
		set.PrefixPayload, set.Prefix = &p, k
	}
	for i, target := range lengths {
		rng := rand.New(rand.NewPCG(seed, uint64(i)+1))
		unique := max(1, target-s.base-set.Prefix)
		words := s.draw(rng, unique, append(make([]string, 0, len(head)+unique), head...))
		set.Payloads = append(set.Payloads, makePayload(b.API, strings.Join(words, " ")))
		set.Lengths = append(set.Lengths, s.base+set.Prefix+unique)
	}
	return set
}
