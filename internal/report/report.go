// Package report renders a run document (rundoc.Run) for people and for programs: a
// terminal table (text), Markdown (md), one row per measurement (csv), the document
// itself (json), and a self-contained page (html) that reproduces the seed page —
// cards, prefill, the sustained-decode matrix shaded by tok/s, SVG charts drawn here,
// and the sortable table of all measurements — in English and Japanese.
//
// Every format shows the same figures with the same number formats (2,163.0 ·
// 3,808 ms · 20.7 ms · 1.00 · 30.0 s), marks what a reader must not miss (a cell that
// saw queueing, preemptions, failed requests or early ends; a failed, invalid or
// interrupted cell and its reason), and says loudly when the numbers are emulated or
// predicted rather than measured.
//
// Entry points:
//
//	Write(w, run, Options{Format: "html", Lang: "ja"})  // any format
//	Formats()                                            // the format names
//	Render(w, stderr, paths, output, opts)  // "llmbench report": read the documents (ReadRun), render them (WriteRuns)
//	Rescore(w, events, paths, output)       // "llmbench report --rescore": re-score from the events log, compare
//	HTMLBody(w, run, lang)  // the run page's content, for another page's layout (the site)
//	HTMLStyles()            // the CSS HTMLBody's markup needs, for that layout's <head>
//	locale.T(lang, key, args...)   // every label in en and ja, site menu included (nav_*)
//	FormatNumber, FormatInt, FormatMs, FormatSeconds, FormatGB, FormatPercent
//
// The package knows nothing of HTTP: the site serves what it writes.
package report

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Options choose how a run is written.
type Options struct {
	Format string // text | md | csv | json | html; empty means text
	Lang   string // en | ja; empty means en (csv and json are language-neutral)
	Color  bool   // ANSI colour, text only
	// Width fits the text report to a terminal this many columns wide: tables wrap
	// their headers, then transpose or split into column groups; prose wraps. 0 is no
	// limit: every table one line a row.
	Width int
	// Capacity are the targets of the capacity section, "how many users" (--capacity);
	// zero: capacity.DefaultTargets().
	Capacity capacity.Targets
	// CapacityFrom, when set, is the document the capacity section is computed from
	// instead of the one rendered: calc's prediction at every number of requests up to
	// the KV limit, not only the matrix's columns.
	CapacityFrom *rundoc.Run
	// CapacityLast leaves the capacity sentences out of a text or md report, for a
	// caller that prints them as its last lines (llmbench run); the table stays.
	CapacityLast bool
	// AB, with both set, adds the paired A/B of their evaluations (A the first, B the
	// second) to an html page: "llmbench report --format html a.json b.json". Text and
	// md write it after the documents themselves (WriteRuns).
	AB [2]*rundoc.Run
	// Against lays the run over this one, cell by cell, in text, md and html (the
	// overlay section, overlay.go); FindAgainst, when set, finds it for each document
	// rendered ("llmbench report --against": the best run of its GPU and model on a
	// site) and sets Against.
	Against     *Baseline
	FindAgainst func(*rundoc.Run) (*Baseline, error)
}

// Formats lists the formats Write knows.
func Formats() []string { return []string{"text", "md", "csv", "json", "html"} }

// Write renders run to w in opts.Format.
func Write(w io.Writer, run *rundoc.Run, opts Options) error {
	if run == nil {
		return errors.New("rendering report: no run document")
	}
	format := strings.ToLower(opts.Format)
	if format == "" {
		format = "text"
	}
	if l := strings.ToLower(opts.Lang); l != "" && !strings.HasPrefix(l, "en") && !strings.HasPrefix(l, "ja") {
		return fmt.Errorf("unknown language %q (known: %s)", opts.Lang, strings.Join(locale.Languages(), ", "))
	}
	var err error
	switch format {
	case "text", "txt":
		err = writeText(w, viewFor(run, opts), opts.Color, opts.Width)
	case "md", "markdown":
		err = writeMarkdown(w, viewFor(run, opts))
	case "csv":
		err = writeCSV(w, run, opts)
	case "json":
		err = writeJSON(w, run, opts)
	case "html":
		err = writeHTMLPage(w, run, opts)
	default:
		return fmt.Errorf("unknown report format %q (known: %s)", opts.Format, strings.Join(Formats(), ", "))
	}
	if err != nil {
		return fmt.Errorf("rendering %s report: %w", format, err)
	}
	return nil
}
