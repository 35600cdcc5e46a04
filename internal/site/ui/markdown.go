package ui

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"regexp"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

var (
	md = goldmark.New(goldmark.WithExtensions(extension.GFM))
	// ugc allows what people write in comparisons (tables, code, links, images) and
	// nothing that runs: no script, no event handlers, no style, no javascript: URLs.
	ugc = func() *bluemonday.Policy {
		p := bluemonday.UGCPolicy()
		p.RequireNoFollowOnLinks(true)
		return p
	}()
	// runEmbed is how a report embeds a run: [[run:ID]] on a line.
	runEmbed = regexp.MustCompile(`\[\[run:([A-Za-z0-9][A-Za-z0-9._-]{0,127})\]\]`)
)

// What one report page may embed. Every embed counts, repeats too: the limit once
// counted distinct runs only, so one [[run:ID]] written 104 times made a 183.6 MB page
// (issue 37). Each run is shown as a card once; a repeat is a link to it, and so is a
// card past maxEmbedBytes; embeds past MaxEmbeds stay as written.
const (
	MaxEmbeds     = 50      // embeds expanded, and so runs looked up, per page
	maxEmbedBytes = 2 << 20 // the cards' HTML on one page
)

// embedKind is what an embed is shown as.
type embedKind int

const (
	embedCard  embedKind = iota // the run's card (a lookup)
	embedAgain                  // a link to the run's card, shown above
	embedLink                   // a link to the run's page: its card would pass maxEmbedBytes
)

// renderMarkdown turns a report's Markdown into safe HTML, with each [[run:ID]]
// replaced by embed(ID, kind) — HTML the site renders itself: the stored run's card
// the first time, a link after.
func renderMarkdown(ctx context.Context, src string, embed func(ctx context.Context, id string, kind embedKind) string) (template.HTML, error) {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return "", fmt.Errorf("rendering Markdown: %w", err)
	}
	safe := ugc.SanitizeBytes(buf.Bytes())
	// Embeds are expanded after sanitising, so the sanitiser never sees (or strips)
	// the site's own markup, and the id the pattern captured is plain text. Only
	// embeds in text are expanded: one inside a tag would put the card's markup into
	// an attribute value. (Today's policy keeps none there — it drops titles and
	// percent-encodes URLs — but this must not rest on which attributes it allows.)
	var out bytes.Buffer
	shown := map[string]embedKind{} // how each run was first shown
	last, expanded, cardBytes := 0, 0, 0
	var tag tagTracker
	for _, m := range runEmbed.FindAllSubmatchIndex(safe, -1) {
		start, end := m[0], m[1]
		if tag.inside(safe, start) || expanded == MaxEmbeds {
			continue
		}
		expanded++
		id := string(safe[m[2]:m[3]])
		var html string
		if first, seen := shown[id]; seen {
			kind := embedAgain
			if first != embedCard {
				kind = embedLink
			}
			html = embed(ctx, id, kind)
		} else {
			shown[id] = embedCard
			html = embed(ctx, id, embedCard)
			if cardBytes+len(html) > maxEmbedBytes {
				shown[id] = embedLink
				html = embed(ctx, id, embedLink)
			} else {
				cardBytes += len(html)
			}
		}
		out.Write(safe[last:start])
		out.WriteString(html)
		last = end
	}
	out.Write(safe[last:])
	return template.HTML(out.String()), nil // sanitised above; embeds are the site's own templates
}

// tagTracker tells whether a position of sanitised HTML is in the middle of a tag,
// reading each byte once as positions increase. The sanitiser escapes every < and >
// in text and attribute values, so the last of them before a position tells.
type tagTracker struct {
	scanned int
	in      bool
}

func (t *tagTracker) inside(html []byte, pos int) bool {
	for ; t.scanned < pos; t.scanned++ {
		switch html[t.scanned] {
		case '<':
			t.in = true
		case '>':
			t.in = false
		}
	}
	return t.in
}
