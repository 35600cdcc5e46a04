package sim

import (
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/llmbench/llmbench/internal/openai"
)

// The emulator's tokenizer is deliberately simple so that a client can build a prompt
// of an exact length without asking the server:
//
//   - Text is split on Unicode white space; every resulting word is exactly one token.
//     No special tokens (BOS) are ever added, whatever add_special_tokens says.
//   - A word that is a canonical vocabulary word (see canonicalWord) or a special token
//     string gets that token's id; any other word gets a stable id hashed from its bytes.
//   - The chat template is ChatML-like: each message is
//     "<|im_start|>" role content "<|im_end|>", i.e. 2 + words(role) + words(content)
//     tokens (3 + words(content) for the usual one-word roles), and the generation
//     prompt "<|im_start|> assistant" adds 2 more.
//
// So a chat request with one user message of N words has N + 5 prompt tokens, and a
// completion with a prompt of N words has N.
const (
	// VocabSize is the number of token ids; valid ids are 0 ≤ id < VocabSize.
	VocabSize = 32000
	// EOSToken is the id the emulated model samples when it stops.
	EOSToken = 0
	// ImStartToken and ImEndToken frame each chat message.
	ImStartToken = 1
	ImEndToken   = 2
	// firstWordToken is the first id that maps to an ordinary word.
	firstWordToken = 16

	// ChatTokensPerMessage is what the template adds to each message besides its role
	// and content words.
	ChatTokensPerMessage = 2
	// ChatGenerationPromptTokens is what add_generation_prompt adds.
	ChatGenerationPromptTokens = 2
)

var specialTokens = map[int]string{
	EOSToken:     "<|endoftext|>",
	ImStartToken: "<|im_start|>",
	ImEndToken:   "<|im_end|>",
}

var specialIDs = map[string]int{
	"<|endoftext|>": EOSToken,
	"<|im_start|>":  ImStartToken,
	"<|im_end|>":    ImEndToken,
}

// Canonical words are three syllables from a 14×5 consonant-vowel table, so that the
// id ↔ word mapping needs no table and detokenized text re-tokenizes to the same ids.
const (
	consonants = "bdfgklmnprstvz"
	vowels     = "aeiou"
	syllables  = len(consonants) * len(vowels) // 70; 70³ > VocabSize
)

// canonicalWord is the text of token id (an ordinary word id).
func canonicalWord(id int) string {
	n := id - firstWordToken
	var b [6]byte
	for i := 2; i >= 0; i-- {
		s := n % syllables
		n /= syllables
		b[2*i] = consonants[s/len(vowels)]
		b[2*i+1] = vowels[s%len(vowels)]
	}
	return string(b[:])
}

// canonicalID is the inverse of canonicalWord, or -1 when w is not a canonical word.
func canonicalID(w string) int {
	if len(w) != 6 {
		return -1
	}
	n := 0
	for i := 0; i < 3; i++ {
		c := strings.IndexByte(consonants, w[2*i])
		v := strings.IndexByte(vowels, w[2*i+1])
		if c < 0 || v < 0 {
			return -1
		}
		n = n*syllables + c*len(vowels) + v
	}
	if id := n + firstWordToken; id < VocabSize {
		return id
	}
	return -1
}

// wordID is the token id of one white-space-free word.
func wordID(w string) int {
	if id := canonicalID(w); id >= 0 {
		return id
	}
	if id, ok := specialIDs[w]; ok {
		return id
	}
	h := fnv.New64a()
	h.Write([]byte(w))
	return firstWordToken + int(h.Sum64()%uint64(VocabSize-firstWordToken))
}

// TokenText is the text of one token, as /detokenize and generated output write it.
func TokenText(id int) string {
	if s, ok := specialTokens[id]; ok {
		return s
	}
	if id < firstWordToken || id >= VocabSize {
		return ""
	}
	return canonicalWord(id)
}

// Tokenize appends the ids of text's words to dst.
func Tokenize(dst []int, text string) []int {
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		if unicode.IsSpace(r) {
			i += size
			continue
		}
		j := i + size
		for j < len(text) {
			r, size := utf8.DecodeRuneInString(text[j:])
			if unicode.IsSpace(r) {
				break
			}
			j += size
		}
		dst = append(dst, wordID(text[i:j]))
		i = j
	}
	return dst
}

// CountTokens is len(Tokenize(nil, text)) without allocating.
func CountTokens(text string) int {
	n := 0
	inWord := false
	for _, r := range text {
		space := unicode.IsSpace(r)
		if !space && !inWord {
			n++
		}
		inWord = !space
	}
	return n
}

// ApplyChatTemplate tokenizes messages with the emulator's chat template.
func ApplyChatTemplate(messages []openai.Message, addGenerationPrompt bool) []int {
	var ids []int
	for _, m := range messages {
		ids = append(ids, ImStartToken)
		ids = Tokenize(ids, m.Role)
		ids = Tokenize(ids, m.Content)
		ids = append(ids, ImEndToken)
	}
	if addGenerationPrompt {
		ids = append(ids, ImStartToken, wordID("assistant"))
	}
	return ids
}

// Detokenize writes ids back as text: words joined by single spaces.
func Detokenize(ids []int) (string, error) {
	var b strings.Builder
	for i, id := range ids {
		if id < 0 || id >= VocabSize {
			return "", fmt.Errorf("token id %d is out of vocabulary (0 ≤ id < %d)", id, VocabSize)
		}
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(TokenText(id))
	}
	return b.String(), nil
}
