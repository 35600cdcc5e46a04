package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/llmbench/llmbench/internal/perf"
)

// listPrices prints the dated price catalog with its sources.
func listPrices(w io.Writer) error {
	ec, err := perf.LoadEnergy()
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tGPUS\tUSD/GPU-HOUR\tBILLING\tDATE\tPROVIDER · OFFER\tSOURCE")
	for _, p := range ec.Prices {
		date := p.Date
		if p.DateKind == "read" {
			date += " (read)"
		}
		fmt.Fprintf(tw, "%s\t%s\t%g\t%s\t%s\t%s · %s\t%s (%s)\n", p.ID, strings.Join(p.GPUs, ","), p.USDPerGPUHour, p.Billing, date, p.Provider, p.Offer, p.Source, p.SourceKind)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, "\nPublic list prices, for reference; they go stale. A date marked (read) is when an undated page was read. Give your machine's own price with: llmbench run --price-per-hour USD")
	return err
}
