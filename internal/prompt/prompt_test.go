package prompt

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"
)

// wordCounter counts like a tokenizer whose tokens are words, except that long words
// cost two: so one more word is not always one more token.
type wordCounter struct{ calls int }

func (w *wordCounter) Name() string { return "test" }
func (w *wordCounter) Count(_ context.Context, p Payload) (int, error) {
	w.calls++
	text := p.Text
	overhead := 0
	if p.Messages != nil {
		text, overhead = p.Messages[0].Content, 5
	}
	n := overhead
	for _, f := range strings.Fields(text) {
		n++
		if utf8.RuneCountInString(f) > 6 {
			n++
		}
	}
	return n, nil
}

func TestBuildExact(t *testing.T) {
	for _, api := range []API{Chat, Completions} {
		for _, target := range []int{100, 1000, 8192, 57344} {
			c := &wordCounter{}
			b := &Builder{API: api, Counter: c, Seed: 7}
			ctx, err := b.Build(context.Background(), target, "[nonce]")
			if err != nil {
				t.Fatal(err)
			}
			// Two-token words can make exactness impossible by one token; never more.
			if d := ctx.Actual - target; d < -1 || d > 1 {
				t.Errorf("%s %d: built %d tokens", api, target, ctx.Actual)
			}
			if c.calls > 20 {
				t.Errorf("%s %d: %d counts, want a handful", api, target, c.calls)
			}
			if !strings.HasPrefix(ctx.Shared(), "[nonce]") {
				t.Errorf("shared context does not start with the nonce")
			}
			p0, p1 := ctx.Payload(0), ctx.Payload(1)
			if api == Completions && p0.Text == p1.Text {
				t.Error("two requests got the same prompt")
			}
		}
	}
}

func TestFillerDeterministic(t *testing.T) {
	a := (&Builder{Seed: 3}).filler(500)
	b := (&Builder{Seed: 3}).filler(500)
	c := (&Builder{Seed: 4}).filler(500)
	long := (&Builder{Seed: 3}).filler(5000)
	if a != b || a == c {
		t.Error("filler must depend on the seed only")
	}
	if !strings.HasPrefix(long, a) {
		t.Error("a longer filler must extend the shorter one")
	}
}

func TestBuildTooShort(t *testing.T) {
	b := &Builder{API: Chat, Counter: &wordCounter{}}
	if _, err := b.Build(context.Background(), 3, "[n]"); err == nil {
		t.Error("a context shorter than the bare prompt was accepted")
	}
}
