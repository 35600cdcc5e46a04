// Package prompt owns prompts of exact token length: filler text from a fixed seed
// (or a document of real text), measured and corrected against the server's own
// token count (its tokenize route, or usage.prompt_tokens of a one-token request), a
// shared context per row that starts with a nonce (so it is cold on first use and
// warm after), and a short unique tail per request.
package prompt

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/openai"
)

// API is the request shape prompts are built for.
type API string

const (
	Chat        API = "chat"
	Completions API = "completions"
)

// Counter counts prompt tokens the way the server will: for chat, with the chat
// template applied.
type Counter interface {
	Count(ctx context.Context, p Payload) (int, error)
	// Name says how counting works, e.g. "/tokenize" or "usage.prompt_tokens".
	Name() string
}

// Payload is one request's prompt: chat messages, a completion prompt, or a
// completion prompt of token ids.
type Payload struct {
	Messages []openai.Message // chat
	Text     string           // completions
	IDs      []int            // completions, as token ids: exact length, nothing to re-tokenize
}

// Tokenizer turns text into the server's token ids (for token-id prompts).
type Tokenizer interface {
	Tokenize(ctx context.Context, text string) ([]int, error)
}

// Builder builds prompts of exact length for one server.
type Builder struct {
	API     API
	Counter Counter
	// Seed fixes the filler text; the same seed gives the same words.
	Seed int64
	// MaxIterations bounds the count-and-correct loop.
	MaxIterations int
	// Tokenizer, when set with the completions API, makes prompts of token ids: the
	// server takes them as they are, so their length is exact by construction.
	Tokenizer Tokenizer
	// Document, when set, is the shared contexts' filler (Build, Estimate, Calibrate)
	// in place of the seeded random words; Unique's open-loop prompts stay random
	// words, which keep every prompt apart.
	Document *Document

	words []string // the filler, long enough for the largest context asked so far
	// singles is the search for one-token words, done once per builder (a run's
	// open-loop cells share it); its result may be nil (too few found).
	singles *singlesSearch
}

type singlesSearch struct{ found *singleWords }

// Context is a row's shared context: Target tokens including the tail of request 0.
type Context struct {
	Target int
	// Actual is what the counter said for request 0 (shared + tail 0).
	Actual int
	Nonce  string
	shared string
	api    API
	words  int

	// Token-id prompts: the shared ids, the tail's ids, and ids that make each tail unique.
	sharedIDs, tailIDs, uniqueIDs []int
}

// Tail returns request i's unique tail. Tails differ in content, not in shape, so
// their token counts stay within a token or two of each other.
func Tail(i int) string {
	return "\n\nRequest " + strconv.Itoa(i) + ": continue the text above."
}

// Payload returns request i's prompt: the shared context plus its tail.
func (c *Context) Payload(i int) Payload {
	if c.tailIDs != nil {
		ids := make([]int, 0, len(c.sharedIDs)+len(c.tailIDs)+2)
		ids = append(ids, c.sharedIDs...)
		ids = append(ids, c.tailIDs...)
		u := len(c.uniqueIDs)
		// Two ids chosen by i: u² distinct tails of the same length.
		ids = append(ids, c.uniqueIDs[i%u], c.uniqueIDs[(i/u)%u])
		return Payload{IDs: ids}
	}
	return makePayload(c.api, c.shared+Tail(i))
}

// TokenIDs reports whether the context's prompts are token ids.
func (c *Context) TokenIDs() bool { return c.tailIDs != nil }

// Shared returns the shared text (nonce + filler).
func (c *Context) Shared() string { return c.shared }

func makePayload(api API, text string) Payload {
	if api == Completions {
		return Payload{Text: text}
	}
	return Payload{Messages: []openai.Message{{Role: "user", Content: text}}}
}

// Build makes a context whose request 0 counts exactly target tokens, or as close as
// the tokenizer allows. target 0 means "no shared context": just the nonce-free tail.
func (b *Builder) Build(ctx context.Context, target int, nonce string) (*Context, error) {
	if b.Tokenizer != nil && b.API == Completions {
		return b.buildIDs(ctx, target, nonce)
	}
	c := &Context{Target: target, Nonce: nonce, api: b.API}
	if target == 0 {
		n, err := b.Counter.Count(ctx, makePayload(b.API, Tail(0)))
		if err != nil {
			return nil, fmt.Errorf("counting prompt tokens: %w", err)
		}
		c.Actual = n
		return c, nil
	}
	text := func(words int) string {
		return nonce + " " + b.filler(words)
	}
	count := func(words int) (int, error) {
		n, err := b.Counter.Count(ctx, makePayload(b.API, text(words)+Tail(0)))
		if err != nil {
			return 0, fmt.Errorf("counting prompt tokens (%s): %w", b.Counter.Name(), err)
		}
		return n, nil
	}
	base, err := count(0)
	if err != nil {
		return nil, err
	}
	if target <= base {
		return nil, fmt.Errorf("a context of %d tokens is shorter than the bare prompt (%d tokens)", target, base)
	}
	// Estimate tokens per word from a sample, then correct against the real count.
	sample := 256
	if target-base < sample {
		sample = target - base
	}
	n, err := count(sample)
	if err != nil {
		return nil, err
	}
	perWord := float64(n-base) / float64(sample)
	if perWord <= 0 {
		perWord = 1
	}
	words := sample + int(float64(target-n)/perWord)
	maxIter := b.MaxIterations
	if maxIter == 0 {
		maxIter = 16
	}
	bestWords, bestDiff := sample, abs(target-n)
	for i := 0; i < maxIter; i++ {
		if words < 0 {
			words = 0
		}
		n, err = count(words)
		if err != nil {
			return nil, err
		}
		diff := target - n
		if abs(diff) < bestDiff || (abs(diff) == bestDiff && diff > 0) {
			bestWords, bestDiff = words, abs(diff)
		}
		if diff == 0 {
			break
		}
		step := int(float64(diff) / perWord)
		if step == 0 {
			step = sign(diff)
		}
		words += step
	}
	c.words = bestWords
	c.shared = text(bestWords)
	if c.Actual, err = count(bestWords); err != nil {
		return nil, err
	}
	return c, nil
}

// buildIDs makes a token-id context of exactly target tokens: the tokenized nonce and
// filler cut to length, then the tail's ids and two ids that make each request unique.
func (b *Builder) buildIDs(ctx context.Context, target int, nonce string) (*Context, error) {
	tail, err := b.Tokenizer.Tokenize(ctx, Tail(0))
	if err != nil {
		return nil, fmt.Errorf("tokenizing the prompt tail: %w", err)
	}
	sample, err := b.Tokenizer.Tokenize(ctx, b.filler(256))
	if err != nil {
		return nil, fmt.Errorf("tokenizing filler: %w", err)
	}
	var unique []int
	seen := map[int]bool{}
	for _, id := range sample {
		if !seen[id] {
			seen[id] = true
			unique = append(unique, id)
		}
	}
	if len(unique) < 2 || len(tail) == 0 {
		return nil, fmt.Errorf("the tokenizer returned too few tokens for token-id prompts")
	}
	c := &Context{Target: target, Nonce: nonce, api: b.API, tailIDs: tail, uniqueIDs: unique}
	need := target - len(tail) - 2
	if need < 0 {
		if target == 0 {
			c.Actual = len(tail) + 2
			return c, nil
		}
		return nil, fmt.Errorf("a context of %d tokens is shorter than the bare prompt (%d tokens)", target, len(tail)+2)
	}
	perWord := float64(len(sample)) / 256
	words := int(float64(need)/perWord*1.05) + 16
	for attempt := 0; attempt < 8; attempt++ {
		ids, err := b.Tokenizer.Tokenize(ctx, nonce+" "+b.filler(words))
		if err != nil {
			return nil, fmt.Errorf("tokenizing the shared context: %w", err)
		}
		if len(ids) >= need {
			c.sharedIDs = ids[:need]
			c.words = words
			c.Actual = target
			return c, nil
		}
		words = words*2 + 16
	}
	return nil, fmt.Errorf("could not build %d tokens of filler", need)
}

// Estimate builds a context without counting, from a known tokens-per-word ratio and
// the bare prompt's size: for servers that can only count through a real request.
func (b *Builder) Estimate(target int, nonce string, base int, perWord float64) *Context {
	c := &Context{Target: target, Nonce: nonce, api: b.API}
	if target == 0 {
		return c
	}
	words := int(float64(target-base) / perWord)
	if words < 0 {
		words = 0
	}
	c.words = words
	c.shared = nonce + " " + b.filler(words)
	return c
}

// filler returns the first n words of the document, or of the seeded filler text.
func (b *Builder) filler(n int) string {
	if b.Document != nil {
		return b.Document.text(n)
	}
	if len(b.words) < n {
		rng := rand.New(rand.NewPCG(uint64(b.Seed), 0x9e3779b97f4a7c15))
		// Regenerate from the start so the text depends only on the seed and n.
		words := make([]string, 0, n+n/4)
		for len(words) < cap(words) {
			words = append(words, fillerWords[rng.IntN(len(fillerWords))])
		}
		b.words = words
	}
	var sb strings.Builder
	sb.Grow(n * 6)
	for i, w := range b.words[:n] {
		if i > 0 {
			if i%16 == 0 {
				sb.WriteString(". ")
			} else {
				sb.WriteByte(' ')
			}
		}
		sb.WriteString(w)
	}
	return sb.String()
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	if x < 0 {
		return -1
	}
	return 1
}

// fillerWords are common English words that most BPE tokenizers encode as one token
// each (with their leading space), so that one word more or less moves the count by
// about one token.
var fillerWords = strings.Fields(`the of and to in is was for on are with as his they be at one have this
from or had by word but what some we can out other were all there when up use your how said an each
she which do their time if will way about many then them write would like so these her long make thing
see him two has look more day could go come did number sound no most people my over know water than call
first who may down side been now find any new work part take get place made live where after back little
only round man year came show every good me give our under name very through just form sentence great think
say help low line differ turn cause much mean before move right boy old too same tell does set three want
air well also play small end put home read hand port large spell add even land here must big high such
follow act why ask men change went light kind off need house picture try us again animal point mother
world near build self earth father head stand own page should country found answer school grow study still
learn plant cover food sun four between state keep eye never last let thought city tree cross farm hard
start might story saw far sea draw left late run while press close night real life few north open seem
together next white children begin got walk example ease paper group always music those both mark often
letter until mile river car feet care second book carry took science eat room friend began idea fish
mountain stop once base hear horse cut sure watch color face wood main enough plain girl usual young ready
above ever red list though feel talk bird soon body dog family direct pose leave song measure door product
black short numeral class wind question happen complete ship area half rock order fire south problem piece
told knew pass since top whole king space heard best hour better true during hundred five remember step
early hold west ground interest reach fast verb sing listen six table travel less morning ten simple
several vowel toward war lay against pattern slow center love person money serve appear road map rain
rule govern pull cold notice voice unit power town fine certain fly fall lead cry dark machine note wait
plan figure star box noun field rest correct able pound done beauty drive stood contain front teach week
final gave green quick develop ocean warm free minute strong special mind behind clear tail produce fact
street inch multiply nothing course stay wheel full force blue object decide surface deep moon island foot
system busy test record boat common gold possible plane stead dry wonder laugh thousand ago ran check game
shape equate miss brought heat snow tire bring yes distant fill east paint language among`)
