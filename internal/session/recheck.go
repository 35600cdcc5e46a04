package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"reflect"
	"slices"
	"sort"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/measure"
	"github.com/llmbench/llmbench/internal/openloop"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// Recheck is a run document re-scored from its events log: how many of its
// measurements the log re-scored, where the re-score differs from the document (none
// when every figure follows from what was seen), and the document with the re-scored
// measurements in place (for a log re-scored by a newer llmbench).
type Recheck struct {
	Prefill, Decode, Rate int
	Differences           []string
	Rescored              *rundoc.Run
}

// RecheckRun re-scores doc's prefill rows, decode cells and rate cells from the events
// log, read once, with each load shape's own scoring — the live run's functions — and
// compares them with doc field by field. A measurement doc has as scored (valid or
// invalid) that the log cannot re-score is a difference too, so that an empty log
// never passes.
func RecheckRun(doc *rundoc.Run, events []byte) (*Recheck, error) {
	log, err := measure.ReadLog(bytes.NewReader(events))
	if err != nil {
		return nil, err
	}
	all, err := bench.RescoreLog(log)
	if err != nil {
		return nil, err
	}
	rates, err := openloop.RescoreLog(log)
	if err != nil {
		return nil, err
	}
	out, err := cloneRun(doc)
	if err != nil {
		return nil, err
	}
	rc := &Recheck{Rescored: out, Prefill: len(all.Prefill), Decode: len(all.Decode), Rate: len(rates)}
	rc.comparePrefill(out, all.Prefill)
	rc.compareDecode(out, all.Decode)
	rc.compareRate(out, rates)
	return rc, nil
}

func (rc *Recheck) comparePrefill(doc *rundoc.Run, rows []rundoc.PrefillRow) {
	seen := map[int]bool{}
	for _, row := range rows {
		seen[row.Context] = true
		i := slices.IndexFunc(doc.Prefill, func(p rundoc.PrefillRow) bool { return p.Context == row.Context })
		name := "prefill " + rundoc.FormatTokens(row.Context)
		if i < 0 {
			rc.Differences = append(rc.Differences, name+": in the log, not in the document")
			continue
		}
		rc.Differences = append(rc.Differences, diffJSON(name, doc.Prefill[i], row)...)
		doc.Prefill[i] = row
	}
	for _, row := range doc.Prefill {
		if scored(row.Status) && !seen[row.Context] {
			rc.Differences = append(rc.Differences, fmt.Sprintf("prefill %s (%s): not in the log", rundoc.FormatTokens(row.Context), row.Status))
		}
	}
}

func (rc *Recheck) compareDecode(doc *rundoc.Run, cells []rundoc.DecodeCell) {
	seen := map[[2]int]bool{}
	for _, c := range cells {
		seen[[2]int{c.Context, c.Concurrency}] = true
		name := fmt.Sprintf("decode %s × %d", rundoc.FormatTokens(c.Context), c.Concurrency)
		d := doc.Cell(c.Context, c.Concurrency)
		if d == nil {
			rc.Differences = append(rc.Differences, name+": in the log, not in the document")
			continue
		}
		rc.Differences = append(rc.Differences, diffJSON(name, *d, c)...)
		*d = c
	}
	for _, c := range doc.Decode {
		if scored(c.Status) && !seen[[2]int{c.Context, c.Concurrency}] {
			rc.Differences = append(rc.Differences, fmt.Sprintf("decode %s × %d (%s): not in the log", rundoc.FormatTokens(c.Context), c.Concurrency, c.Status))
		}
	}
}

// compareRate pairs rate cells by number: cell n is the document's rate[n-1].
func (rc *Recheck) compareRate(doc *rundoc.Run, cells map[int]rundoc.RateCell) {
	for _, n := range slices.Sorted(maps.Keys(cells)) {
		c := cells[n]
		name := fmt.Sprintf("rate %s req/s", c.RateRPS)
		if n < 1 || n > len(doc.Rate) {
			rc.Differences = append(rc.Differences, name+": in the log, not in the document")
			continue
		}
		rc.Differences = append(rc.Differences, diffJSON(name, doc.Rate[n-1], c)...)
		doc.Rate[n-1] = c
	}
	for i, c := range doc.Rate {
		if _, ok := cells[i+1]; scored(c.Status) && !ok {
			rc.Differences = append(rc.Differences, fmt.Sprintf("rate %s req/s (%s): not in the log", c.RateRPS, c.Status))
		}
	}
}

func scored(s rundoc.Status) bool { return s == rundoc.StatusValid || s == rundoc.StatusInvalid }

func cloneRun(doc *rundoc.Run) (*rundoc.Run, error) {
	b, err := json.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("copying the run document: %w", err)
	}
	var out rundoc.Run
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("copying the run document: %w", err)
	}
	return &out, nil
}

// diffJSON lists the fields where a and b differ as the document writes them
// ("decode 0 × 1: total_tok_s: 47.7 in the document, 47.8 re-scored").
func diffJSON(name string, a, b any) []string {
	var va, vb any
	if err := roundTrip(a, &va); err != nil {
		return []string{name + ": " + err.Error()}
	}
	if err := roundTrip(b, &vb); err != nil {
		return []string{name + ": " + err.Error()}
	}
	var out []string
	walkDiff(name+":", va, vb, &out)
	return out
}

func roundTrip(v any, out *any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, out)
}

func walkDiff(path string, a, b any, out *[]string) {
	ma, okA := a.(map[string]any)
	mb, okB := b.(map[string]any)
	if okA && okB {
		keys := map[string]bool{}
		for k := range ma {
			keys[k] = true
		}
		for k := range mb {
			keys[k] = true
		}
		sorted := make([]string, 0, len(keys))
		for k := range keys {
			sorted = append(sorted, k)
		}
		sort.Strings(sorted)
		for _, k := range sorted {
			walkDiff(path+" "+k, ma[k], mb[k], out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, fmt.Sprintf("%s %s in the document, %s re-scored", path, short(a), short(b)))
	}
}

func short(v any) string {
	if v == nil {
		return "absent"
	}
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:77]) + "…"
	}
	return string(b)
}
