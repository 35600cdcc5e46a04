package prompt

import (
	"context"
	"strings"
	"testing"
)

func essay(t *testing.T) *Document {
	t.Helper()
	d, err := LoadDocument("testdata/essay.txt")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// TestBuildFromDocument: with a document, a context is the document's own text (from
// its start, again from the start past its end) and as exact in length as with the
// random words, counted by a counter whose long words cost two tokens.
func TestBuildFromDocument(t *testing.T) {
	d := essay(t)
	if d.Name != "essay.txt" || d.Words() < 200 {
		t.Fatalf("document %q of %d words", d.Name, d.Words())
	}
	for _, api := range []API{Chat, Completions} {
		for _, target := range []int{100, 1000, 4096} {
			c := &wordCounter{}
			b := &Builder{API: api, Counter: c, Document: d}
			ctx, err := b.Build(context.Background(), target, "[nonce]")
			if err != nil {
				t.Fatal(err)
			}
			if diff := ctx.Actual - target; diff < -1 || diff > 1 {
				t.Errorf("%s %d: built %d tokens", api, target, ctx.Actual)
			}
			body := strings.TrimPrefix(ctx.Shared(), "[nonce] ")
			if !strings.HasPrefix(body, "On measuring a server that answers in words\nA server that streams") {
				t.Errorf("%s %d: the context does not start with the document: %.80q", api, target, body)
			}
			if target == 4096 && strings.Count(body, "On measuring a server") < 2 {
				t.Errorf("a context longer than the document does not read it again from its start")
			}
			if got := b.Source(); got != "text:essay.txt" {
				t.Errorf("source %q", got)
			}
		}
	}
	if got := (&Builder{}).Source(); got != "random-words" {
		t.Errorf("source without a document: %q", got)
	}
}

// TestDocumentKeepsLines: line breaks survive (a blank line collapses to one), words
// keep their punctuation, and too short a text is refused.
func TestDocumentKeepsLines(t *testing.T) {
	d, err := ParseDocument("verse", "one two three four\n\nfive six seven eight,\nnine ten eleven twelve thirteen fourteen fifteen sixteen.")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := d.text(9), "one two three four\nfive six seven eight,\nnine"; got != want {
		t.Errorf("text %q, want %q", got, want)
	}
	if got := d.text(18); !strings.HasSuffix(got, "sixteen.\n\none two") {
		t.Errorf("past its end the document starts again after a blank line: %q", got)
	}
	if _, err := ParseDocument("short", "too few words here"); err == nil {
		t.Error("a four-word document was accepted")
	}
}
