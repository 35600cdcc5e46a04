package report

import (
	"regexp"
	"strings"

	"github.com/mattn/go-runewidth"
)

// Fitting the text report to a terminal's width (Options.Width). A table too wide for
// it first wraps its headers onto several lines ("Requests at once" over its numbers);
// one still too wide is cut into column groups, each repeating the row's key columns,
// so every figure is still printed. Prose lines wrap at spaces. Width 0 is the full
// table, one line a row (--wide, and output that is not a terminal).

const colGap = 2 // spaces between columns

var ansiCode = regexp.MustCompile("\x1b\\[[0-9;]*m")

// displayWidth is the cells s takes on a terminal: ANSI codes take none, a Japanese
// character two.
func displayWidth(s string) int { return runewidth.StringWidth(ansiCode.ReplaceAllString(s, "")) }

// columnWidths is each column's width: its widest cell, and its header's widest line
// (the header's words when wrap is set, its whole text otherwise).
func columnWidths(head []string, rows [][]string, wrap bool) []int {
	width := make([]int, len(head))
	for i, h := range head {
		if wrap {
			for _, w := range strings.Fields(h) {
				width[i] = max(width[i], runewidth.StringWidth(w))
			}
		} else {
			width[i] = runewidth.StringWidth(h)
		}
	}
	for _, r := range rows {
		for i, c := range r {
			if i < len(width) {
				width[i] = max(width[i], runewidth.StringWidth(c))
			}
		}
	}
	return width
}

func totalWidth(width []int) int {
	t := 0
	for i, w := range width {
		if i > 0 {
			t += colGap
		}
		t += w
	}
	return t
}

// tableFits reports whether a table (headers wrapped) fits limit columns.
func tableFits(head []string, rows [][]string, limit int) bool {
	return limit <= 0 || totalWidth(columnWidths(head, rows, true)) <= limit
}

// columnGroups cuts the columns after the first keys into groups that fit limit with
// the key columns in front of each. A column too wide even alone gets a group of its own.
func columnGroups(width []int, keys, limit int) [][]int {
	keys = min(keys, len(width))
	keyW := totalWidth(width[:keys])
	var groups [][]int
	var cur []int
	used := keyW
	for i := keys; i < len(width); i++ {
		if len(cur) > 0 && used+colGap+width[i] > limit {
			groups = append(groups, cur)
			cur, used = nil, keyW
		}
		cur = append(cur, i)
		used += colGap + width[i]
	}
	if len(cur) > 0 || len(groups) == 0 {
		groups = append(groups, cur)
	}
	for g := range groups {
		cols := make([]int, 0, keys+len(groups[g]))
		for k := range keys {
			cols = append(cols, k)
		}
		groups[g] = append(cols, groups[g]...)
	}
	return groups
}

// pick returns the cells of row at cols ("" where the row is short).
func pick(row []string, cols []int) []string {
	out := make([]string, len(cols))
	for j, c := range cols {
		if c < len(row) {
			out[j] = row[c]
		}
	}
	return out
}

// headerLines wraps each header to its column's width: one header row per line.
func headerLines(head []string, width []int) [][]string {
	var wrapped [][]string
	n := 1
	for i, h := range head {
		ls := wrapWords(h, width[i])
		wrapped = append(wrapped, ls)
		n = max(n, len(ls))
	}
	lines := make([][]string, n)
	for l := range lines {
		lines[l] = make([]string, len(head))
		for i, ls := range wrapped {
			// Bottom-aligned, so the last header line sits on the figures.
			if k := l - (n - len(ls)); k >= 0 {
				lines[l][i] = ls[k]
			}
		}
	}
	return lines
}

// wrapWords breaks s at spaces into lines of at most width cells; a word wider than
// width (or text without spaces, as Japanese is) is broken between characters, its
// first piece filling the line before it.
func wrapWords(s string, width int) []string {
	if width <= 0 || displayWidth(s) <= width {
		return []string{s}
	}
	var lines []string
	cur := ""
	for _, w := range strings.Fields(s) {
		if cur != "" && displayWidth(cur)+1+displayWidth(w) <= width {
			cur += " " + w
			continue
		}
		if displayWidth(w) > width && cur != "" {
			if room := width - displayWidth(cur) - 1; room > 0 && runewidth.StringWidth(firstRune(w)) <= room {
				var head string
				head, w = splitAtWidth(w, room)
				cur += " " + head
			}
		}
		if cur != "" {
			lines = append(lines, cur)
		}
		for displayWidth(w) > width {
			var head string
			head, w = splitAtWidth(w, width)
			lines = append(lines, head)
		}
		cur = w
	}
	if cur != "" {
		lines = append(lines, cur)
	}
	return lines
}

func firstRune(s string) string {
	for _, r := range s {
		return string(r)
	}
	return ""
}

// splitAtWidth cuts s after as many characters as fit width cells (at least one).
func splitAtWidth(s string, width int) (string, string) {
	w := 0
	for i, r := range s {
		rw := runewidth.RuneWidth(r)
		if w+rw > width && i > 0 {
			return s[:i], s[i:]
		}
		w += rw
	}
	return s, ""
}

// wrapProse wraps every line of text wider than width, continuation lines indented by
// two spaces. Tables are fitted before, so only prose is over the width.
func wrapProse(text string, width int) string {
	if width <= 0 {
		return text
	}
	const indent = "  "
	var b strings.Builder
	for line := range strings.Lines(text) {
		body := strings.TrimSuffix(line, "\n")
		if displayWidth(body) <= width {
			b.WriteString(line)
			continue
		}
		first := wrapWords(body, width)[0]
		rest, ok := strings.CutPrefix(body, first)
		if !ok { // body had runs of spaces that wrapping collapsed
			rest = strings.TrimPrefix(strings.Join(strings.Fields(body), " "), first)
		}
		b.WriteString(first + "\n")
		for _, l := range wrapWords(strings.TrimSpace(rest), max(width-len(indent), 1)) {
			b.WriteString(indent + l + "\n")
		}
	}
	return b.String()
}

// zeroCompleted reports whether a measured decode cell completed no request in its
// window, which the text report explains.
func zeroCompleted(v *view) bool {
	for _, m := range v.Measurements {
		if m.Phase == "decode" && len(m.Raw) > 9 && m.Raw[9] == 0 {
			return true
		}
	}
	return false
}
