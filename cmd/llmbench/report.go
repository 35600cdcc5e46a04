package main

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/session"
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
				return rescoreExit(session.Rescore(cmd.OutOrStdout(), rescore, args, out))
			}
			opts := report.Options{Format: format, Lang: lang}
			if out == "" || out == "-" {
				out, opts = "", opts.ForTerminal(os.Stdout, noColor, wide)
			}
			return report.Render(cmd.OutOrStdout(), cmd.ErrOrStderr(), args, out, opts)
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

// reportArgs asks for at least one document, saying where one comes from.
func reportArgs(cmd *cobra.Command, args []string) error {
	if len(args) == 0 {
		return errors.New("report needs a run document: llmbench report RUN.json (llmbench run writes one, named <model>-<time>.json; try llmbench run --quick)")
	}
	return nil
}

var errRescoreFormat = errors.New("--rescore compares and writes run documents: --format does not apply")

// rescoreExit makes a re-score's differences exit 1, as diff does.
func rescoreExit(err error) error {
	if d := (*session.Differences)(nil); errors.As(err, &d) {
		return &exitError{code: 1, err: err}
	}
	return err
}
