package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// nextSteps is what a finished run prints last: where its document is and the two
// commands a user runs next, a page of it and the site.
func nextSteps(w io.Writer, out string) {
	page := strings.TrimSuffix(out, ".json") + ".html"
	fmt.Fprintf(w, "\nSaved %s. Next:\n", out)
	fmt.Fprintf(w, "  llmbench report %s --format html -o %s   # a page to open or share\n", shellWord(out), shellWord(page))
	fmt.Fprintf(w, "  llmbench submit %s --server URL --token TOKEN   # publish it on a site (docs/site.md)\n", shellWord(out))
}

// shellWord quotes a path for a command line when it needs it.
func shellWord(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t'\"$`\\!*?[]{}()<>|&;#~") {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// runCleanly runs run and, when it fails before anything was measured, removes the
// run document it had started: a file of pending cells records nothing and would be
// mistaken for a run. An interrupted run keeps its file (--resume finishes it), and so
// does a run whose cells were marked failed with a reason (the server does not
// stream): that is a finding.
func runCleanly(run func() error, f *runFlags, stderr io.Writer) error {
	err := run()
	if err == nil || f.resume != "" || f.out == "" {
		return err
	}
	var ec exitCoder
	if errors.As(err, &ec) && ec.ExitCode() == 130 {
		return err
	}
	doc, rerr := rundoc.ReadFile(f.out)
	if rerr != nil || !nothingMeasured(doc) {
		return err
	}
	if os.Remove(f.out) == nil {
		fmt.Fprintf(stderr, "Nothing was measured, so %s was removed.\n", f.out)
	}
	return err
}

// nothingMeasured reports whether every planned measurement of doc is still pending.
func nothingMeasured(doc *rundoc.Run) bool {
	if doc.FinishedAt != nil {
		return false
	}
	for _, p := range doc.Prefill {
		if p.Status != rundoc.StatusPending && p.Status != rundoc.StatusOverCapacity {
			return false
		}
	}
	for _, c := range doc.Decode {
		if c.Status != rundoc.StatusPending && c.Status != rundoc.StatusOverCapacity {
			return false
		}
	}
	for _, c := range doc.Rate {
		if c.Status != rundoc.StatusPending {
			return false
		}
	}
	return true
}
