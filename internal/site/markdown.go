package site

import (
	"bytes"
	"context"
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

// renderMarkdown turns a report's Markdown into safe HTML, with each [[run:ID]]
// replaced by card(ID) — HTML the site renders itself from the stored run.
func renderMarkdown(ctx context.Context, src string, card func(ctx context.Context, id string) string) (template.HTML, error) {
	var buf bytes.Buffer
	if err := md.Convert([]byte(src), &buf); err != nil {
		return "", err
	}
	safe := ugc.SanitizeBytes(buf.Bytes())
	// Embeds are expanded after sanitising, so the sanitiser never sees (or strips)
	// the site's own markup, and the id the pattern captured is plain text.
	out := runEmbed.ReplaceAllFunc(safe, func(m []byte) []byte {
		return []byte(card(ctx, string(runEmbed.FindSubmatch(m)[1])))
	})
	return template.HTML(out), nil // sanitised above
}
