package sim

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/openai"
)

func TestTokenizeCounts(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"", 0},
		{"   \n\t ", 0},
		{"one", 1},
		{"one two  three\nfour\tfive", 5},
		{"  leading and trailing  ", 3},
		{"punctuation, counts! as-part of words.", 5},
		{"日本語 テキスト", 2},
		{"<|im_start|> user", 2},
	} {
		if got := len(Tokenize(nil, tc.text)); got != tc.want {
			t.Errorf("Tokenize(%q) has %d tokens, want %d", tc.text, got, tc.want)
		}
		if got := CountTokens(tc.text); got != tc.want {
			t.Errorf("CountTokens(%q) = %d, want %d", tc.text, got, tc.want)
		}
	}
}

func TestCanonicalWordsRoundTrip(t *testing.T) {
	for _, id := range []int{firstWordToken, 17, 100, 12345, VocabSize - 1} {
		w := canonicalWord(id)
		if got := wordID(w); got != id {
			t.Errorf("canonicalWord(%d) = %q maps back to %d", id, w, got)
		}
	}
	if got := Tokenize(nil, "<|im_start|> <|im_end|> <|endoftext|>"); !cmp.Equal(got, []int{ImStartToken, ImEndToken, EOSToken}) {
		t.Errorf("special tokens tokenize to %v", got)
	}
}

func TestChatTemplate(t *testing.T) {
	msgs := []openai.Message{{Role: "system", Content: "a b"}, {Role: "user", Content: "c d e"}}
	got := ApplyChatTemplate(msgs, true)
	want := []int{ImStartToken, wordID("system"), wordID("a"), wordID("b"), ImEndToken,
		ImStartToken, wordID("user"), wordID("c"), wordID("d"), wordID("e"), ImEndToken,
		ImStartToken, wordID("assistant")}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("template (-want +got):\n%s", diff)
	}
	if n := len(ApplyChatTemplate(msgs, false)); n != len(want)-ChatGenerationPromptTokens {
		t.Errorf("without generation prompt: %d tokens", n)
	}
}

// FuzzTokenize: counting never disagrees with tokenizing, ids stay in the vocabulary,
// and detokenized text re-tokenizes to the same ids.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{"", "hello world", " a\u00a0b\u2003c ", "<|im_end|>x", "\xff\xfe bad utf8", "bababa zzzz"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ids := Tokenize(nil, s)
		if len(ids) != CountTokens(s) {
			t.Fatalf("Tokenize gives %d tokens, CountTokens %d", len(ids), CountTokens(s))
		}
		for _, id := range ids {
			if id < 0 || id >= VocabSize {
				t.Fatalf("id %d out of vocabulary", id)
			}
		}
		text, err := Detokenize(ids)
		if err != nil {
			t.Fatal(err)
		}
		if again := Tokenize(nil, text); !cmp.Equal(again, ids) && len(ids) > 0 {
			t.Fatalf("%q → %v → %q → %v", s, ids, text, again)
		}
	})
}
