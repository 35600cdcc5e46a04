package perf

import (
	"fmt"
	"strconv"
	"strings"
)

// Era is one dated build of an engine: a release or build number the evidence or a
// public log dates, or a span of builds old enough to have factors of their own.
type Era struct {
	// Version is the release ("0.10.1") or build ("b6609") the date belongs to; empty
	// for a span given only by dates.
	Version string `json:"version,omitempty"`
	// Date is when the build was current, "YYYY-MM".
	Date string `json:"date,omitempty"`
	// Before marks a span: builds dated before it ("YYYY-MM") are predicted with the
	// factors of family@Generation where the fit has them.
	Before     string `json:"before,omitempty"`
	Generation string `json:"generation,omitempty"`
	Source     string `json:"source"`
}

// EraChoice is what an --engine-version resolved to: the build's date, and the factors
// family that predicts it.
type EraChoice struct {
	// Asked is the version as given; Date the build's date ("" is the current era).
	Asked, Date string
	// Version is the dated build the date comes from ("" when Asked was a date).
	Version string
	// Family is the efficiency family whose factors apply; Aged says they are aged
	// from their evidence date to Date by the shared slowdown.
	Family string
	Aged   bool
	// Slowdown is how many times as long the engine's own work takes as in the
	// family's newest evidence (1 for the current era).
	Slowdown float64
}

// versionKey turns a release ("0.10.1", "v0.6.6") or a llama.cpp build ("b6609",
// "6609") into numbers that compare in release order.
func versionKey(v string) ([]int, bool) {
	v = strings.TrimPrefix(strings.TrimPrefix(strings.ToLower(strings.TrimSpace(v)), "v"), "b")
	if v == "" {
		return nil, false
	}
	var out []int
	for _, p := range strings.Split(v, ".") {
		n, err := strconv.Atoi(p)
		if err != nil || n < 0 {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

func compareVersions(a, b []int) int {
	for i := range max(len(a), len(b)) {
		x, y := 0, 0
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			if x < y {
				return -1
			}
			return 1
		}
	}
	return 0
}

// EraDate is the date of a version of the engine: version itself when it is a date
// ("2024-05"), else the date of the newest dated build at or before it. A version
// older than every dated build is an error that names the oldest.
func (e Engine) EraDate(version string) (date, dated string, err error) {
	if _, err := monthYear(version); err == nil && version != "" {
		return version, "", nil
	}
	key, ok := versionKey(version)
	if !ok {
		return "", "", fmt.Errorf("engine version %q is neither a release (0.10.1), a build (b6609) nor a date (2025-08)", version)
	}
	var best []int
	var oldest string
	for _, era := range e.Eras {
		k, ok := versionKey(era.Version)
		if !ok || era.Date == "" {
			continue
		}
		if oldest == "" {
			oldest = era.Version
		}
		if compareVersions(k, key) <= 0 && (best == nil || compareVersions(k, best) > 0) {
			best, date, dated = k, era.Date, era.Version
		}
	}
	if best == nil {
		if oldest == "" {
			return "", "", fmt.Errorf("%s has no dated builds: give --engine-version as a date (YYYY-MM)", e.Name)
		}
		return "", "", fmt.Errorf("%s %s is older than its oldest dated build (%s): give --engine-version as a date (YYYY-MM)", e.Name, version, oldest)
	}
	return date, dated, nil
}

// generationFor is the generation whose span holds date ("" when none does).
func (e Engine) generationFor(date string) string {
	y, err := monthYear(date)
	if err != nil || y == 0 {
		return ""
	}
	gen, bound := "", 0.0
	for _, era := range e.Eras {
		b, err := monthYear(era.Before)
		if err != nil || b == 0 || era.Generation == "" || y >= b {
			continue
		}
		if gen == "" || b < bound {
			gen, bound = era.Generation, b
		}
	}
	return gen
}

// EraEfficiency is the factors for the engine's given version on a GPU of vendor:
// the family's as fitted for "" (the current era); for an older build, the factors
// of the family's generation holding its date where the fit has them, else the
// family's own aged to the build's date (Efficiency.aged).
func (c *Catalog) EraEfficiency(e Engine, vendor, version string) (Efficiency, EraChoice, error) {
	fam := e.Family(vendor)
	choice := EraChoice{Asked: version, Family: fam, Slowdown: 1}
	if version == "" {
		eff, err := c.Efficiency(fam)
		return eff, choice, err
	}
	date, dated, err := e.EraDate(version)
	if err != nil {
		return Efficiency{}, choice, err
	}
	choice.Date, choice.Version = date, dated
	if gen := e.generationFor(date); gen != "" {
		if eff, err := c.Efficiency(fam + "@" + gen); err == nil {
			choice.Family = fam + "@" + gen
			return c.agedChoice(eff, date, &choice), choice, nil
		}
	}
	eff, err := c.Efficiency(fam)
	if err != nil {
		return Efficiency{}, choice, err
	}
	return c.agedChoice(eff, date, &choice), choice, nil
}

// agedChoice ages eff to date and records by how much.
func (c *Catalog) agedChoice(eff Efficiency, date string, choice *EraChoice) Efficiency {
	y, _ := monthYear(date)
	aged := eff.aged(y)
	if cp := eff.Compute; cp > 0 && aged.Compute > 0 && aged.Compute < cp {
		choice.Aged = true
		choice.Slowdown = cp / aged.Compute
	}
	return aged
}

// Note says which factors an older build is predicted with ("" for the current era).
func (e EraChoice) Note() string {
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
