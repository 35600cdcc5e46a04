package main

import (
	"fmt"
	"io"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/llmbench/llmbench/internal/perf"
)

// engineEra sets the setup's factors for the engine build --engine-version names:
// the current era's when it is empty.
func engineEra(c *perf.Catalog, s *perf.Setup, version string) (perf.EraChoice, error) {
	eff, choice, err := c.EraEfficiency(s.Engine, s.GPU.Vendor, version)
	if err != nil {
		return choice, fmt.Errorf("--engine-version: %w", err)
	}
	s.Eff = eff
	return choice, nil
}

// eraNote says which factors an older build was predicted with ("" for the current
// era).
func eraNote(e perf.EraChoice) string {
	if e.Asked == "" {
		return ""
	}
	dated := ""
	if e.Version != "" && e.Version != e.Asked {
		dated = fmt.Sprintf(", the date of %s, its newest dated build at or before it", e.Version)
	}
	note := fmt.Sprintf("Engine build %s is dated %s%s: factors of family %s", e.Asked, e.Date, dated, e.Family)
	if e.Aged {
		note += fmt.Sprintf(", aged to that date (the engine's own work, GEMMs, attention and per-step overheads, takes %.2f× as long; memory traffic is not aged)", e.Slowdown)
	}
	return note + "."
}

// listEngines prints each engine, its families and what each dated era assumes.
func listEngines(w io.Writer, c *perf.Catalog) error {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tALSO\tFAMILIES\tRUNS")
	for _, e := range c.Engines {
		var fams []string
		for v, f := range e.Families {
			fams = append(fams, v+"="+f)
		}
		sort.Strings(fams)
		runs := "any format"
		if len(e.Quants) > 0 {
			runs = strings.Join(e.Quants, " ")
		}
		if len(e.KVDtypes) > 0 {
			runs += "; KV " + strings.Join(e.KVDtypes, " ")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", e.ID, strings.Join(e.Aliases, ", "), strings.Join(fams, " "), runs)
	}
	fmt.Fprintln(tw, "\nENGINE\tERA (--engine-version)\tDATE\tNVIDIA FACTORS\tOWN WORK TAKES")
	for _, e := range c.Engines {
		eff, _, err := c.EraEfficiency(e, "nvidia", "")
		if err != nil {
			return err
		}
		fmt.Fprintf(tw, "%s\tcurrent (default)\t%s\t%s\t1.00×\n", e.ID, eff.EvidenceThrough, e.Family("nvidia"))
		for _, era := range e.Eras {
			name, date := era.Version, era.Date
			if name == "" {
				name, date = "before "+era.Before, prevMonth(era.Before)
			}
			_, ch, err := c.EraEfficiency(e, "nvidia", date)
			if err != nil {
				return err
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%.2f×\n", e.ID, name, date, ch.Family, ch.Slowdown)
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err := fmt.Fprintln(w, "\nA build is predicted from its date: a generation with factors of its own (family@year) uses them; otherwise the family's factors, whose own work (GEMMs, attention, per-step overheads) takes 1 + the fitted slowdown per year × the build's age as long. Builds newer than the evidence get the factors as they are. Each dated build's source is in engines.json.")
	return err
}

// prevMonth is the month before "YYYY-MM".
func prevMonth(ym string) string {
	var y, m int
	if _, err := fmt.Sscanf(ym, "%d-%d", &y, &m); err != nil {
		return ym
	}
	if m--; m == 0 {
		y, m = y-1, 12
	}
	return fmt.Sprintf("%04d-%02d", y, m)
}
