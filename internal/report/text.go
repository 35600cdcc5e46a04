package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/mattn/go-runewidth"
)

// ANSI styles for the terminal. Over-capacity cells are dimmed as on the page, failures
// are red, and the kind badge is green when measured and loud otherwise.
const (
	ansiReset  = "\x1b[0m"
	ansiBold   = "\x1b[1m"
	ansiDim    = "\x1b[2m"
	ansiRed    = "\x1b[31m"
	ansiGreen  = "\x1b[32m"
	ansiYellow = "\x1b[33m"
	ansiLoud   = "\x1b[1;30;43m" // bold black on yellow
)

// painter colours text (on) and fits it to a terminal's width (0: no limit).
type painter struct {
	on    bool
	width int
}

func (p painter) paint(style, s string) string {
	if !p.on || style == "" || s == "" {
		return s
	}
	return style + s + ansiReset
}

func statusStyle(s rundoc.Status) string {
	switch s {
	case rundoc.StatusOverCapacity, rundoc.StatusPending:
		return ansiDim
	case rundoc.StatusFailed, rundoc.StatusInvalid:
		return ansiRed
	case rundoc.StatusInterrupted:
		return ansiYellow
	}
	return ""
}

func writeText(w io.Writer, v *view, color bool, width int) error {
	p := painter{on: color, width: width}
	var b strings.Builder
	b.WriteString(p.paint(ansiBold, v.Title) + "\n")
	b.WriteString(joinNonEmpty(" · ", v.Engine, v.Plan) + "\n")
	kind := p.paint(ansiGreen, v.KindLabel)
	if v.Warning != "" {
		kind = strings.ToUpper(v.KindLabel)
		if color {
			kind = p.paint(ansiLoud, " "+kind+" ")
		}
	}
	b.WriteString(joinNonEmpty(" · ", v.Submitter, v.Tool, kind) + "\n")
	if v.Warning != "" {
		b.WriteString("\n" + p.paint(ansiLoud, "!! "+strings.ToUpper(v.KindLabel)+": "+v.Warning+" !!") + "\n")
	}

	if len(v.Prefill) > 0 {
		b.WriteString("\n" + p.paint(ansiBold, locale.T(v.Lang, "prefill")) + " — " + locale.T(v.Lang, "prefill_sub") + "\n")
		rows := [][]string{}
		styles := [][]string{}
		for _, r := range v.Prefill {
			if r.HasFigures {
				rows = append(rows, []string{r.ContextStr, r.TokSStr, r.TTFTStr})
				styles = append(styles, nil)
			} else {
				rows = append(rows, []string{r.ContextStr, r.StatusStr, dash})
				styles = append(styles, []string{"", statusStyle(r.Status), ""})
			}
		}
		writeTable(&b, p, []string{locale.T(v.Lang, "context"), locale.T(v.Lang, "prompt_toks"), locale.T(v.Lang, "ttft")}, []bool{false, true, true}, rows, styles)
	}

	if len(v.Matrix) > 0 {
		writeMatrixText(&b, v, p)
		b.WriteString("\n")
		if v.HasOverCap {
			b.WriteString(locale.T(v.Lang, "note_over_capacity") + "\n")
		}
		b.WriteString(locale.T(v.Lang, "note_ttft") + "\n")
		b.WriteString(locale.T(v.Lang, "note_tbt") + "\n")
	}

	if len(v.Measurements) > 0 {
		b.WriteString("\n" + p.paint(ansiBold, locale.T(v.Lang, "all")) + " — " + locale.T(v.Lang, "all_sub") + "\n")
		head, right := measurementHead(v)
		var rows, styles [][]string
		for _, m := range v.Measurements {
			row := measurementRow(v, m)
			st := make([]string, len(row))
			st[3] = statusStyle(m.Status)
			if m.Warn && len(row) > len(m.Cells) {
				st[len(st)-1] = ansiYellow
			}
			rows, styles = append(rows, row), append(styles, st)
		}
		// Phase, context and requests at once say which row it is.
		writeTableKeys(&b, p, 3, head, right, rows, styles)
		if v.HasOverCap {
			b.WriteString("\n" + locale.T(v.Lang, "note_over_capacity") + "\n")
		}
		if zeroCompleted(v) {
			b.WriteString(locale.T(v.Lang, "note_completed") + "\n")
		}
	}
	writeRateText(&b, v, p, false)
	writeWorkloadText(&b, v, p, false)
	writeCapacityText(&b, v, p, false)
	writeOverlayText(&b, v.Lang, v.Overlay, p, false)
	writeAccuracyText(&b, v, p, false)
	// The client's headroom is a check on the measurements: it follows them.
	if v.Headroom != "" {
		b.WriteString("\n" + locale.T(v.Lang, "headroom_line", v.Headroom) + "\n")
	}
	writeFootnotes(&b, v, "", func(s string) string { return s })
	_, err := io.WriteString(w, wrapProse(b.String(), width))
	return err
}

// writeMatrixText writes the sustained-decode matrix: rows context, columns
// concurrency, or transposed when that is too wide for p.width and the transpose is
// not (the seed's 8 concurrency levels against its 4 contexts).
func writeMatrixText(b *strings.Builder, v *view, p painter) {
	head := []string{locale.T(v.Lang, "context")}
	for _, n := range v.Concurrency {
		head = append(head, strconv.Itoa(n))
	}
	var rows, styles [][]string
	for i, ctx := range v.Contexts {
		row := []string{rundoc.FormatTokens(ctx)}
		st := []string{""}
		for _, c := range v.Matrix[i] {
			row = append(row, cellText(c))
			st = append(st, matrixStyle(c))
		}
		rows, styles = append(rows, row), append(styles, st)
	}
	sub := locale.T(v.Lang, "decode_sub_text")
	if !tableFits(head, rows, p.width) {
		th, trows, tstyles := transpose(locale.T(v.Lang, "requests_at_once"), head, rows, styles)
		if tableFits(th, trows, p.width) {
			head, rows, styles, sub = th, trows, tstyles, locale.T(v.Lang, "decode_sub_transposed")
		}
	}
	b.WriteString("\n" + p.paint(ansiBold, locale.T(v.Lang, "decode")) + " — " + sub + "\n")
	writeTable(b, p, head, make([]bool, len(head)), rows, styles)
}

func matrixStyle(c MatrixCell) string {
	s := statusStyle(c.Status)
	if c.Warn && s == "" {
		s = ansiYellow
	}
	return s
}

// transpose swaps a table's rows and columns: the first column's cells become the
// header (after corner), the header's the first column.
func transpose(corner string, head []string, rows, styles [][]string) ([]string, [][]string, [][]string) {
	th := []string{corner}
	for _, r := range rows {
		th = append(th, r[0])
	}
	var trows, tstyles [][]string
	for j := 1; j < len(head); j++ {
		row, st := []string{head[j]}, []string{""}
		for i, r := range rows {
			row = append(row, r[j])
			s := ""
			if i < len(styles) && j < len(styles[i]) {
				s = styles[i][j]
			}
			st = append(st, s)
		}
		trows, tstyles = append(trows, row), append(tstyles, st)
	}
	return th, trows, tstyles
}

// cellText is a matrix cell with its footnote mark: "48.2 (85 ms) [1]".
func cellText(c MatrixCell) string {
	s := c.Text()
	if c.Footnote > 0 {
		s += " [" + strconv.Itoa(c.Footnote) + "]"
	}
	return s
}

func hasFootnoteColumn(v *view) bool {
	for _, m := range v.Measurements {
		if m.Footnote > 0 {
			return true
		}
	}
	return false
}

// measurementHead is the seed's columns, plus Cache hit and Notes when any row has them.
func measurementHead(v *view) (head []string, right []bool) {
	for i, k := range measurementColumns {
		head = append(head, locale.T(v.Lang, k))
		right = append(right, i >= 4 || i == 2)
	}
	if v.HasCacheHit {
		head, right = append(head, locale.T(v.Lang, "cache_hit")), append(right, true)
	}
	if v.HasEnergy {
		for _, k := range energyColumns {
			head, right = append(head, locale.T(v.Lang, k)), append(right, true)
		}
	}
	if hasFootnoteColumn(v) {
		head, right = append(head, locale.T(v.Lang, "notes")), append(right, false)
	}
	return head, right
}

func measurementRow(v *view, m measurement) []string {
	row := append([]string(nil), m.Cells...)
	if v.HasCacheHit {
		row = append(row, cmpOr(m.CacheHit, dash))
	}
	if v.HasEnergy {
		row = append(row, m.Energy...)
	}
	if hasFootnoteColumn(v) {
		n := ""
		if m.Footnote > 0 {
			n = "[" + strconv.Itoa(m.Footnote) + "]"
		}
		row = append(row, n)
	}
	return row
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func writeFootnotes(b *strings.Builder, v *view, bullet string, escape func(string) string) {
	if len(v.Footnotes) == 0 && len(v.RunNotes) == 0 {
		return
	}
	b.WriteString("\n" + locale.T(v.Lang, "notes") + "\n")
	if bullet != "" {
		b.WriteString("\n")
	}
	for _, f := range v.Footnotes {
		fmt.Fprintf(b, "%s%s %s: %s\n", bullet, escape("["+strconv.Itoa(f.N)+"]"), escape(f.Where), escape(f.Text))
	}
	for _, n := range v.RunNotes {
		fmt.Fprintf(b, "%s%s\n", bullet, escape(n))
	}
}

// writeTable writes an aligned table whose first column names the row.
func writeTable(b *strings.Builder, p painter, head []string, right []bool, rows, styles [][]string) {
	writeTableKeys(b, p, 1, head, right, rows, styles)
}

// writeTableKeys writes an aligned table that fits p.width (see fit.go): as it is, or
// with its headers wrapped, or cut into column groups that each start with the first
// keys columns, the ones that say which row it is.
func writeTableKeys(b *strings.Builder, p painter, keys int, head []string, right []bool, rows, styles [][]string) {
	width := columnWidths(head, rows, false)
	if p.width <= 0 || totalWidth(width) <= p.width {
		writeAligned(b, p, [][]string{head}, width, right, rows, styles)
		return
	}
	width = columnWidths(head, rows, true)
	if totalWidth(width) <= p.width {
		writeAligned(b, p, headerLines(head, width), width, right, rows, styles)
		return
	}
	for g, cols := range columnGroups(width, keys, p.width) {
		if g > 0 {
			b.WriteString("\n")
		}
		gw, gr := make([]int, len(cols)), make([]bool, len(cols))
		for j, c := range cols {
			gw[j], gr[j] = width[c], right[c]
		}
		var grows, gstyles [][]string
		for i, r := range rows {
			grows = append(grows, pick(r, cols))
			if i < len(styles) && styles[i] != nil {
				gstyles = append(gstyles, pick(styles[i], cols))
			} else {
				gstyles = append(gstyles, nil)
			}
		}
		writeAligned(b, p, headerLines(pick(head, cols), gw), gw, gr, grows, gstyles)
	}
}

// writeAligned writes header lines and rows padded to width. Widths count display
// cells (a Japanese label is two cells a character), and colour is applied after
// padding so it never shifts columns.
func writeAligned(b *strings.Builder, p painter, heads [][]string, width []int, right []bool, rows, styles [][]string) {
	line := func(cells []string, st []string, bold bool) {
		// Empty trailing cells would leave trailing blanks: stop at the last non-empty one.
		for len(cells) > 1 && cells[len(cells)-1] == "" {
			cells = cells[:len(cells)-1]
		}
		for i, c := range cells {
			pad := strings.Repeat(" ", max(width[i]-runewidth.StringWidth(c), 0))
			if right[i] {
				c = pad + c
			} else if i < len(cells)-1 {
				c += pad
			}
			style := ""
			if i < len(st) {
				style = st[i]
			}
			if bold {
				style = ansiBold
			}
			if i > 0 {
				b.WriteString(strings.Repeat(" ", colGap))
			}
			b.WriteString(p.paint(style, c))
		}
		b.WriteString("\n")
	}
	for _, h := range heads {
		line(h, nil, true)
	}
	for i, r := range rows {
		var st []string
		if i < len(styles) {
			st = styles[i]
		}
		line(r, st, false)
	}
}

// writeMarkdown writes GitHub-flavoured Markdown: the same header and tables as text,
// plus the Hardware/Engine/Run cards and the launch command.
func writeMarkdown(w io.Writer, v *view) error {
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", mdEscape(v.Title))
	b.WriteString(mdEscape(joinNonEmpty(" · ", v.Engine, v.Plan)) + "  \n")
	b.WriteString(mdEscape(joinNonEmpty(" · ", v.Submitter, v.Tool)) + " · **" + v.KindLabel + "**\n")
	if v.Warning != "" {
		fmt.Fprintf(&b, "\n> [!WARNING]\n> **%s** — %s\n", strings.ToUpper(v.KindLabel), mdEscape(v.Warning))
	}
	for _, c := range v.Cards {
		fmt.Fprintf(&b, "\n## %s\n\n", c.Title)
		for _, f := range c.Fields {
			fmt.Fprintf(&b, "- **%s:** %s\n", f.Label, mdEscape(f.Value))
		}
	}
	if v.LaunchCommand != "" {
		fence := "```"
		for strings.Contains(v.LaunchCommand, fence) {
			fence += "`"
		}
		fmt.Fprintf(&b, "\n## %s\n\n%ssh\n%s\n%s\n", locale.T(v.Lang, "launch_command"), fence, strings.TrimRight(v.LaunchCommand, "\n"), fence)
	}
	if len(v.Prefill) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", locale.T(v.Lang, "prefill"), locale.T(v.Lang, "prefill_sub"))
		var rows [][]string
		for _, r := range v.Prefill {
			if r.HasFigures {
				rows = append(rows, []string{r.ContextStr, r.TokSStr, r.TTFTStr})
			} else {
				rows = append(rows, []string{r.ContextStr, r.StatusStr, dash})
			}
		}
		mdTable(&b, []string{locale.T(v.Lang, "context"), locale.T(v.Lang, "prompt_toks"), locale.T(v.Lang, "ttft")}, []bool{false, true, true}, rows)
	}
	if len(v.Matrix) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", locale.T(v.Lang, "decode"), locale.T(v.Lang, "decode_sub_text"))
		head := []string{locale.T(v.Lang, "context")}
		right := []bool{false}
		for _, n := range v.Concurrency {
			head, right = append(head, strconv.Itoa(n)), append(right, true)
		}
		var rows [][]string
		for i, ctx := range v.Contexts {
			row := []string{rundoc.FormatTokens(ctx)}
			for _, c := range v.Matrix[i] {
				s := cellText(c)
				if !c.HasFigures && c.Present && c.Status != rundoc.StatusOverCapacity {
					s = "**" + s + "**"
				}
				row = append(row, s)
			}
			rows = append(rows, row)
		}
		mdTable(&b, head, right, rows)
		b.WriteString("\n")
		if v.HasOverCap {
			b.WriteString(mdEscape(locale.T(v.Lang, "note_over_capacity")) + "\n\n")
		}
		b.WriteString(mdEscape(locale.T(v.Lang, "note_ttft")) + "\n\n")
		b.WriteString(mdEscape(locale.T(v.Lang, "note_tbt")) + "\n")
	}
	if len(v.Measurements) > 0 {
		fmt.Fprintf(&b, "\n## %s\n\n%s\n\n", locale.T(v.Lang, "all"), locale.T(v.Lang, "all_sub"))
		head, right := measurementHead(v)
		var rows [][]string
		for _, m := range v.Measurements {
			rows = append(rows, measurementRow(v, m))
		}
		mdTable(&b, head, right, rows)
		if v.HasOverCap {
			b.WriteString("\n" + mdEscape(locale.T(v.Lang, "note_over_capacity")) + "\n")
		}
	}
	writeRateText(&b, v, painter{}, true)
	writeWorkloadText(&b, v, painter{}, true)
	writeCapacityText(&b, v, painter{}, true)
	writeOverlayText(&b, v.Lang, v.Overlay, painter{}, true)
	writeAccuracyText(&b, v, painter{}, true)
	writeFootnotes(&b, v, "- ", mdEscape)
	_, err := io.WriteString(w, b.String())
	return err
}

func mdTable(b *strings.Builder, head []string, right []bool, rows [][]string) {
	row := func(cells []string) {
		b.WriteString("|")
		for _, c := range cells {
			b.WriteString(" " + strings.ReplaceAll(c, "|", `\|`) + " |")
		}
		b.WriteString("\n")
	}
	row(head)
	b.WriteString("|")
	for _, r := range right {
		if r {
			b.WriteString("---:|")
		} else {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	for _, r := range rows {
		row(r)
	}
}

// mdEscape keeps text from a run document (titles, reasons) from turning into Markdown
// markup: emphasis, links, headings, raw HTML.
var mdReplacer = strings.NewReplacer(`\`, `\\`, "*", `\*`, "_", `\_`, "`", "\\`", "[", `\[`, "]", `\]`, "<", "&lt;", ">", "&gt;", "|", `\|`)

func mdEscape(s string) string { return mdReplacer.Replace(s) }
