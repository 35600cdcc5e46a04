package ui

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestEmbedsAreFoundOnlyInText: goldmark and the UGC policy keep [[run:ID]] out of
// attributes today (titles are dropped, URLs percent-encoded), but should a policy
// ever keep one, the card's markup must not land inside the attribute value.
func TestEmbedsAreFoundOnlyInText(t *testing.T) {
	const html = `<p>[[run:a]] <img src="x.png" alt="[[run:b]]"> [[run:c]]</p><a title="[[run:d]]" href="/">[[run:e]]</a>`
	want := map[string]bool{"a": false, "b": true, "c": false, "d": true, "e": false}
	var tag tagTracker
	for _, m := range runEmbed.FindAllStringSubmatchIndex(html, -1) {
		id := html[m[2]:m[3]]
		if got := tag.inside([]byte(html), m[0]); got != want[id] {
			t.Errorf("[[run:%s]] inside a tag = %v, want %v", id, got, want[id])
		}
	}
}

// fakeEmbed renders a card as <div class="card">ID</div> padded to size bytes, and a
// link as <a>again ID</a> or <a>link ID</a>, counting the cards asked for per id.
func fakeEmbed(calls map[string]int, size int) func(context.Context, string, embedKind) string {
	return func(_ context.Context, id string, kind embedKind) string {
		switch kind {
		case embedAgain:
			return "<a>again " + id + "</a>"
		case embedLink:
			return "<a>link " + id + "</a>"
		}
		calls[id]++
		card := `<div class="card">` + id + `</div>`
		return card + strings.Repeat(" ", max(0, size-len(card)))
	}
}

// TestRenderMarkdownLooksUpEachRunOnce: a report repeating one run shows its card once
// and links to it after; every embed counts towards MaxEmbeds, repeats too (issue 37:
// one run written 104 times was 104 cards, 183.6 MB), and the embeds past it stay as
// written.
func TestRenderMarkdownLooksUpEachRunOnce(t *testing.T) {
	var b strings.Builder
	for range 3 {
		b.WriteString("[[run:same]]\n\n")
	}
	for i := range MaxEmbeds + 10 {
		fmt.Fprintf(&b, "[[run:r%d]]\n\n", i)
	}
	calls := map[string]int{}
	out, err := renderMarkdown(context.Background(), b.String(), fakeEmbed(calls, 0))
	if err != nil {
		t.Fatal(err)
	}
	if calls["same"] != 1 || len(calls) != MaxEmbeds-2 {
		t.Errorf("cards asked for %d ids (same: %d times); want %d ids (%d embeds, 2 of them repeats), each once", len(calls), calls["same"], MaxEmbeds-2, MaxEmbeds)
	}
	if got := strings.Count(string(out), `<div class="card">same</div>`); got != 1 {
		t.Errorf("the repeated run's card is shown %d times, want once", got)
	}
	if got := strings.Count(string(out), `<a>again same</a>`); got != 2 {
		t.Errorf("the repeats of the run link to its card %d times, want 2", got)
	}
	if !strings.Contains(string(out), fmt.Sprintf("[[run:r%d]]", MaxEmbeds-3)) || strings.Contains(string(out), fmt.Sprintf("[[run:r%d]]", MaxEmbeds-4)) {
		t.Errorf("the embeds past the %dth are not the ones left as written", MaxEmbeds)
	}
}

// TestRenderMarkdownBoundsTheCards: cards past maxEmbedBytes are links, and the
// repeats of a run shown as a link are links to its page.
func TestRenderMarkdownBoundsTheCards(t *testing.T) {
	var b strings.Builder
	for i := range 10 {
		fmt.Fprintf(&b, "[[run:r%d]]\n\n[[run:r%d]]\n\n", i, i)
	}
	calls := map[string]int{}
	out, err := renderMarkdown(context.Background(), b.String(), fakeEmbed(calls, maxEmbedBytes/3+1))
	if err != nil {
		t.Fatal(err)
	}
	if len(out) > maxEmbedBytes+64<<10 {
		t.Errorf("10 runs of %d-byte cards render %d bytes, want at most about %d", maxEmbedBytes/3+1, len(out), maxEmbedBytes)
	}
	if n := strings.Count(string(out), `<div class="card">`); n != 2 {
		t.Errorf("%d cards shown, want the 2 that fit in %d bytes", n, maxEmbedBytes)
	}
	if !strings.Contains(string(out), "<a>again r1</a>") || strings.Count(string(out), "<a>link r9</a>") != 2 {
		t.Errorf("a repeat of a card is not a link to it, or a run past the budget and its repeat are not links to its page")
	}
}
