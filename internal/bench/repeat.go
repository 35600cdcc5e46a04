package bench

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/stats"
)

// repeatOf is what a scored cell keeps of itself as a repeat.
func repeatOf(c rundoc.DecodeCell) rundoc.CellRepeat {
	r := rundoc.CellRepeat{Status: c.Status, Reason: c.Reason, DecodeFigures: c.DecodeFigures,
		WindowStats: c.WindowStats, CellDetail: c.CellDetail, CellEnergy: c.CellEnergy}
	if ci := c.CellIntervals; ci != nil {
		r.TotalTokSCI, r.TTFTMsCI, r.TBTMsCI = ci.TotalTokSCI, ci.TTFTMsCI, ci.TBTMsCI
	}
	return r
}

// MergeRepeat adds a newly scored repeat to a cell's earlier ones (prev.Repeats).
// The cell becomes its published repeat — the valid repeat with the median
// total_tok_s (the slower of the middle two for an even count), whole, so that its
// figures, counts and energy stay one measurement's — named with why, every repeat
// kept in the order it ran, and the unstable flag where two repeats' own intervals do
// not overlap. Each headline figure's interval spans two repeats' own intervals
// (repeatIntervals), or is the t interval over three or more. Pure.
func MergeRepeat(prev, scored rundoc.DecodeCell) rundoc.DecodeCell {
	var repeats []rundoc.CellRepeat
	if prev.CellIntervals != nil {
		repeats = slices.Clone(prev.Repeats)
	}
	repeats = append(repeats, repeatOf(scored))
	valid := validRepeats(repeats)
	out := scored // no valid repeat: the cell is the latest, as it failed
	if len(valid) > 0 {
		at := valid[(len(valid)-1)/2]
		m := &repeats[at]
		out = rundoc.DecodeCell{Context: scored.Context, Concurrency: scored.Concurrency, Status: m.Status, Reason: m.Reason,
			DecodeFigures: m.DecodeFigures, WindowStats: m.WindowStats, CellDetail: m.CellDetail, CellEnergy: m.CellEnergy}
		out.CellIntervals = &rundoc.CellIntervals{TotalTokSCI: m.TotalTokSCI, TTFTMsCI: m.TTFTMsCI, TBTMsCI: m.TBTMsCI, CIMethod: rundoc.CIMethodWindow,
			PublishedRepeat: at + 1, PublishedWhy: publishedWhy(len(valid))}
	}
	ci := out.CellIntervals
	if ci == nil {
		ci = &rundoc.CellIntervals{}
	}
	ci.Repeats = repeats
	if len(valid) >= 2 {
		repeatIntervals(ci, out.DecodeFigures, valid)
	}
	out.CellIntervals = ci
	if ci.Unstable && out.CellDetail != nil {
		d := *out.CellDetail
		d.Flags = slices.Clone(d.Flags)
		addFlag(&d, "unstable")
		out.CellDetail = &d
	}
	return out
}

// publishedWhy is why the repeat published of n valid ones is the one it is.
func publishedWhy(n int) string {
	switch {
	case n == 1:
		return rundoc.PublishedOnlyValid
	case n%2 == 0:
		return rundoc.PublishedSlowerMid
	}
	return rundoc.PublishedMedian
}

// repeatIntervals sets a cell's intervals from its valid repeats (ci holds the
// published repeat's own, fig its figures), each figure's by overValid.
func repeatIntervals(ci *rundoc.CellIntervals, fig *rundoc.DecodeFigures, valid []int) {
	repeats, own := ci.Repeats, *ci // own: the published repeat's intervals
	figure := func(value func(*rundoc.CellRepeat) float64, iv func(*rundoc.CellRepeat) *stats.Interval, published float64, pubOwn *stats.Interval, decimals int) *stats.Interval {
		v, o := make([]float64, len(valid)), make([]*stats.Interval, len(valid))
		for i, j := range valid {
			v[i], o[i] = value(&repeats[j]), iv(&repeats[j])
		}
		return overValid(v, o, published, pubOwn, decimals)
	}
	ci.CIMethod = repeatsMethod(len(valid))
	ci.TotalTokSCI = figure(func(r *rundoc.CellRepeat) float64 { return r.TotalTokS }, func(r *rundoc.CellRepeat) *stats.Interval { return r.TotalTokSCI }, fig.TotalTokS, own.TotalTokSCI, 2)
	ci.TTFTMsCI = figure(func(r *rundoc.CellRepeat) float64 { return r.TTFTMs }, func(r *rundoc.CellRepeat) *stats.Interval { return r.TTFTMsCI }, fig.TTFTMs, own.TTFTMsCI, 1)
	ci.TBTMsCI = figure(func(r *rundoc.CellRepeat) float64 { return r.TBTMs }, func(r *rundoc.CellRepeat) *stats.Interval { return r.TBTMsCI }, fig.TBTMs, own.TBTMsCI, 2)
	ci.Unstable = disagree(repeats, valid)
}

// repeatsMethod is how n ≥ 2 valid repeats' intervals are computed (overValid).
func repeatsMethod(n int) string {
	if n == 2 {
		return rundoc.CIMethodTwoRepeats
	}
	return rundoc.CIMethodRepeats
}

// overValid is one figure's interval over n ≥ 2 valid repeats, for a decode cell and
// a prefill row alike: v their values and own their own intervals (nil where a
// repeat has none: a prefill row's one cold request never has one), published the
// published repeat's value and pubOwn its own interval. Two repeats span their own
// intervals (spanOwn; none where either has none): t with one degree of freedom is
// 12.7 standard errors either side, an interval as wide as [0, 590] tok/s that tells
// a reader nothing, while each repeat's window already measured its own noise. Three
// or more give the t interval over their values (overRepeats).
func overValid(v []float64, own []*stats.Interval, published float64, pubOwn *stats.Interval, decimals int) *stats.Interval {
	if len(v) == 2 {
		return spanOwn(own[0], own[1], published, decimals)
	}
	return overRepeats(v, published, pubOwn, decimals)
}

// spanOwn is the span of two repeats' own intervals, widened to hold the published
// value; nil where either repeat had none.
func spanOwn(a, b *stats.Interval, published float64, decimals int) *stats.Interval {
	if a == nil || b == nil {
		return nil
	}
	iv := stats.Interval{Low: min(a.Low, b.Low, published), High: max(a.High, b.High, published)}
	return stats.RoundedCI(iv, decimals, 0)
}

// validRepeats are the indexes of the valid repeats, by ascending total_tok_s.
func validRepeats(repeats []rundoc.CellRepeat) []int {
	var idx []int
	for i := range repeats {
		if repeats[i].Status == rundoc.StatusValid && repeats[i].DecodeFigures != nil {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(repeats[a].TotalTokS, repeats[b].TotalTokS) })
	return idx
}

// overRepeats is the t interval over the repeats' values (n − 1 degrees of freedom),
// widened to hold the published value (the median repeat's) and that repeat's own
// interval, when it has one: the published figure is one measurement, so it is never
// surer than its window was (two repeats that happen to agree have an sd of 0).
func overRepeats(v []float64, published float64, own *stats.Interval, decimals int) *stats.Interval {
	mean, sd := stats.MeanSD(v)
	h := stats.TQuantile(len(v)-1) * sd / math.Sqrt(float64(len(v)))
	iv := stats.Interval{Low: min(mean-h, published), High: max(mean+h, published)}
	if own != nil {
		iv.Low, iv.High = min(iv.Low, own.Low), max(iv.High, own.High)
	}
	return stats.RoundedCI(iv, decimals, 0)
}

// disagree reports whether two valid repeats' own intervals (rate or TBT) do not
// overlap: the server changed speed between them by more than either saw of noise.
func disagree(repeats []rundoc.CellRepeat, valid []int) bool {
	for a := 0; a < len(valid); a++ {
		for b := a + 1; b < len(valid); b++ {
			x, y := &repeats[valid[a]], &repeats[valid[b]]
			if apart(x.TotalTokSCI, y.TotalTokSCI) || apart(x.TBTMsCI, y.TBTMsCI) {
				return true
			}
		}
	}
	return false
}

func apart(a, b *stats.Interval) bool { return a != nil && b != nil && !a.Overlaps(*b) }

// MergePrefillRepeat adds a newly scored repeat to a prefill row's earlier ones: the
// row becomes its published repeat — the valid repeat with the median prompt_tok_s
// (the slower of the middle two for an even count), whole — named with why, and its
// intervals are the decode cells' rule over the valid repeats (overValid): none for
// two (a cold request has no interval of its own to span), the t interval over three
// or more. Pure.
func MergePrefillRepeat(prev, scored rundoc.PrefillRow) rundoc.PrefillRow {
	var repeats []rundoc.PrefillRepeat
	if prev.PrefillIntervals != nil {
		repeats = slices.Clone(prev.Repeats)
	}
	repeats = append(repeats, rundoc.PrefillRepeat{Status: scored.Status, Reason: scored.Reason,
		PrefillFigures: scored.PrefillFigures, PrefillEnergy: scored.PrefillEnergy})
	var valid []int
	for i := range repeats {
		if repeats[i].Status == rundoc.StatusValid && repeats[i].PrefillFigures != nil {
			valid = append(valid, i)
		}
	}
	slices.SortStableFunc(valid, func(a, b int) int { return cmp.Compare(repeats[a].PromptTokS, repeats[b].PromptTokS) })
	out := scored
	pi := &rundoc.PrefillIntervals{Repeats: repeats}
	if len(valid) > 0 {
		at := valid[(len(valid)-1)/2]
		m := &repeats[at]
		out = rundoc.PrefillRow{Context: scored.Context, Status: m.Status, Reason: m.Reason, PrefillFigures: m.PrefillFigures, PrefillEnergy: m.PrefillEnergy}
		pi.PublishedRepeat, pi.PublishedWhy = at+1, publishedWhy(len(valid))
	}
	if len(valid) >= 2 {
		pi.CIMethod = repeatsMethod(len(valid))
		v, t := make([]float64, len(valid)), make([]float64, len(valid))
		for i, j := range valid {
			v[i], t[i] = repeats[j].PromptTokS, repeats[j].TTFTMs
		}
		none := make([]*stats.Interval, len(valid))
		pi.PromptTokSCI = overValid(v, none, out.PromptTokS, nil, 1)
		pi.TTFTMsCI = overValid(t, none, out.TTFTMs, nil, 0)
	}
	out.PrefillIntervals = pi
	return out
}

// repeats is how many times the plan runs (--repeat; 1 without it).
func (o *orchestration) repeats() int { return max(o.doc.Config.Repeat, 1) }

// repeatIndex numbers the repeat in progress from 1 for the events log; 0 without
// --repeat, so that a log without repeats reads as before.
func (o *orchestration) repeatIndex() int {
	if o.repeats() == 1 {
		return 0
	}
	return o.rep + 1
}

func (o *orchestration) repeatLabel() string {
	if o.repeats() == 1 {
		return ""
	}
	return fmt.Sprintf(" (repeat %d/%d)", o.rep+1, o.repeats())
}

// cellLeft is how many measurements a cell still needs; cellPending whether it needs
// one in the repeat in progress (each repeat measures a cell once, in plan order).
// prefillLeft and prefillPending are a prefill row's.
func (o *orchestration) cellLeft(c *rundoc.DecodeCell) int {
	if c.CellIntervals == nil {
		return o.stillNeeded(c.Status, 0)
	}
	return o.stillNeeded(c.Status, len(c.Repeats))
}

func (o *orchestration) prefillLeft(p *rundoc.PrefillRow) int {
	if p.PrefillIntervals == nil {
		return o.stillNeeded(p.Status, 0)
	}
	return o.stillNeeded(p.Status, len(p.Repeats))
}

func (o *orchestration) cellPending(c *rundoc.DecodeCell) bool { return o.pending(o.cellLeft(c)) }

func (o *orchestration) prefillPending(p *rundoc.PrefillRow) bool { return o.pending(o.prefillLeft(p)) }

// stillNeeded is how many measurements a cell or row of status, with have repeats
// measured, still needs: without --repeat, one unless it is done.
func (o *orchestration) stillNeeded(status rundoc.Status, have int) int {
	switch {
	case o.repeats() == 1 && measure.StatusDone(status):
		return 0
	case o.repeats() == 1:
		return 1
	case status == rundoc.StatusOverCapacity || status == rundoc.StatusPredicted:
		return 0
	}
	return max(o.repeats()-have, 0)
}

// pending says a cell or row that still needs left measurements needs one in the
// repeat in progress.
func (o *orchestration) pending(left int) bool {
	return left > 0 && o.repeats()-left <= o.rep
}

// addRepeatNote says in the document's notes how a --repeat run was measured and
// which cells came out unstable (once: a resumed run replaces its note).
func addRepeatNote(doc *rundoc.Run) {
	n := doc.Config.Repeat
	if n <= 1 {
		return
	}
	doc.Notes = slices.DeleteFunc(doc.Notes, rundoc.IsRepeatNote)
	note := rundoc.RepeatNote{Repeats: n}
	for i := range doc.Decode {
		if c := &doc.Decode[i]; c.CellIntervals != nil && c.Unstable {
			note.Unstable = append(note.Unstable, fmt.Sprintf("%s × %d", rundoc.FormatTokens(c.Context), c.Concurrency))
		}
	}
	doc.Notes = append(doc.Notes, note.String())
}
