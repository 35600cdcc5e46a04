package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/accuracy"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// The accuracy section (llmbench eval, issue 38) and the paired A/B of two documents.

// Percent is a share as a percentage with one decimal: 0.7 → "70.0%".
func Percent(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + "%" }

func writeAccuracyText(b *strings.Builder, v *view, p painter, md bool) {
	for _, a := range v.Accuracy {
		title, sub := locale.T(v.Lang, "accuracy")+" — "+a.Set.Name, locale.T(v.Lang, "accuracy_sub")
		if md {
			fmt.Fprintf(b, "\n## %s\n\n%s\n\n", mdEscape(title), mdEscape(sub))
		} else {
			b.WriteString("\n" + p.paint(ansiBold, title) + " — " + sub + "\n")
		}
		for _, line := range AccuracyLines(v.Lang, a) {
			if md {
				line = mdEscape(line) + "  "
			}
			b.WriteString(line + "\n")
		}
		if len(a.Categories) == 0 {
			continue
		}
		b.WriteString("\n")
		head, right := accuracyCategoryHead(v.Lang)
		rows := AccuracyCategoryRows(v.Lang, a)
		if md {
			mdTable(b, head, right, rows)
		} else {
			writeTable(b, p, head, right, rows, nil)
		}
	}
}

// accuracyCategoryHead is the head of an entry's table of categories, and which of
// its columns are numbers.
func accuracyCategoryHead(lang string) ([]string, []bool) {
	return []string{locale.T(lang, "category"), locale.T(lang, "items"), locale.T(lang, "right"), locale.T(lang, "ci95")}, []bool{false, true, true, true}
}

// AccuracyCategoryRows are an entry's categories as its table shows them: the name,
// the items scored, the accuracy and its 95% interval.
func AccuracyCategoryRows(lang string, a rundoc.Accuracy) [][]string {
	var rows [][]string
	for _, c := range a.Categories {
		ci := dash
		if c.CI != nil {
			ci = Percent(c.CI.Low) + "–" + Percent(c.CI.High)
		}
		rows = append(rows, []string{c.Name, FormatNumber(lang, float64(c.Scored), 0), Percent(c.Score), ci})
	}
	return rows
}

// AccuracyLines are an entry's set, score and costs, one a line.
func AccuracyLines(lang string, a rundoc.Accuracy) []string {
	rev := a.Set.Revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	lines := []string{locale.T(lang, "accuracy_set", a.Set.Name, rev, FormatNumber(lang, float64(a.Planned), 0), FormatNumber(lang, float64(a.Set.Size), 0), a.Set.Prompt)}
	if a.Status != rundoc.AccuracyComplete {
		lines = append(lines, locale.T(lang, "accuracy_pending", a.Scored, a.Planned))
	}
	if a.Score != nil && a.CI != nil {
		lines = append(lines, locale.T(lang, "accuracy_line", Percent(*a.Score), a.Correct, a.Scored, Percent(a.CI.Low), Percent(a.CI.High)))
	}
	var costs []string
	if a.CompletionTokensMean != nil {
		costs = append(costs, locale.T(lang, "accuracy_tokens", FormatNumber(lang, *a.CompletionTokensMean, 1)))
	}
	for _, c := range []struct {
		n   int
		key string
	}{{a.Reasoning, "accuracy_reason"}, {a.Truncated, "accuracy_trunc"}, {a.NoAnswer, "accuracy_none"}, {a.Errors, "accuracy_errors"}} {
		if c.n > 0 {
			costs = append(costs, locale.T(lang, c.key, c.n))
		}
	}
	if len(costs) > 0 {
		lines = append(lines, strings.Join(costs, " · "))
	}
	return lines
}

// WriteComparisons writes the paired A/B of two documents for every set both
// evaluated, or why they cannot be compared; nothing when they share no set.
func WriteComparisons(w io.Writer, a, b *rundoc.Run, lang string) error {
	var sb strings.Builder
	for _, c := range comparisons(a, b) {
		sb.WriteString("\n" + strings.Join(ComparisonLines(lang, c), "\n") + "\n")
	}
	_, err := io.WriteString(w, sb.String())
	return err
}

// comparisons are the paired A/B of a and b on every set both evaluated, in a's order.
func comparisons(a, b *rundoc.Run) []accuracy.Comparison {
	var out []accuracy.Comparison
	for i := range a.Accuracy {
		x := &a.Accuracy[i]
		if y := b.AccuracyOf(x.Set.Name); y != nil {
			out = append(out, accuracy.Compare(x, y))
		}
	}
	return out
}

// ComparisonLines are a comparison's lines: its title, the delta, the flips and p.
func ComparisonLines(lang string, c accuracy.Comparison) []string {
	if !c.Comparable {
		return []string{locale.T(lang, "ab_not_comparable", c.Set, c.Why)}
	}
	points := func(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) }
	delta := points(c.Delta)
	if c.Delta > 0 {
		delta = "+" + delta
	}
	lines := []string{
		locale.T(lang, "ab_title", c.Set),
		locale.T(lang, "ab_line", Percent(c.AccA), Percent(c.AccB), c.Pairs, delta, points(c.DeltaCI.Low), points(c.DeltaCI.High)),
		locale.T(lang, "ab_flips", c.OnlyA, c.OnlyB, c.BothRight, c.BothWrong),
		locale.T(lang, "ab_p", FormatP(c.P)),
	}
	if c.Skipped > 0 {
		lines = append(lines, locale.T(lang, "ab_skipped", c.Skipped))
	}
	return lines
}

// FormatP writes a p-value with four decimals, or "< 0.0001".
func FormatP(p float64) string {
	if p < 0.0001 {
		return "< 0.0001"
	}
	return strconv.FormatFloat(p, 'f', 4, 64)
}

// htmlAccuracy is one evaluation as the html page shows it.
type htmlAccuracy struct {
	Name  string
	Lines []string
	Table keyedTable // the categories
}

// addAccuracyHTML fills the page's accuracy sections and, given two documents, their A/B.
func addAccuracyHTML(d *htmlData, opts Options) {
	for _, a := range d.Accuracy {
		head, _ := accuracyCategoryHead(d.Lang)
		d.AccuracySets = append(d.AccuracySets, htmlAccuracy{Name: a.Set.Name, Lines: AccuracyLines(d.Lang, a),
			Table: keyedTable{Class: "lb-accuracy-table", Head: head, Rows: AccuracyCategoryRows(d.Lang, a)}})
	}
	if a, b := opts.AB[0], opts.AB[1]; a != nil && b != nil {
		for _, c := range comparisons(a, b) {
			d.Comparisons = append(d.Comparisons, ComparisonLines(d.Lang, c))
		}
	}
}

// WriteAccuracy writes one evaluation's summary as text (llmbench eval's last lines).
func WriteAccuracy(w io.Writer, a *rundoc.Accuracy, lang string) error {
	var b strings.Builder
	writeAccuracyText(&b, &view{Lang: locale.Norm(lang), Accuracy: []rundoc.Accuracy{*a}}, painter{}, false)
	_, err := io.WriteString(w, b.String())
	return err
}
