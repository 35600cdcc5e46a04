package workload

import "strings"

// Tokens is request i's prompt as indices into a vocabulary of vocab one-token units
// (token ids, or words the server's tokenizer takes as one token each): token j of a
// block is a function of the seed, the block's hash id and j alone, so equal hash ids
// are equal token blocks wherever they appear, and a short last block is the start of
// its id's block. A request without hash ids gets blocks no other request has.
func (t *Trace) Tokens(i, vocab int, seed uint64) []int {
	r := t.Requests[i]
	out := make([]int, r.InputLength)
	for j := range out {
		id := t.blockID(i, j/t.BlockSize)
		out[j] = int(mix(seed^mix(id)^uint64(j%t.BlockSize)*0x9e3779b97f4a7c15) % uint64(vocab))
	}
	return out
}

// blockID is request i's block b's hash id, or, for a request without hash ids, an
// id of its own that no line's id (0 or more, below 2⁶³) can be.
func (t *Trace) blockID(i, b int) uint64 {
	if ids := t.Requests[i].HashIDs; ids != nil {
		return uint64(ids[b])
	}
	return 1<<63 | uint64(i)<<24 | uint64(b)
}

// mix is splitmix64's finalizer: every bit of x moves every bit of the result.
func mix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// Text joins the words that indices name, a space between two: a prompt for a server
// whose tokenizer takes each word as one token.
func Text(indices []int, words []string) string {
	var b strings.Builder
	for k, i := range indices {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[i])
	}
	return b.String()
}

// CacheModel is how a server's prefix cache sees a prompt.
type CacheModel struct {
	// Block is the cache's block in tokens: whole blocks are cached (vLLM and the
	// emulator 16; SGLang's radix cache 1). 0: the trace's block size.
	Block int
	// Lead and Trail are the tokens the server puts before and after every prompt's own
	// (a chat template's opening, and its closing with the generation prompt): the same
	// for every request. 0 for token-id prompts on the completions route.
	Lead, Trail int
}

// IdealCached is, for each request in time order, the prompt tokens an exact prefix
// cache that never evicts holds for it when every request before it has been
// processed, and the trace's ideal hit ratio: cached over the prompts' tokens, as the
// server counts them (lead and trail included). A prompt's cached part is the run of
// its blocks that earlier prompts had in the same place, after the same blocks, as far
// as whole cache blocks of those earlier prompts held them; a prompt equal to an
// earlier one is cached whole but its last token (a server always computes that one).
func (t *Trace) IdealCached(m CacheModel) ([]int, float64) {
	b := m.Block
	if b <= 0 {
		b = t.BlockSize
	}
	seen := map[uint64]int{}   // chained block key → content tokens of it cached
	whole := map[uint64]bool{} // a whole prompt (its last key and length) sent before
	out := make([]int, len(t.Requests))
	var cached, total int
	for i, r := range t.Requests {
		keys := t.chainKeys(i)
		n := r.InputLength
		server := m.Lead + n + m.Trail
		limit := (server - 1) / b * b
		var hit int
		switch {
		case i == 0:
		case whole[wholeKey(keys, n)]:
			hit = limit
		default:
			s := 0
			for j, k := range keys {
				length := min(t.BlockSize, n-j*t.BlockSize)
				have := seen[k]
				s += min(have, length)
				if have < length {
					break
				}
			}
			hit = min((m.Lead+s)/b*b, limit)
		}
		out[i] = hit
		cached += hit
		total += server
		// What this prompt leaves cached of its own content: the cache blocks that lie
		// within its lead and content (blocks reaching into the trail or the reply hold
		// tokens no other prompt has there).
		content := max(0, (m.Lead+n)/b*b-m.Lead)
		for j, k := range keys {
			seen[k] = max(seen[k], min(t.BlockSize, max(0, content-j*t.BlockSize)))
		}
		whole[wholeKey(keys, n)] = true
	}
	if total == 0 {
		return out, 0
	}
	return out, float64(cached) / float64(total)
}

// chainKeys are request i's blocks as keys of the block and every block before it,
// as a prefix cache's chained hashes are.
func (t *Trace) chainKeys(i int) []uint64 {
	r := t.Requests[i]
	keys := make([]uint64, (r.InputLength+t.BlockSize-1)/t.BlockSize)
	var parent uint64
	for j := range keys {
		parent = mix(parent ^ mix(t.blockID(i, j)))
		keys[j] = parent
	}
	return keys
}

func wholeKey(keys []uint64, n int) uint64 {
	if len(keys) == 0 {
		return 0
	}
	return mix(keys[len(keys)-1] ^ uint64(n))
}
