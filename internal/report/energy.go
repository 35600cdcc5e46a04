package report

import (
	"math"
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Energy in the reports: three columns of All measurements (power, J/token, $/Mtok)
// when any row has one, the Energy card, notes saying what was metered and at what
// price, the per-cell energy notes (why a figure is missing, clock events,
// utilization), and the html page's J/token chart. A run without telemetry or price
// (the seed) renders exactly as before.

// energyColumns are the label keys of the energy columns, in order.
var energyColumns = []string{"power_w", "j_per_token", "usd_per_mtok"}

// hasEnergy says whether any row of the run carries an energy or cost figure.
func hasEnergy(run *rundoc.Run) bool {
	for _, p := range run.Prefill {
		if p.PrefillEnergy != nil && (p.PrefillEnergy.PowerWMean != nil || p.JoulesPerPromptToken != nil) {
			return true
		}
	}
	for _, c := range run.Decode {
		if e := c.CellEnergy; e != nil && (e.PowerWMean != nil || e.JoulesPerToken != nil || e.USDPerMTok != nil) {
			return true
		}
	}
	return false
}

// energyCells formats a row's power, J/token and $/Mtok, with their raw values (NaN
// where there is none) for sorting.
func energyCells(lang string, power, jPerToken, usd *float64) ([]string, []float64) {
	cells := []string{dash, dash, dash}
	raw := []float64{math.NaN(), math.NaN(), math.NaN()}
	if power != nil {
		cells[0], raw[0] = FormatNumber(lang, *power, 0), *power
	}
	if jPerToken != nil {
		cells[1], raw[1] = FormatNumber(lang, *jPerToken, jDecimals(*jPerToken)), *jPerToken
	}
	if usd != nil {
		d := 2
		if *usd < 1 {
			d = 3
		}
		cells[2], raw[2] = FormatNumber(lang, *usd, d), *usd
	}
	return cells, raw
}

// jDecimals keeps three significant digits of small energies (0.0501 J per prompt
// token) without writing large ones to a thousandth.
func jDecimals(j float64) int {
	switch {
	case j < 0.01:
		return 5
	case j < 0.1:
		return 4
	case j < 100:
		return 3
	}
	return 1
}

func prefillEnergyCells(lang string, p rundoc.PrefillRow) ([]string, []float64) {
	if p.PrefillEnergy == nil || p.Status == rundoc.StatusOverCapacity {
		return energyCells(lang, nil, nil, nil)
	}
	return energyCells(lang, p.PrefillEnergy.PowerWMean, p.JoulesPerPromptToken, nil)
}

func decodeEnergyCells(lang string, c *rundoc.DecodeCell) ([]string, []float64) {
	e := c.CellEnergy
	if e == nil || c.Status == rundoc.StatusOverCapacity {
		return energyCells(lang, nil, nil, nil)
	}
	return energyCells(lang, e.PowerWMean, e.JoulesPerToken, e.USDPerMTok)
}

// CellEnergyText is a decode cell's power (W), J/token and $/Mtok as the reports
// write them, "—" for each it lacks: for pages that show energy beside their own
// tables (the site's calculator).
func CellEnergyText(lang string, c *rundoc.DecodeCell) (powerW, jPerToken, usdPerMTok string) {
	cells, _ := decodeEnergyCells(lang, c)
	return cells[0], cells[1], cells[2]
}

// energyInfo is what a cell's energy block adds to its notes: why a figure is missing,
// the clock events seen, utilization and memory, the peak power.
func energyInfo(lang string, e *rundoc.CellEnergy) []string {
	if e == nil {
		return nil
	}
	var out []string
	if e.Reason != "" && e.Reason != "no telemetry" {
		out = append(out, locale.T(lang, "n_energy_reason", locale.SentenceIn(lang, e.Reason)))
	}
	if e.PowerWMax != nil && e.PowerWMean != nil {
		out = append(out, locale.T(lang, "n_power", FormatNumber(lang, *e.PowerWMean, 0), FormatNumber(lang, *e.PowerWMax, 0)))
	}
	if e.GPUUtilMean != nil {
		mem := dash
		if e.GPUMemUsedMiB != nil {
			mem = FormatNumber(lang, *e.GPUMemUsedMiB, 0)
		}
		out = append(out, locale.T(lang, "n_gpu_util", FormatNumber(lang, *e.GPUUtilMean, 0)+"%", mem))
	}
	if len(e.Throttle) > 0 {
		out = append(out, locale.T(lang, "n_throttle", strings.Join(e.Throttle, ", ")))
	}
	if e.Method == rundoc.MethodEstimate {
		out = append(out, locale.T(lang, "n_estimate"))
	}
	return out
}

// energyCard is the run's Energy card: what was metered, and the price.
func energyCard(run *rundoc.Run, lang string) (card, bool) {
	e := run.Energy
	if e == nil {
		return card{}, false
	}
	c := card{Title: locale.T(lang, "energy_card")}
	tel := e.Telemetry
	if e.Reason != "" {
		tel += " (" + locale.SentenceIn(lang, e.Reason) + ")"
	}
	c.Fields = append(c.Fields, field{locale.T(lang, "telemetry"), tel})
	if e.Price != nil {
		c.Fields = append(c.Fields, field{locale.T(lang, "price"), priceLine(lang, e.Price)})
	}
	return c, true
}

func priceLine(lang string, p *rundoc.Price) string {
	s := locale.T(lang, "usd_per_hour", FormatNumber(lang, p.USDPerHour, 2))
	if p.Date != "" {
		s += " · " + p.Date
	}
	return s
}

// energyNotes say, for every format, what the watts cover and where the price comes from.
func energyNotes(run *rundoc.Run, lang string) []string {
	e := run.Energy
	if e == nil {
		return nil
	}
	var out []string
	switch {
	case e.Counted != "":
		out = append(out, locale.T(lang, "note_power", e.Telemetry, e.Counted))
	case e.Reason != "" && run.Kind() != rundoc.RunPredicted:
		out = append(out, locale.T(lang, "note_no_telemetry", locale.SentenceIn(lang, e.Reason)))
	}
	if p := e.Price; p != nil {
		src := p.Source
		if p.Note != "" {
			src += "; " + priceNoteIn(lang, p.Note)
		}
		out = append(out, locale.T(lang, "note_price", FormatNumber(lang, p.USDPerHour, 2), cmpOr(p.Date, dash), src))
	}
	out = append(out, e.Notes...)
	out = append(out, missingEnergy(run, lang)...)
	if hasEnergy(run) {
		out = append(out, locale.T(lang, "note_energy_columns"))
	}
	return out
}

// energyChart draws J/token against concurrency, one line per context, when any cell
// has it.
func energyChart(run *rundoc.Run, v *view) (lineChart, bool) {
	c := decodeChartBy(run, v, "lb-chart-energy", "chart_energy", "axis_energy", func(cell *rundoc.DecodeCell) (float64, bool) {
		if cell.CellEnergy == nil || cell.JoulesPerToken == nil {
			return 0, false
		}
		return *cell.JoulesPerToken, true
	}, func(y float64) string { return FormatNumber(v.Lang, y, jDecimals(y)) + " J/token" })
	return c, len(c.Series) > 0
}

// missingEnergy says, reason by reason, which rows have no energy figure and why (the
// run-level "no telemetry" aside, which the power note covers).
func missingEnergy(run *rundoc.Run, lang string) []string {
	var order []string
	where := map[string][]string{}
	add := func(reason, at string) {
		if reason == "" || reason == "no telemetry" {
			return
		}
		if _, ok := where[reason]; !ok {
			order = append(order, reason)
		}
		where[reason] = append(where[reason], at)
	}
	for _, p := range run.Prefill {
		if p.PrefillEnergy != nil && p.PrefillEnergy.EnergyJ == nil {
			add(p.PrefillEnergy.Reason, locale.T(lang, "phase_prefill")+" "+rundoc.FormatTokens(p.Context))
		}
	}
	for _, c := range run.Decode {
		if c.CellEnergy != nil && c.CellEnergy.EnergyJ == nil && c.CellEnergy.Method != rundoc.MethodEstimate {
			add(c.CellEnergy.Reason, rundoc.FormatTokens(c.Context)+" × "+strconv.Itoa(c.Concurrency))
		}
	}
	var out []string
	for _, r := range order {
		out = append(out, locale.T(lang, "note_energy_missing", strings.Join(where[r], ", "), locale.SentenceIn(lang, r)))
	}
	return out
}
