package session

import (
	"fmt"
	"strings"
)

// NextSteps is what a finished run prints last: where its document is and the two
// commands a user runs next, a page of it and the site.
func NextSteps(out string) string {
	var w strings.Builder
	page := strings.TrimSuffix(out, ".json") + ".html"
	fmt.Fprintf(&w, "\nSaved %s. Next:\n", out)
	fmt.Fprintf(&w, "  llmbench report %s --format html -o %s   # a page to open or share\n", shellWord(out), shellWord(page))
	fmt.Fprintf(&w, "  llmbench submit %s --server URL --token TOKEN   # publish it on a site (docs/site.md)\n", shellWord(out))
	return w.String()
}

// shellWord quotes a path for a command line when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$`\\!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
