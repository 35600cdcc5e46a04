package gguf

import "unicode/utf8"

// The multibyte model writes what real models write when text is not plain ASCII:
// whole pieces that are themselves multi-byte ("日本", "é"), and characters spelled
// out in byte-fallback tokens ("<0xE3>" "<0x81>" "<0x93>" is "こ"). An engine that
// streams text must hold a byte token back until the bytes after it complete a
// character (Ollama's runner does: common.IncompleteUnicode), so one streamed chunk
// then carries two or three tokens. That is the case the end-to-end test must meet.
//
// Random weights would emit byte tokens in orders that are not UTF-8, which engines
// drop rather than stream (Ollama trims invalid bytes in flushPending), so the model
// follows a small grammar instead. The layers' outputs are scaled down (residualScale)
// so that the final hidden state is, to within a few percent, the current token's
// embedding: the next token's logits then depend on the current token, which is all a
// grammar of "a lead byte is followed by its continuation bytes" needs. Four
// dimensions of the embedding say which state the token leaves the grammar in, and
// each lm-head row is large and positive on the states where that token may follow,
// large and negative elsewhere. The layers still run at full size, so the engine does
// the same work per token as the plain model.

// Grammar states: what the tokens so far leave unfinished.
const (
	stateFree  = iota // a character boundary: any normal piece, or a lead byte
	stateLead3        // after 0xE3: the second byte of a three-byte character
	stateMid3         // after 0xE3 0x81 or 0xE3 0x82: the third byte
	stateLead2        // after 0xC3: the second byte of a two-byte character
	grammarStates
)

// The bytes of the grammar's characters: U+3043–U+305F and U+3083–U+309F (hiragana:
// E3 81|82 83–9F) and U+00E0–U+00FF (Latin-1 letters: C3 A0–BF). The third byte of
// the three-byte ones stays clear of the second's values, so that the byte alone says
// where in the character it stands.
const (
	lead3Byte  = 0xE3
	lead2Byte  = 0xC3
	end3First  = 0x83
	end3Last   = 0x9F
	end2First  = 0xA0
	end2Last   = 0xBF
	mid3First  = 0x81
	mid3Second = 0x82
)

// Sizes of the grammar in the weights. The state part of a token's embedding is
// stateEmbedding on one of the first grammarStates dimensions; after the final RMS
// norm it is about stateEmbedding/√(1+stateEmbedding²/n_embd). A head row's state part
// is ±stateWeight, so allowed and forbidden tokens' logits differ by about 2 × 7 × 3 ≈
// 43, beside a spread of a few units from the rest of the row: a forbidden token is
// never sampled (e^-40), and the repeat penalty (÷1.1) cannot close that gap.
const (
	stateEmbedding = 8
	stateWeight    = 3
	// leadBias raises the lead bytes' logits at a character boundary, so that about
	// one character in five or six is spelled in bytes (TestMultibyteGrammar).
	leadBias = 2.4
	// residualScale shrinks each layer's output projection, so that the eight
	// sublayers together move the hidden state by a fraction of its size.
	residualScale = 0.05
)

// multibytePieces are whole non-ASCII pieces, with the prefixes that SentencePiece's
// merges need to reach them.
var multibytePieces = []string{
	"日", "本", "日本", "語", "日本語", "の", "は", "で", "す", "です", "ま", "ます",
	"中", "文", "中文", "é", "ü", "ñ", "ß",
}

// MultibyteVocabulary is TinyVocabulary with whole non-ASCII pieces added.
func MultibyteVocabulary() Vocabulary {
	v := TinyVocabulary()
	for _, p := range multibytePieces {
		v.Tokens = append(v.Tokens, p)
		v.Scores = append(v.Scores, -100+float32(utf8.RuneCountInString(p)))
		v.Types = append(v.Types, TokenNormal)
	}
	return v
}

// byteOf is the byte a byte-fallback token stands for, or -1 for any other token.
func byteOf(v Vocabulary, id int) int {
	if v.Types[id] != TokenByte {
		return -1
	}
	return id - firstByteTokenID
}

// stateAfter is the grammar state a token leaves the text in.
func stateAfter(v Vocabulary, id int) int {
	switch b := byteOf(v, id); {
	case b == lead3Byte:
		return stateLead3
	case b == mid3First || b == mid3Second:
		return stateMid3
	case b == lead2Byte:
		return stateLead2
	}
	return stateFree
}

// allowedIn says whether a token may follow in a grammar state.
func allowedIn(v Vocabulary, id, state int) bool {
	b := byteOf(v, id)
	switch state {
	case stateFree:
		return v.Types[id] == TokenNormal || b == lead3Byte || b == lead2Byte
	case stateLead3:
		return b == mid3First || b == mid3Second
	case stateMid3:
		return b >= end3First && b <= end3Last
	case stateLead2:
		return b >= end2First && b <= end2Last
	}
	return false
}

// inGrammar says whether a token takes part in the grammar: the normal pieces and the
// bytes the grammar's characters are made of. The others (special tokens, every other
// byte) keep the plain model's zero head row.
func inGrammar(v Vocabulary, id int) bool {
	for s := range grammarStates {
		if allowedIn(v, id, s) {
			return true
		}
	}
	return false
}

// setStateEmbedding writes the state part of token id's embedding row.
func setStateEmbedding(row []float32, v Vocabulary, id int) {
	clear(row[:grammarStates])
	row[stateAfter(v, id)] = stateEmbedding
}

// setStateHead writes the state part of token id's lm-head row.
func setStateHead(row []float32, v Vocabulary, id int) {
	for s := range grammarStates {
		w := float32(-stateWeight)
		if allowedIn(v, id, s) {
			w = stateWeight
			if s == stateFree && byteOf(v, id) >= 0 {
				w += leadBias
			}
		}
		row[s] = w
	}
}
