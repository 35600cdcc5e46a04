package main

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/openloop"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// rescoreReport is report --rescore EVENTS: the document re-scored from its events
// log by the live run's scoring functions, compared field by field. Differences exit
// 1, as diff does; with -o the re-scored document is written there instead (a log
// re-scored by a newer llmbench).
func rescoreReport(w io.Writer, eventsPath string, args []string, out string) error {
	if len(args) != 1 {
		return fmt.Errorf("--rescore re-scores one run document from its events log: llmbench report --rescore EVENTS RUN.json (got %d documents)", len(args))
	}
	doc, err := reportReadRun(args[0])
	if err != nil {
		return err
	}
	events, err := os.ReadFile(eventsPath)
	if err != nil {
		return fmt.Errorf("reading the events log: %w", err)
	}
	rc, err := bench.RecheckRun(doc, events, openloop.RescoreRateCells)
	if err != nil {
		return fmt.Errorf("%s: %w", eventsPath, err)
	}
	fmt.Fprintf(w, "Re-scored from %s: %d prefill rows, %d decode cells, %d rate cells.\n", eventsPath, rc.Prefill, rc.Decode, rc.Rate)
	if out != "" {
		if err := rundoc.WriteFile(out, rc.Rescored); err != nil {
			return err
		}
		fmt.Fprintf(w, "Wrote the re-scored document to %s (%d fields differ from %s).\n", out, len(rc.Differences), args[0])
		return nil
	}
	if len(rc.Differences) == 0 {
		fmt.Fprintf(w, "Every figure of %s is what its events re-score to.\n", args[0])
		return nil
	}
	for _, d := range rc.Differences {
		fmt.Fprintln(w, "  "+d)
	}
	return &exitError{code: 1, err: fmt.Errorf("%d differences between %s and its events log", len(rc.Differences), args[0])}
}

var errRescoreFormat = errors.New("--rescore compares and writes run documents: --format does not apply")
