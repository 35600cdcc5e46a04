package gguf

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// bigram reads the multibyte model's embedding and lm head back from its F16 tensors
// and gives the next token's logits from the current token alone: the model's hidden
// state is the embedding to within residualScale (the layers are left out here; the
// end-to-end test runs the whole model in Ollama).
type bigram struct {
	v          Vocabulary
	nEmbd      int
	embd, head []float32
	memo       map[int][]float64
}

func loadBigram(t *testing.T, c LlamaConfig) *bigram {
	t.Helper()
	f, err := TinyLlama(c)
	if err != nil {
		t.Fatal(err)
	}
	b := &bigram{v: c.vocabulary(), nEmbd: c.Embedding, memo: map[int][]float64{}}
	for _, tn := range f.Tensors {
		switch tn.Name {
		case "token_embd.weight":
			b.embd = halves(tn.Data)
		case "output.weight":
			b.head = halves(tn.Data)
		}
	}
	if len(b.embd) != len(b.v.Tokens)*b.nEmbd || len(b.head) != len(b.embd) {
		t.Fatalf("embedding %d and head %d values, want %d each", len(b.embd), len(b.head), len(b.v.Tokens)*b.nEmbd)
	}
	return b
}

func halves(data []byte) []float32 {
	out := make([]float32, len(data)/2)
	for i := range out {
		out[i] = halfToFloat(binary.LittleEndian.Uint16(data[2*i:]))
	}
	return out
}

// logits after the final RMS norm (its weights are ones).
func (b *bigram) logits(cur int) []float64 {
	if l, ok := b.memo[cur]; ok {
		return l
	}
	x := b.embd[cur*b.nEmbd : (cur+1)*b.nEmbd]
	var ss float64
	for _, e := range x {
		ss += float64(e) * float64(e)
	}
	norm := math.Sqrt(ss/float64(b.nEmbd) + 1e-5)
	out := make([]float64, len(b.v.Tokens))
	for t := range out {
		row := b.head[t*b.nEmbd : (t+1)*b.nEmbd]
		var dot float64
		for k, w := range row {
			dot += float64(w) * float64(x[k])
		}
		out[t] = dot / norm
	}
	b.memo[cur] = out
	return out
}

// sample draws the next token as Ollama 0.6.5's runner does with the end-to-end
// Modelfile (temperature 1) and its defaults: repeat penalty 1.1 over the last 64
// tokens, top-k 40, top-p 0.9.
func sample(rng *rand.Rand, logits []float64, recent []int) int {
	l := slices.Clone(logits)
	for _, t := range recent {
		if l[t] > 0 {
			l[t] /= 1.1
		} else {
			l[t] *= 1.1
		}
	}
	ids := make([]int, len(l))
	for i := range ids {
		ids[i] = i
	}
	slices.SortFunc(ids, func(a, b int) int { return cmpFloat(l[b], l[a]) })
	ids = ids[:40]
	p := make([]float64, len(ids))
	var sum float64
	for i, id := range ids {
		p[i] = math.Exp(l[id] - l[ids[0]])
		sum += p[i]
	}
	cum, keep := 0.0, len(ids)
	for i := range p {
		p[i] /= sum
		cum += p[i]
		if cum >= 0.9 {
			keep = i + 1
			break
		}
	}
	u := rng.Float64() * cum
	for i := 0; i < keep; i++ {
		if u -= p[i]; u <= 0 {
			return ids[i]
		}
	}
	return ids[keep-1]
}

func cmpFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// piece is the text a token stands for, as llama.cpp's token_to_piece gives it.
func piece(v Vocabulary, id int) string {
	if b := byteOf(v, id); b >= 0 {
		return string([]byte{byte(b)})
	}
	return strings.ReplaceAll(v.Tokens[id], spaceMarker, " ")
}

// TestMultibyteGrammar: every state's allowed tokens outscore its forbidden ones by a
// margin no sampler setting closes, and what the model writes is UTF-8 with a share of
// byte-spelled characters like real non-ASCII text, without the runs of one token
// that make Ollama cut a stream.
func TestMultibyteGrammar(t *testing.T) {
	b := loadBigram(t, MultibyteTinyLlama())
	v := b.v
	for cur := range v.Tokens {
		if !inGrammar(v, cur) {
			continue
		}
		l, state := b.logits(cur), stateAfter(v, cur)
		// The odds of a forbidden token against the best allowed one, with the repeat
		// penalty on the allowed ones and not on the forbidden.
		best, forbidden := math.Inf(-1), 0.0
		for next, x := range l {
			if allowedIn(v, next, state) {
				best = max(best, x/1.1)
			}
		}
		for next, x := range l {
			if !allowedIn(v, next, state) {
				forbidden += math.Exp(x - best)
			}
		}
		if forbidden > 1e-9 {
			t.Fatalf("after %q (state %d): forbidden tokens have odds %.2g against the best allowed one, want < 1e-9", v.Tokens[cur], state, forbidden)
		}
	}

	rng := rand.New(rand.NewPCG(1, 2))
	var bytesTokens, tokens, longestRun int
	for gen := 0; gen < 30; gen++ {
		var text strings.Builder
		var recent []int
		cur, run := slices.Index(v.Tokens, spaceMarker+"the"), 0 // as after a word
		for range 1024 {
			next := sample(rng, b.logits(cur), recent)
			if next == cur {
				run++
			} else {
				run = 1
			}
			longestRun = max(longestRun, run)
			if byteOf(v, next) >= 0 {
				bytesTokens++
			}
			tokens++
			text.WriteString(piece(v, next))
			recent = append(recent, next)
			if len(recent) > 64 {
				recent = recent[1:]
			}
			cur = next
		}
		s := text.String()
		// A generation may end inside a character; everything before is whole.
		for len(s) > 0 && !utf8.ValidString(s) {
			s = s[:len(s)-1]
		}
		if len(text.String())-len(s) > 2 {
			t.Fatalf("generation %d is not UTF-8: %q", gen, text.String())
		}
	}
	share := float64(bytesTokens) / float64(tokens)
	t.Logf("%d tokens: %.1f%% byte tokens, longest run of one token %d", tokens, 100*share, longestRun)
	if share < 0.15 || share > 0.5 {
		t.Errorf("byte tokens are %.1f%% of the output, want 15–50%% (a few characters in ten spelled in bytes)", 100*share)
	}
	if longestRun >= 10 {
		t.Errorf("a token repeated %d times in a row: Ollama cuts a stream at 30", longestRun)
	}
}

// TestPlainModelWritesNoBytes: the plain model's byte tokens keep zero head rows, so
// it still streams one token per chunk.
func TestPlainModelWritesNoBytes(t *testing.T) {
	b := loadBigram(t, DefaultTinyLlama())
	for id := range b.v.Tokens {
		if byteOf(b.v, id) < 0 {
			continue
		}
		for _, w := range b.head[id*b.nEmbd : (id+1)*b.nEmbd] {
			if w != 0 {
				t.Fatalf("byte token %q has a non-zero head row in the plain model", b.v.Tokens[id])
			}
		}
	}
}
