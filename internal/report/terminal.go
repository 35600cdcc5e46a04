package report

import (
	"os"
	"strconv"
	"strings"

	"golang.org/x/term"
)

// ForTerminal is opts for writing to f: ANSI colour for text when f is a terminal and
// neither noColor nor $NO_COLOR says no, and unless wide the width to fit
// (TerminalWidth).
func (opts Options) ForTerminal(f *os.File, noColor, wide bool) Options {
	opts.Color = opts.Format == "text" && !noColor && isTerminal(f) && os.Getenv("NO_COLOR") == ""
	if !wide {
		opts.Width = TerminalWidth(f)
	}
	return opts
}

// isTerminal reports whether f is a character device (a terminal), without cgo.
func isTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// TerminalWidth is the width to fit text output to: $COLUMNS when set, else the
// terminal's own, else 0 (no limit: a file or a pipe gets full tables).
func TerminalWidth(f *os.File) int {
	if n, err := strconv.Atoi(strings.TrimSpace(os.Getenv("COLUMNS"))); err == nil && n > 0 {
		return n
	}
	if term.IsTerminal(int(f.Fd())) {
		if w, _, err := term.GetSize(int(f.Fd())); err == nil && w > 0 {
			return w
		}
	}
	return 0
}
