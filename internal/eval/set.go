package eval

import (
	"context"
	"fmt"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Item is one question of a set: the record it starts as, and the user message that
// asks it.
type Item struct {
	rundoc.EvalItem
	Prompt string
}

// Set is an evaluation set: what names it in a run document, and its items in order.
type Set struct {
	Info  rundoc.EvalSet
	Items []Item
}

// Built-in set names.
const (
	GSM8K    = "gsm8k"
	MMLUPro  = "mmlu-pro"
	maxItems = 20000 // rundoc's bound on one entry
)

// Names lists the built-in sets.
func Names() []string { return []string{GSM8K, MMLUPro} }

// Load returns the set name names: a built-in one (downloaded into the cache on first
// use) or a custom JSONL file.
func Load(ctx context.Context, name string, c Cache) (*Set, error) {
	switch name {
	case GSM8K:
		return loadGSM8K(ctx, c)
	case MMLUPro:
		return loadMMLUPro(ctx, c)
	}
	if strings.HasSuffix(name, ".jsonl") {
		return loadCustom(name)
	}
	return nil, fmt.Errorf("unknown set %q: choose %s, or a .jsonl file of your own", name, strings.Join(Names(), ", "))
}

// Limit is the set cut to n items evenly spread over it (item ⌊(i + ½)·len/n⌋ for
// i = 0 … n−1): the same items every time, from every part of the set. n ≤ 0 or n ≥
// the set's size keeps every item.
func (s *Set) Limit(n int) []Item {
	all := s.Items
	if n <= 0 || n >= len(all) {
		return all
	}
	out := make([]Item, n)
	for i := range n {
		out[i] = all[(2*i+1)*len(all)/(2*n)]
	}
	return out
}
