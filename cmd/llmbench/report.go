package main

import (
	"errors"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/session"
	"github.com/llmbench/llmbench/internal/site/client"
)

func init() { commands = append(commands, newReportCmd) }

func newReportCmd() *cobra.Command {
	var format, out, lang, rescore, against string
	var noColor, wide bool
	var targets capacityFlag
	cmd := &cobra.Command{
		Use:     "report RUN.json [RUN.json …]",
		Short:   "Render a saved run: text, markdown, csv, json, or a self-contained html page",
		Long:    helpLong("report"),
		Example: helpExamples("report"),
		Args:    reportArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if rescore != "" {
				if cmd.Flags().Changed("format") {
					return errRescoreFormat
				}
				return rescoreExit(session.Rescore(cmd.OutOrStdout(), rescore, args, out))
			}
			opts := report.Options{Format: format, Lang: lang, Capacity: targets.targets()}
			if against != "" {
				opts.FindAgainst = client.FindAgainst(cmd.Context(), against)
			}
			if out == "" || out == "-" {
				out, opts = "", opts.ForTerminal(os.Stdout, noColor, wide)
			}
			return report.Render(cmd.OutOrStdout(), cmd.ErrOrStderr(), args, out, opts)
		},
	}
	cmd.Flags().StringVarP(&format, "format", "f", "text", "output format: "+strings.Join(report.Formats(), ", "))
	cmd.Flags().StringVarP(&out, "output", "o", "", "write to this file instead of standard output")
	cmd.Flags().StringVar(&lang, "lang", "en", "language of labels: "+strings.Join(locale.Languages(), ", "))
	cmd.Flags().BoolVar(&noColor, "no-color", false, "no ANSI colour in text output (also: NO_COLOR=1)")
	cmd.Flags().StringVar(&rescore, "rescore", "", "re-score the run from this events log (run --events) and compare every figure; with -o, write the re-scored document there")
	cmd.Flags().BoolVar(&wide, "wide", false, "text: every table at full width, one line a row, whatever $COLUMNS says")
	cmd.Flags().StringVar(&against, "against", "", "lay the run over another on a site, cell by cell: a run's page, or the site's address (the best run of the same GPU and model)")
	addCapacityFlag(cmd.Flags(), &targets)
	return cmd
}

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
