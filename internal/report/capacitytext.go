package report

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds the capacity section of the text and markdown reports.

// viewFor is the run prepared for display with its capacity section at opts' targets.
func viewFor(run *rundoc.Run, opts Options) *view {
	v := newView(run, opts.Lang)
	v.Capacity = newCapacityView(run, opts, v.Lang)
	if opts.Against != nil {
		v.Overlay = NewOverlayView(v.Lang, run, *opts.Against)
	}
	if v.Capacity != nil && opts.CapacityLast {
		v.Capacity.Sentences = nil
	}
	return v
}

// writeCapacityText writes the capacity section: the sentences, the table of users by
// target speed, and what the figure is.
func writeCapacityText(b *strings.Builder, v *view, p painter, md bool) {
	cv := v.Capacity
	if cv == nil || (len(cv.Sentences) == 0 && len(cv.Rows) == 0) {
		return
	}
	esc := func(s string) string { return s }
	if md {
		esc = mdEscape
		fmt.Fprintf(b, "\n## %s\n\n%s\n\n", locale.T(v.Lang, "cap_title"), mdEscape(cv.Sub))
	} else {
		b.WriteString("\n" + p.paint(ansiBold, locale.T(v.Lang, "cap_title")) + " — " + cv.Sub + "\n")
	}
	for _, s := range cv.Sentences {
		if md {
			b.WriteString("- ")
		}
		b.WriteString(esc(s) + "\n")
	}
	if len(cv.Rows) > 0 {
		right := make([]bool, len(cv.Head))
		if md {
			fmt.Fprintf(b, "\n### %s\n\n%s\n\n", locale.T(v.Lang, "cap_table"), esc(cv.TableSub))
			mdTable(b, cv.Head, right, cv.Rows)
		} else {
			b.WriteString("\n" + p.paint(ansiBold, locale.T(v.Lang, "cap_table")) + " — " + cv.TableSub + "\n")
			writeTable(b, p, cv.Head, right, cv.Rows, nil)
		}
		b.WriteString("\n")
		for _, n := range cv.Notes {
			b.WriteString(esc(n) + "\n")
			if md {
				b.WriteString("\n")
			}
		}
	}
}

// writeJSON writes the document itself with its capacity block under "users" (the
// answer at opts' targets, the table, the sentences in opts' language); a reader of
// run documents ignores the key, so the output still reads back as the document.
func writeJSON(w io.Writer, run *rundoc.Run, opts Options) error {
	out := struct {
		*rundoc.Run
		Users *capacity.Summary `json:"users,omitempty"`
	}{Run: run}
	if cv := newCapacityView(run, opts, locale.Norm(opts.Lang)); cv != nil {
		cv.Summary.Sentences = cv.Sentences
		out.Users = cv.Summary
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(out)
}

// WriteCapacity writes the capacity sentences under their heading, in opts' language:
// what llmbench run prints as its last lines (nothing for a run with nothing to answer).
func WriteCapacity(w io.Writer, run *rundoc.Run, opts Options) error {
	lang := locale.Norm(opts.Lang)
	cv := newCapacityView(run, opts, lang)
	if cv == nil {
		return nil
	}
	var b strings.Builder
	b.WriteString("\n" + locale.T(lang, "cap_title") + " (--capacity " + capacityTargets(opts).String() + "):\n")
	for _, s := range cv.Sentences {
		b.WriteString("  " + s + "\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
