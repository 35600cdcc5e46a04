package store_test

import (
	"context"
	"errors"
	"testing"

	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestNamesAsToolsPrintThem: a run whose GPU nvidia-smi named "NVIDIA GeForce RTX
// 4090" and one whose document says "RTX 4090" are one GPU of the site, and names in
// any case find what the store holds (issue 24 items 2 and 4).
func TestNamesAsToolsPrintThem(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for _, v := range []struct{ id, model, gpu string }{
			{"smi", "qwen3.8:27b-q4_K_M", "NVIDIA GeForce RTX 4090"},
			{"doc", "RedHatAI/Qwen3.8-27B-INT4", "RTX 4090"},
			{"bare", "RedHatAI/Qwen3.8-27B-INT4", "H100"},
		} {
			b, r := variant(t, v.id, v.model, v.gpu, 1, "")
			if _, err := s.PutRun(ctx, record(r, "@alice", ""), b); err != nil {
				t.Fatal(err)
			}
		}
		g, err := s.GPU(ctx, "RTX 4090")
		if err != nil || g.Runs != 2 {
			t.Errorf("GPU RTX 4090: %+v, %v; want both runs, nvidia-smi's name folded into the catalog's", g, err)
		}
		if rs, err := s.ListRuns(ctx, store.Query{GPU: "RTX 4090"}); err != nil || len(rs) != 2 {
			t.Errorf("filtering by RTX 4090: %d runs, %v; want 2", len(rs), err)
		}
		for _, tt := range []struct{ dim, name, want string }{
			{"gpu", "rtx 4090", "RTX 4090"},
			{"gpu", "NVIDIA GeForce RTX 4090", "RTX 4090"},
			{"gpu", "h100", "H100"},
			{"model", "QWEN3.8:27B-Q4_K_M", "qwen3.8:27b-q4_K_M"},
			{"family", "Qwen3.8-27B", "qwen3.8-27b"},
		} {
			if got, err := s.Spelling(ctx, tt.dim, tt.name); err != nil || got != tt.want {
				t.Errorf("Spelling(%s, %q) = %q, %v; want %q", tt.dim, tt.name, got, err, tt.want)
			}
		}
		if got, err := s.Spelling(ctx, "gpu", "RTX 5090"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Spelling(gpu, RTX 5090) = %q, %v; want ErrNotFound", got, err)
		}
	})
}
