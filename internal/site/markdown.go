package site

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

// maxEmbeds bounds the runs one report page looks up: a report of thousands of
// [[run:…]] lines would otherwise cost thousands of queries on every view. Embeds
// past the limit stay as written.
const maxEmbeds = 50

// renderMarkdown turns a report's Markdown into safe HTML, with each [[run:ID]]
// replaced by card(ID) — HTML the site renders itself from the stored run. card is
// called once per distinct id.
func renderMarkdown(ctx context.Context, src string, card func(ctx context.Context, id string) string) (template.HTML, error) {
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
	cards := map[string]string{}
	last := 0
	var tag tagTracker
	for _, m := range runEmbed.FindAllSubmatchIndex(safe, -1) {
		start, end := m[0], m[1]
		if tag.inside(safe, start) {
			continue
		}
		id := string(safe[m[2]:m[3]])
		html, seen := cards[id]
		if !seen {
			if len(cards) == maxEmbeds {
				continue
			}
			html = card(ctx, id)
			cards[id] = html
		}
		out.Write(safe[last:start])
		out.WriteString(html)
		last = end
	}
	out.Write(safe[last:])
	return template.HTML(out.String()), nil // sanitised above; cards are the site's own templates
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
