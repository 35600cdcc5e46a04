package capacity

import (
	"math"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds a row's capacity per GPU, per kW and per $/h.

// scale fills the row's figures per GPU (every accelerator of the machine counted),
// per kW and per $/h. Per kW divides by the power measured at that load: the power of
// the column Users stands on, or, for an interpolated Users, the power interpolated on
// log₂ N between the two columns around it; an estimated power (a calc document's)
// does not count, nor does a cell without metered power. Per $/h divides by the price
// the document records for the machine.
func scale(run *rundoc.Run, row *Row) {
	if !row.Answered() {
		return
	}
	users := float64(row.Users)
	if g := GPUs(run); g > 0 {
		row.PerGPU = ptr(users / float64(g))
	}
	if p := run.Energy.PriceOrNil(); p != nil && p.USDPerHour > 0 && !math.IsInf(p.USDPerHour, 0) {
		row.PerUSDHour = ptr(users / p.USDPerHour)
	}
	if w, ok := powerAt(run, *row); ok {
		row.PerKW = ptr(users / (w / 1000))
	}
}

// GPUs is how many accelerators the machine has (0 when the document names none).
func GPUs(run *rundoc.Run) int {
	n := 0
	for _, g := range run.Hardware.GPUs {
		n += max(g.Count, 1)
	}
	return n
}

// powerAt is the metered mean power at the row's Users, in W.
func powerAt(run *rundoc.Run, row Row) (float64, bool) {
	if row.Users == 0 {
		return 0, false
	}
	wa, ok := meteredPower(run.Cell(row.Context, row.Measured))
	if !ok || !row.Interpolated {
		return wa, ok
	}
	wb, ok := meteredPower(run.Cell(row.Context, row.Next))
	if !ok {
		return 0, false
	}
	xa, xb := math.Log2(float64(row.Measured)), math.Log2(float64(row.Next))
	return wa + (wb-wa)*(math.Log2(float64(row.Users))-xa)/(xb-xa), true
}

// meteredPower is a cell's mean power where it was metered (not estimated).
func meteredPower(c *rundoc.DecodeCell) (float64, bool) {
	if c == nil || c.CellEnergy == nil || c.PowerWMean == nil || c.Method == rundoc.MethodEstimate {
		return 0, false
	}
	w := *c.PowerWMean
	return w, w > 0 && finite(w)
}

func ptr[T any](v T) *T { return &v }
