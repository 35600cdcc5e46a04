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
	kv := s.capacity()
	if doc.Config.Rate != nil {
		if err := NotePlanLimits(doc, info.MaxModelLen); err != nil {
			return err
		}
		openloop.PlanRates(doc)
	} else if err := PlanToFit(doc, kv, info.MaxModelLen, c.Fit, noteWriter{s.obs}); err != nil {
		return err
	}
	if err := DescribeHardware(ctx, doc, c.Hardware, s.base, doc.Status == rundoc.RunEmulated); err != nil {
		return err
	}
	FillTitle(doc, c.Model)
	return nil
}

// capacity records the KV cache size the plan uses (the flag's, or the server's) and
// returns it.
func (s *Session) capacity() *int64 {
	doc, info := s.doc, s.info
	kv := doc.Config.KVCapacity
	doc.Capacity = &rundoc.Capacity{KVCacheTokens: kv, MaxModelLen: info.MaxModelLen, Source: "flag"}
	if kv == nil {
		kv = info.KVCacheTokens
		doc.Capacity.KVCacheTokens, doc.Capacity.Source = kv, "server"
	}
	switch {
	case kv == nil:
		doc.Capacity.Source = "unknown"
		doc.Notes = append(doc.Notes, "The server's KV cache size is unknown (give it with --kv-capacity): every cell was run.")
		s.obs.Note("warning: the server's KV cache size is unknown, so no cell is skipped as over capacity; give it with --kv-capacity")
	case doc.Config.KVCapacity == nil && info.KVCacheTokensIfSplit != nil:
		doc.Notes = append(doc.Notes, fmt.Sprintf("llama.cpp does not say whether its KV cache is unified: the plan took the smaller size, %d tokens; a cache split per slot holds %d (--kv-capacity %d).", *kv, *info.KVCacheTokensIfSplit, *info.KVCacheTokensIfSplit))
	}
	return kv
}
