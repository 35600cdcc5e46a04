package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/spf13/cobra"
)

func init() { commands = append(commands, newReportCmd) }

func newReportCmd() *cobra.Command {
	var format, out, lang, rescore string
	var noColor, wide bool
	cmd := &cobra.Command{
		Use:     "report RUN.json [RUN.json …]",
		Short:   "Render a saved run: text, markdown, csv, json, or a self-contained html page",
		Long:    reportLong,
		Example: reportExample,
		Args:    reportArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rescore != "" {
				if cmd.Flags().Changed("format") {
					return errRescoreFormat
				}
				return rescoreReport(cmd.OutOrStdout(), rescore, args, out)
			}
			if !slices.Contains(report.Formats(), format) {
				return fmt.Errorf("unknown --format %q (choose one of %s)", format, strings.Join(report.Formats(), ", "))
			}
			if !slices.Contains(report.Languages(), lang) {
				return fmt.Errorf("unknown --lang %q (choose one of %s)", lang, strings.Join(report.Languages(), ", "))
			}
			runs, err := reportReadRuns(args, format, cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			opts := report.Options{Format: format, Lang: lang}
			if out == "" || out == "-" {
				opts.Color = format == "text" && !noColor && reportIsTerminal(os.Stdout) && os.Getenv("NO_COLOR") == ""
				if !wide {
					opts.Width = terminalWidth(os.Stdout)
				}
				return writeReports(cmd.OutOrStdout(), runs, opts)
			}
			return reportWriteFile(out, func(w io.Writer) error { return writeReports(w, runs, opts) })
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: "+strings.Join(report.Formats(), ", "))
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	cmd.Flags().StringVar(&lang, "lang", "en", "language of labels: "+strings.Join(report.Languages(), ", "))
	cmd.Flags().BoolVar(&noColor, "no-color", false, "no ANSI colour in text output (also: NO_COLOR=1)")
	cmd.Flags().StringVar(&rescore, "rescore", "", "re-score the run from this events log (run --events) and compare every figure; with -o, write the re-scored document there")
	cmd.Flags().BoolVar(&wide, "wide", false, "text: every table at full width, one line a row, whatever $COLUMNS says")
	return cmd
}

const reportLong = `report renders a run document written by "llmbench run" (or "llmbench calc") as
the seed page's tables: Prefill, Sustained decode (rows context, columns concurrency,
each cell "total tok/s (TTFT)"), and All measurements.

Formats:
  text   aligned tables for the terminal (default; coloured when writing to a terminal)
  md     GitHub Markdown, with the hardware/engine/run cards and the launch command
  csv    one row per measurement, raw numbers, for spreadsheets and scripts
  json   the run document itself, indented
  html   one self-contained page (no network needed): cards, shaded matrix, SVG charts,
         sortable table of all measurements

The text format fits the terminal: $COLUMNS, else the terminal's width (no limit when
the output is not a terminal). A table too wide for it wraps its headers, shows the
decode matrix transposed (rows simultaneous requests, columns context), or cuts it into
column groups that each repeat the row's keys: every figure is still printed.
--wide prints every table one line a row whatever the width.

Several documents (say llmbench report my-model-*.json): text and md render each in
turn, in the order given; csv, json and html hold one run, so they render the newest
(by created_at) and say on stderr which one, and how to render another.

--rescore EVENTS re-scores a document from the events log its run wrote (run --events
FILE): every prefill row, decode cell, rate cell and energy figure, by the same
functions the live run used, compared field by field; a difference exits 1. With -o
the re-scored document is written instead (a log re-scored by a newer llmbench).`

const reportExample = `  llmbench report run.json
  llmbench report my-model-*.json                 # every run, one after another
  COLUMNS=200 llmbench report run.json            # or --wide: the full tables
  llmbench report run.json --format md > RESULTS.md
  llmbench report run.json --format csv -o run.csv
  llmbench report run.json --format html -o page.html
  llmbench report run.json --format html --lang ja -o page-ja.html
  llmbench report --rescore run.events run.json   # every figure re-scored from the events log
  llmbench report --rescore run.events run.json -o rescored.json`

// reportReadRun reads a run document with errors that say what to do about them.
func reportReadRun(path string) (*rundoc.Run, error) {
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("run document %s does not exist", path)
	}
	if err != nil {
		return nil, fmt.Errorf("reading run document: %w", err)
	}
	run, err := rundoc.Decode(b)
	if err != nil {
		var probe struct {
			SchemaVersion *int `json:"schema_version"`
		}
		if json.Unmarshal(b, &probe) == nil && probe.SchemaVersion == nil {
			return nil, fmt.Errorf("%s is not an llmbench run document (it has no schema_version)", path)
		}
		if at := jsonErrorAt(b, err); at != "" {
			return nil, fmt.Errorf("%s, at %s: %w", path, at, err)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return run, nil
}

// reportIsTerminal reports whether f is a character device (a terminal), without cgo.
func reportIsTerminal(f *os.File) bool {
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}

// reportWriteFile writes path through a temporary file in the same folder, so that a
// failed render never leaves a half-written report behind.
func reportWriteFile(path string, write func(io.Writer) error) error {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	tmp := f.Name()
	defer os.Remove(tmp)
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(tmp, 0o644); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	return nil
}
