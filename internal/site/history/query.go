package history

import (
	"context"
	"fmt"
	"net/url"
	"strings"

	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// Query is the history asked for: a GPU and a model, and one weight format or any.
type Query struct {
	GPU, Model, Quant string
}

// FromQuery reads ?gpu=G&model=M[&quant=Q], each given once; gpu and model are
// required. Their text (UTF-8, length) is checked for every request before any
// handler (guard.CheckRequest).
func FromQuery(v url.Values) (Query, *guard.FieldError) {
	var q Query
	for _, p := range []struct {
		name     string
		to       *string
		required bool
	}{{"gpu", &q.GPU, true}, {"model", &q.Model, true}, {"quant", &q.Quant, false}} {
		vs := v[p.name]
		if len(vs) > 1 {
			return q, guard.Refuse(p.name, "qerr_once")
		}
		if len(vs) == 1 {
			*p.to = strings.TrimSpace(vs[0])
		}
		if p.required && *p.to == "" {
			return q, guard.Refuse(p.name, "calc_reason_required")
		}
	}
	return q, nil
}

// Load reads q's runs from st (the newest store.MaxHistoryRuns) and orders them
// (Build). The answer names the GPU and model as the store holds them.
func Load(ctx context.Context, st *store.Store, q Query) (wire.History, error) {
	runs, more, err := st.History(ctx, q.GPU, q.Model, q.Quant, store.MaxHistoryRuns)
	if err != nil {
		return wire.History{}, fmt.Errorf("the history of %s × %s: %w", q.GPU, q.Model, err)
	}
	out := wire.History{GPU: q.GPU, Model: q.Model, Quantization: q.Quant, Runs: len(runs), Truncated: more, Series: Build(runs)}
	if gpu, err := st.MenuName(ctx, "gpu", q.GPU); err == nil {
		out.GPU = gpu
	}
	if model, err := st.MenuName(ctx, "model", q.Model); err == nil {
		out.Model = model
	}
	return out, nil
}
