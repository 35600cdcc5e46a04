package session

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/llmbench/llmbench/internal/bench"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// PlanToFit checks the planned document against the server's limits. A plan with
// nothing the server can run, or mostly over capacity because max_model_len is
// small, stops the run before anything is measured, with the flags that would fit;
// with --fit the plan is shrunk to them instead.
func PlanToFit(doc *rundoc.Run, l rundoc.Limits, fit bool, stderr io.Writer) error {
	bench.Plan(doc, l)
	pf := bench.CheckPlan(doc)
	if !pf.TooSmall() {
		return nil
	}
	fitted, changes := bench.FitPlan(doc.Config, l)
	limits := describeLimits(l)
	if !fit || len(changes) == 0 {
		what := "max_model_len"
		if l.SlotTokens != nil {
			what = "a slot's context"
		}
		msg := fmt.Sprintf("the plan does not fit this server (%s): %d of %d measurements can run, %d are over capacity because context + max output exceeds %s", limits, pf.Runnable, pf.Total, pf.ByLength, what)
		if len(changes) > 0 {
			msg += ".\nFlags that fit it: " + strings.Join(changes, " ") + "\nor run again with --fit to shrink the plan to these"
		}
		return errors.New(msg)
	}
	doc.Config = fitted
	bench.Plan(doc, l)
	note := fmt.Sprintf("--fit shrank the plan to the server (%s): %s.", limits, strings.Join(changes, ", "))
	doc.Notes = append(doc.Notes, note)
	fmt.Fprintln(stderr, note)
	return nil
}

func describeLimits(l rundoc.Limits) string {
	var parts []string
	if l.MaxModelLen != nil {
		parts = append(parts, fmt.Sprintf("max_model_len %d", *l.MaxModelLen))
	}
	if l.Slots != nil && l.SlotTokens != nil {
		parts = append(parts, fmt.Sprintf("%d slots of %d tokens", *l.Slots, *l.SlotTokens))
	}
	if l.KVCacheTokens != nil {
		parts = append(parts, fmt.Sprintf("KV cache %d tokens", *l.KVCacheTokens))
	}
	if len(parts) == 0 {
		return "no known limits"
	}
	return strings.Join(parts, ", ")
}

// NotePlanLimits records where the open-loop plan meets the server's limits: requests
// longer than max_model_len fail (and count against the SLO), so say so up front; a
// plan whose every request would be refused is not run.
func NotePlanLimits(doc *rundoc.Run, maxModelLen *int64) error {
	rc := doc.Config.Rate
	dist, err := rundoc.ParseLenDist(rc.LenDist)
	if err != nil || maxModelLen == nil {
		return nil
	}
	if every := int64(rc.InputLen + rc.OutputLen); dist.Kind == "fixed" && every > *maxModelLen {
		return fmt.Errorf("every request (--input-len %d + --output-len %d = %d tokens) exceeds the server's max_model_len of %d: the server would refuse them all; give lengths that sum to at most %d",
			rc.InputLen, rc.OutputLen, every, *maxModelLen, *maxModelLen)
	}
	longest := int64(rc.InputLen + rc.OutputLen)
	switch dist.Kind {
	case "uniform":
		longest = int64(float64(longest) * (1 + dist.Ratio))
	case "normal":
		longest *= 2
	}
	if longest > *maxModelLen {
		doc.Notes = append(doc.Notes, fmt.Sprintf("Some requests may exceed the server's max_model_len of %d tokens (input + output up to %d with --len-dist %s): the server refuses those, and they count as failed.", *maxModelLen, longest, rc.LenDist))
	}
	return nil
}
