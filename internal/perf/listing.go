package perf

import (
	"fmt"
	"sort"
	"strings"
)

// Table is one table of a catalog as "llmbench calc --list" shows it: a header, rows
// of cells as printed, and a note to print after it ("" none).
type Table struct {
	Header []string
	Rows   [][]string
	Note   string
}

// Listing is the tables of one catalog, named as calc's --list takes it: gpus,
// models, quants, kv-dtypes, engines, interconnects or prices.
func (c *Catalog) Listing(what string) ([]Table, error) {
	switch strings.ToLower(strings.TrimSpace(what)) {
	case "gpus", "gpu":
		return []Table{c.gpuTable()}, nil
	case "models", "model":
		return []Table{c.modelTable()}, nil
	case "quants", "quant":
		t := Table{Header: []string{"ID", "NAME", "BITS/WEIGHT", "EMBEDDING BITS", "PREFILL ON"}}
		for _, q := range c.Quants {
			t.Rows = append(t.Rows, []string{q.ID, q.Name, fmt.Sprintf("%g", q.Bits), fmt.Sprintf("%g", q.EmbeddingBits), q.Compute})
		}
		return []Table{t}, nil
	case "kv-dtypes", "kv-dtype", "kv":
		t := Table{Header: []string{"ID", "BITS/ELEMENT"}}
		for _, k := range c.KVDtypes {
			t.Rows = append(t.Rows, []string{k.ID, fmt.Sprintf("%g", k.Bits)})
		}
		return []Table{t}, nil
	case "engines", "engine":
		return c.engineTables()
	case "interconnects", "interconnect", "links":
		t := Table{Header: []string{"ID", "NAME", "GB/s ONE WAY", "ALL-REDUCE LATENCY µs"}}
		for _, l := range c.Interconnects {
			t.Rows = append(t.Rows, []string{l.ID, l.Name, fmt.Sprintf("%g", l.LinkGBps), fmt.Sprintf("%g", l.AllReduceLatencyUs)})
		}
		return []Table{t}, nil
	case "prices", "price":
		t, err := priceTable()
		return []Table{t}, err
	}
	return nil, fmt.Errorf("--list %q: choose gpus, models, quants, kv-dtypes, engines, interconnects or prices", what)
}

func (c *Catalog) gpuTable() Table {
	t := Table{Header: []string{"ID", "NAME", "MEMORY GiB", "CUDA SEES GiB", "BANDWIDTH GB/s", "FP16 TFLOPS", "FP8 TFLOPS", "INT8 TOPS"}}
	for _, g := range c.GPUs {
		seen := "—"
		if g.CUDATotalGiB > 0 {
			seen = fmt.Sprint(g.CUDATotalGiB)
		}
		t.Rows = append(t.Rows, []string{g.ID, g.Name, fmt.Sprintf("%g", g.VRAMGiB), seen, fmt.Sprintf("%g", g.BandwidthGBps),
			fmt.Sprintf("%g", g.FP16TFLOPS), fmt.Sprintf("%g", g.FP8TFLOPS), fmt.Sprintf("%g", g.INT8TOPS)})
	}
	return t
}

func (c *Catalog) modelTable() Table {
	t := Table{Header: []string{"ID", "NAME", "PARAMS B", "ACTIVE B", "LAYERS", "HIDDEN", "HEADS/KV", "HEAD DIM", "ATTENTION"}}
	for _, m := range c.Models {
		active := "-"
		if m.ActiveParamsB > 0 {
			active = fmt.Sprintf("%g", m.ActiveParamsB)
		}
		t.Rows = append(t.Rows, []string{m.ID, m.Name, fmt.Sprintf("%g", m.ParamsB), active, fmt.Sprint(m.Layers), fmt.Sprint(m.Hidden),
			fmt.Sprintf("%d/%d", m.Heads, m.KVHeads), fmt.Sprint(m.HeadDim), m.Attention})
	}
	return t
}

// engineTables are each engine, its families and what it runs, then what each dated
// era assumes on NVIDIA GPUs.
func (c *Catalog) engineTables() ([]Table, error) {
	engines := Table{Header: []string{"ID", "ALSO", "FAMILIES", "RUNS"}}
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
		engines.Rows = append(engines.Rows, []string{e.ID, strings.Join(e.Aliases, ", "), strings.Join(fams, " "), runs})
	}
	eras, err := c.eraTable()
	return []Table{engines, eras}, err
}

// eraTable is each engine's current era and dated builds, with the factors family
// each is predicted with and how much longer its own work takes.
func (c *Catalog) eraTable() (Table, error) {
	t := Table{Header: []string{"ENGINE", "ERA (--engine-version)", "DATE", "NVIDIA FACTORS", "OWN WORK TAKES"},
		Note: "A build is predicted from its date: a generation with factors of its own (family@year) uses them; otherwise the family's factors, whose own work (GEMMs, attention, per-step overheads) takes 1 + the fitted slowdown per year × the build's age as long. Builds newer than the evidence get the factors as they are. Each dated build's source is in engines.json."}
	for _, e := range c.Engines {
		eff, _, err := c.EraEfficiency(e, "nvidia", "")
		if err != nil {
			return t, err
		}
		t.Rows = append(t.Rows, []string{e.ID, "current (default)", eff.EvidenceThrough, e.Family("nvidia"), "1.00×"})
		for _, era := range e.Eras {
			name, date := era.Version, era.Date
			if name == "" {
				name, date = "before "+era.Before, prevMonth(era.Before)
			}
			_, ch, err := c.EraEfficiency(e, "nvidia", date)
			if err != nil {
				return t, err
			}
			t.Rows = append(t.Rows, []string{e.ID, name, date, ch.Family, fmt.Sprintf("%.2f×", ch.Slowdown)})
		}
	}
	return t, nil
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

// priceTable is the dated price catalog with its sources.
func priceTable() (Table, error) {
	t := Table{Header: []string{"ID", "GPUS", "USD/GPU-HOUR", "BILLING", "DATE", "PROVIDER · OFFER", "SOURCE"},
		Note: "Public list prices, for reference; they go stale. A date marked (read) is when an undated page was read. Give your machine's own price with: llmbench run --price-per-hour USD"}
	ec, err := LoadEnergy()
	if err != nil {
		return t, err
	}
	for _, p := range ec.Prices {
		date := p.Date
		if p.DateKind == "read" {
			date += " (read)"
		}
		t.Rows = append(t.Rows, []string{p.ID, strings.Join(p.GPUs, ","), fmt.Sprintf("%g", p.USDPerGPUHour), p.Billing, date,
			p.Provider + " · " + p.Offer, p.Source + " (" + p.SourceKind + ")"})
	}
	return t, nil
}
