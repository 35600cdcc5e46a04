package session

import (
	"context"
	"fmt"

	"github.com/llmbench/llmbench/internal/openloop"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// plan fills a new document from the probe and plans it against the server's KV
// cache and max_model_len; a resumed one keeps its plan.
func (s *Session) plan(ctx context.Context) error {
	doc, info, c := s.doc, s.info, &s.cfg
	if c.Resume != "" {
		return nil
	}
	FillFromProbe(doc, info, c.Model, s.emulated, s.base)
	if err := planWorkload(doc, info, s.loaded); err != nil {
		return err
	}
	kv := s.capacity()
	if doc.Config.Rate != nil {
		// A workload's requests are its own: --input-len sizes none of them.
		if !workloadSizesOwn(doc.Config.Workload) {
			if err := NotePlanLimits(doc, info.MaxModelLen); err != nil {
				return err
			}
		}
		openloop.PlanRates(doc)
	} else if err := PlanToFit(doc, kv, c.Fit, noteWriter{s.obs}); err != nil {
		return err
	}
	if err := DescribeHardware(ctx, doc, c.Hardware, s.base, doc.Status == rundoc.RunEmulated); err != nil {
		return err
	}
	FillTitle(doc)
	return nil
}

// capacity records the over-capacity rule's numbers (the flag's KV cache size, or
// the server's; its slots where it runs requests in slots) and returns them.
func (s *Session) capacity() rundoc.Limits {
	doc, info := s.doc, s.info
	kv := doc.Config.KVCapacity
	c := &rundoc.Capacity{KVCacheTokens: kv, MaxModelLen: info.MaxModelLen, Source: "flag"}
	if kv == nil {
		kv = info.KVCacheTokens
		c.KVCacheTokens, c.Source = kv, "server"
	}
	if info.Slots != nil && info.MaxModelLen != nil {
		c.Slots, c.SlotTokens = info.Slots, info.MaxModelLen
	}
	doc.Capacity = c
	switch {
	case kv == nil && c.Slots != nil:
		doc.Notes = append(doc.Notes, fmt.Sprintf("The server runs %d slots of %d tokens: each request must fit one slot, and requests beyond %d wait for one (queueing, not over capacity). It does not say whether the slots share one KV cache (llama-server --kv-unified, the default without -np); if they do, give its size with --kv-capacity so that cells that would overflow it are not sent.", *c.Slots, *c.SlotTokens, *c.Slots))
	case kv == nil:
		c.Source = "unknown"
		doc.Notes = append(doc.Notes, "The server's KV cache size is unknown (give it with --kv-capacity): every cell was run.")
		s.obs.Note("warning: the server's KV cache size is unknown, so no cell is skipped as over capacity; give it with --kv-capacity")
	}
	return c.Limits()
}
