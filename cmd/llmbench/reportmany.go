package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// reportArgs asks for at least one document, saying where one comes from.
func reportArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return errors.New("report needs a run document: llmbench report RUN.json (llmbench run writes one, named <model>-<time>.json; try llmbench run --quick)")
	}
	return nil
}

// namedRun is a run document and the file it came from.
type namedRun struct {
	path string
	run  *rundoc.Run
}

// reportReadRuns reads every document named. Text and md render them all; the other
// formats hold one run, so only the newest is kept and stderr says so.
func reportReadRuns(paths []string, format string, stderr io.Writer) ([]namedRun, error) {
	var runs []namedRun
	for _, p := range paths {
		r, err := reportReadRun(p)
		if err != nil {
			return nil, err
		}
		runs = append(runs, namedRun{p, r})
	}
	if len(runs) == 1 || format == "text" || format == "md" {
		return runs, nil
	}
	newest := slices.MaxFunc(runs, func(a, b namedRun) int { return a.run.CreatedAt.Compare(b.run.CreatedAt) })
	fmt.Fprintf(stderr, "%d run documents given; --format %s holds one, so this is the newest, %s (%s). Name one file to render another.\n",
		len(runs), format, newest.path, newest.run.CreatedAt.Format("2006-01-02 15:04:05 MST"))
	return []namedRun{newest}, nil
}

// writeReports renders each run in turn, each headed by its file when there are several.
func writeReports(w io.Writer, runs []namedRun, opts report.Options) error {
	for i, r := range runs {
		if len(runs) > 1 {
			if i > 0 {
				fmt.Fprintln(w)
			}
			if opts.Format == "md" {
				fmt.Fprintf(w, "<!-- %s -->\n", r.path)
			} else {
				fmt.Fprintf(w, "== %s ==\n", r.path)
			}
		}
		if err := report.Write(w, r.run, opts); err != nil {
			return fmt.Errorf("%s: %w", r.path, err)
		}
	}
	return nil
}

// terminalWidth is the width to fit text output to: $COLUMNS when set, else the
// terminal's own, else 0 (no limit: a file or a pipe gets full tables).
func terminalWidth(f *os.File) int {
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

// jsonErrorAt says where in b a JSON error is: "line 12, column 5".
func jsonErrorAt(b []byte, err error) string {
	var off int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		off = se.Offset
	case errors.As(err, &te):
		off = te.Offset
	}
	if off < 0 || off > int64(len(b)) {
		return ""
	}
	line, col := 1, 1
	for _, c := range b[:off] {
		if c == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return fmt.Sprintf("line %d, column %d", line, col)
}
