package store_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

var seedPath = seedcopy.RunPath()

func seed(t *testing.T) ([]byte, *rundoc.Run) {
	t.Helper()
	b, err := os.ReadFile(seedPath)
	if err != nil {
		t.Fatalf("reading the seed run: %v", err)
	}
	r, err := rundoc.Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	return b, r
}

func record(r *rundoc.Run, submitter, org string) store.RunRecord {
	return store.RunRecord{ID: r.ID, Summary: metric.Summarize(r), CreatedAt: r.CreatedAt,
		SubmittedAt: time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC), Submitter: submitter, Org: org}
}

// variant returns a copy of the seed under another id, model and GPU, scaled in speed.
func variant(t *testing.T, id, model, gpu string, scale float64, kind string) ([]byte, *rundoc.Run) {
	_, r := seed(t)
	r.ID, r.Model.ID, r.Hardware.GPUs[0].Name, r.Status, r.Title = id, model, gpu, kind, ""
	for i := range r.Decode {
		if r.Decode[i].DecodeFigures != nil {
			f := *r.Decode[i].DecodeFigures
			f.TotalTokS *= scale
			r.Decode[i].DecodeFigures = &f
		}
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b, r
}

func TestRunsRoundTrip(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		doc, r := seed(t)
		created, err := s.PutRun(ctx, record(r, "@alice", "acme"), doc)
		if err != nil || !created {
			t.Fatalf("PutRun = %v, %v; want created", created, err)
		}
		rec, got, err := s.Run(ctx, r.ID)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(doc) {
			t.Errorf("stored document differs from the submitted bytes")
		}
		if rec.Submitter != "@alice" || rec.Org != "acme" || rec.GPU != "RTX 3090" || !rec.CreatedAt.Equal(r.CreatedAt) {
			t.Errorf("record = %+v", rec)
		}
		// Same bytes again: not an error, not created.
		created, err = s.PutRun(ctx, record(r, "@alice", "acme"), doc)
		if err != nil || created {
			t.Errorf("resubmitting the same document: created=%v err=%v; want false, nil", created, err)
		}
		// Different bytes under the same id: conflict, nothing changes.
		other := append([]byte(nil), doc...)
		other = append(other, ' ')
		if _, err := s.PutRun(ctx, record(r, "@mallory", ""), other); !errors.Is(err, store.ErrConflict) {
			t.Errorf("different document under the same id: err = %v, want ErrConflict", err)
		}
		rec2, got2, _ := s.Run(ctx, r.ID)
		if string(got2) != string(doc) || rec2.Submitter != "@alice" {
			t.Errorf("a conflicting submission changed the stored run")
		}
		if _, _, err := s.Run(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("Run(unknown) err = %v, want ErrNotFound", err)
		}
	})
}

func TestListAndRank(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		put := func(b []byte, r *rundoc.Run, who, org string) {
			if _, err := s.PutRun(ctx, record(r, who, org), b); err != nil {
				t.Fatal(err)
			}
		}
		b, r := variant(t, "a", "m1", "RTX 3090", 1, "")
		put(b, r, "@alice", "")
		b, r = variant(t, "b", "m1", "RTX 4090", 2, "")
		put(b, r, "@bob", "acme")
		b, r = variant(t, "c", "m2", "RTX 4090", 3, "emulated")
		put(b, r, "@alice", "")
		b, r = variant(t, "d", "m2", "H100", 0.5, "")
		put(b, r, "@alice", "")

		ids := func(q store.Query) []string {
			rs, err := s.ListRuns(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rs {
				out = append(out, r.ID)
			}
			return out
		}
		tests := []struct {
			name string
			q    store.Query
			want []string
		}{
			{"rank by decode, measured only", store.Query{Sort: metric.MetricDecode, Kinds: []string{"measured"}}, []string{"b", "a", "d"}},
			{"rank including emulated", store.Query{Sort: metric.MetricPeak}, []string{"c", "b", "a", "d"}},
			{"filter gpu", store.Query{Sort: metric.MetricDecode, GPU: "RTX 4090"}, []string{"c", "b"}},
			{"filter model and kind", store.Query{Sort: metric.MetricDecode, Model: "m2", Kinds: []string{"measured"}}, []string{"d"}},
			{"filter org", store.Query{Org: "acme"}, []string{"b"}},
			{"paging", store.Query{Sort: metric.MetricDecode, Limit: 2, Offset: 1}, []string{"b", "a"}},
			{"profile", store.Query{Profile: "custom"}, nil},
		}
		for _, tt := range tests {
			if d := cmp.Diff(tt.want, ids(tt.q)); d != "" {
				t.Errorf("%s (-want +got):\n%s", tt.name, d)
			}
		}
		n, err := s.CountRuns(ctx, store.Query{Model: "m2"})
		if err != nil || n != 2 {
			t.Errorf("CountRuns(model m2) = %d, %v; want 2", n, err)
		}
		f, err := s.Facets(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.Facet{{Value: "H100", Runs: 1}, {Value: "RTX 3090", Runs: 1}, {Value: "RTX 4090", Runs: 2}}
		if d := cmp.Diff(want, f.GPUs); d != "" {
			t.Errorf("GPU facets (-want +got):\n%s", d)
		}
		gpus, err := s.GPUs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(gpus) != 3 || gpus[2].Name != "RTX 4090" || gpus[2].Runs != 2 || gpus[2].BestDecode == nil || *gpus[2].BestDecode != 48.2*2 {
			t.Errorf("GPUs = %+v; want RTX 4090 with 2 runs, best measured decode 96.4 (emulated run left out)", gpus)
		}
	})
}

func TestTokensAndOrgs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		tok, err := s.CreateToken(ctx, "alice", "Acme Labs")
		if err != nil {
			t.Fatal(err)
		}
		tok2, err := s.CreateToken(ctx, "@bob", "Acme Labs")
		if err != nil {
			t.Fatal(err)
		}
		if tok == tok2 {
			t.Fatal("two tokens are equal")
		}
		u, err := s.UserByToken(ctx, tok)
		if err != nil || u.Name != "@alice" || u.Org != "Acme Labs" {
			t.Errorf("UserByToken = %+v, %v", u, err)
		}
		if _, err := s.UserByToken(ctx, tok+"x"); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("unknown token: err = %v, want ErrNotFound", err)
		}
		// What the refusal names (letters, digits, - _ .; up to 64 characters), no more.
		for _, bad := range []string{"@bad name", "javascript:alert(9003)", "@<b>", "@a/b", "@a@b", "@", "@a'b", "@a(b)",
			"@" + strings.Repeat("a", 64)} {
			if _, err := s.CreateToken(ctx, bad, ""); err == nil || !strings.Contains(err.Error(), "letters, digits, - _ .") {
				t.Errorf("user %q: %v, want it refused naming the allowed characters", bad, err)
			}
		}
		for _, good := range []string{"@a.b-c_d9", "@山田", "@" + strings.Repeat("a", 63)} {
			if _, err := s.CreateToken(ctx, good, ""); err != nil {
				t.Errorf("user %q: %v, want it accepted", good, err)
			}
		}
		orgs, err := s.Orgs(ctx)
		if err != nil {
			t.Fatal(err)
		}
		want := []store.Org{{Name: "Acme Labs", Members: []string{"@alice", "@bob"}}}
		if d := cmp.Diff(want, orgs); d != "" {
			t.Errorf("Orgs (-want +got):\n%s", d)
		}
	})
}

func TestReports(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		r := store.Report{Slug: "3090-vs-4090", Title: "3090 vs 4090", BodyMD: "# Hi\n", Author: "@alice",
			CreatedAt: time.Date(2026, 11, 30, 1, 2, 3, 0, time.UTC)}
		if err := s.PutReport(ctx, r); err != nil {
			t.Fatal(err)
		}
		if err := s.PutReport(ctx, r); !errors.Is(err, store.ErrConflict) {
			t.Errorf("same slug again: err = %v, want ErrConflict", err)
		}
		got, err := s.Report(ctx, r.Slug)
		if err != nil {
			t.Fatal(err)
		}
		if d := cmp.Diff(r, got); d != "" {
			t.Errorf("Report (-want +got):\n%s", d)
		}
		list, err := s.Reports(ctx)
		if err != nil || len(list) != 1 || list[0].Title != r.Title {
			t.Errorf("Reports = %+v, %v", list, err)
		}
	})
}

func TestConcurrentSubmissionsOfOneID(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		doc, r := seed(t)
		other := append(append([]byte(nil), doc...), '\n')
		type result struct {
			created bool
			err     error
		}
		results := make(chan result, 8)
		for i := range 8 {
			go func() {
				d := doc
				if i%2 == 1 {
					d = other // a different document under the same id
				}
				created, err := s.PutRun(ctx, record(r, "@alice", ""), d)
				results <- result{created, err}
			}()
		}
		created, conflicts := 0, 0
		for range 8 {
			res := <-results
			switch {
			case res.created:
				created++
			case errors.Is(res.err, store.ErrConflict):
				conflicts++
			case res.err != nil:
				t.Errorf("PutRun: %v", res.err)
			}
		}
		// One document wins; the 4 submissions of the other one conflict; the other 3
		// of the winner's are idempotent repeats.
		if created != 1 || conflicts != 4 {
			t.Errorf("created %d, conflicts %d; want 1 and 4", created, conflicts)
		}
		n, err := s.CountRuns(ctx, store.Query{})
		if err != nil || n != 1 {
			t.Errorf("CountRuns = %d, %v; want 1", n, err)
		}
		f, _ := s.Facets(ctx)
		if len(f.GPUs) != 1 || f.GPUs[0].Runs != 1 {
			t.Errorf("GPU counts = %+v; want one run counted once", f.GPUs)
		}
	})
}

// TestPlansAgree checks that both ways of finding a page — walking the ranking index
// (broad filters, small pages) and starting from a narrow filter's index — give the
// same, correct answer.
func TestPlansAgree(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		for i := range 30 {
			gpu, engine := "Broad GPU", "vllm"
			if i%10 == 0 {
				gpu = "Rare GPU"
			}
			if i%3 == 0 {
				engine = "sglang"
			}
			b, r := variant(t, fmt.Sprintf("run-%02d", i), "m", gpu, 1+float64(i), "")
			r.Engine.Name = engine
			if _, err := s.PutRun(ctx, record(r, "@alice", ""), b); err != nil {
				t.Fatal(err)
			}
		}
		ids := func(q store.Query) string {
			rs, err := s.ListRuns(ctx, q)
			if err != nil {
				t.Fatal(err)
			}
			var out []string
			for _, r := range rs {
				out = append(out, r.ID)
			}
			return strings.Join(out, ",")
		}
		tests := []struct {
			q    store.Query
			want string
		}{
			// Broad filter, small page: a walk.
			{store.Query{GPU: "Broad GPU", Sort: metric.MetricDecode, Limit: 2}, "run-29,run-28"},
			{store.Query{GPU: "Broad GPU", Engine: "vllm", Sort: metric.MetricDecode, Limit: 2}, "run-29,run-28"},
			{store.Query{GPU: "Broad GPU", Engine: "sglang", Sort: metric.MetricDecode, Limit: 2, Offset: 1}, "run-24,run-21"},
			// Narrow filter: starts from its index.
			{store.Query{GPU: "Rare GPU", Sort: metric.MetricDecode}, "run-20,run-10,run-00"},
			{store.Query{GPU: "Rare GPU", Engine: "sglang", Sort: metric.MetricPeak}, "run-00"},
			{store.Query{GPU: "Rare GPU", Engine: "vllm"}, "run-10,run-20"}, // newest first; equal times by id
			{store.Query{GPU: "No GPU"}, ""},
		}
		for _, tt := range tests {
			if got := ids(tt.q); got != tt.want {
				t.Errorf("%+v = %s, want %s", tt.q, got, tt.want)
			}
		}
	})
}

// TestRevokeTokens: the operator lists tokens (IDs, never the tokens), revokes one by
// the token itself or its ID, or all of a user's; a revoked token no longer finds its
// user, an ambiguous or malformed ID revokes nothing, and the other tokens keep working.
func TestRevokeTokens(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		var alice []string
		for range 3 {
			tok, err := s.CreateToken(ctx, "@alice", "")
			if err != nil {
				t.Fatal(err)
			}
			alice = append(alice, tok)
		}
		bob, err := s.CreateToken(ctx, "@bob", "")
		if err != nil {
			t.Fatal(err)
		}
		list, err := s.Tokens(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(list) != 4 || list[0].User != "@alice" || list[3].User != "@bob" {
			t.Fatalf("Tokens = %+v; want alice's three then bob's", list)
		}
		for _, ti := range list {
			if len(ti.ID) != 12 || strings.Contains(ti.ID, "llmb_") || ti.CreatedAt.IsZero() {
				t.Errorf("token info %+v: want a 12-digit hash ID and a creation time", ti)
			}
		}
		if want := store.HashToken(alice[1])[:12]; list[1].ID != want {
			t.Errorf("second token's ID %s, want the start of its hash %s", list[1].ID, want)
		}

		if err := s.RevokeToken(ctx, alice[0]); err != nil {
			t.Fatalf("revoking by token: %v", err)
		}
		if err := s.RevokeToken(ctx, list[1].ID); err != nil {
			t.Fatalf("revoking by ID: %v", err)
		}
		for i, tok := range alice[:2] {
			if _, err := s.UserByToken(ctx, tok); !errors.Is(err, store.ErrNotFound) {
				t.Errorf("revoked token %d still finds a user (err %v)", i, err)
			}
		}
		if u, err := s.UserByToken(ctx, alice[2]); err != nil || u.Name != "@alice" {
			t.Errorf("alice's third token after revoking the others: %+v, %v", u, err)
		}
		if err := s.RevokeToken(ctx, alice[0]); !errors.Is(err, store.ErrNotFound) {
			t.Errorf("revoking a revoked token: err = %v, want ErrNotFound", err)
		}
		for _, bad := range []string{"", "abc", "%%%%%%%%%%%%", "ABCDEF123456", "12345678901z"} {
			if err := s.RevokeToken(ctx, bad); err == nil || errors.Is(err, store.ErrNotFound) {
				t.Errorf("RevokeToken(%q) = %v; want a usage error", bad, err)
			}
		}
		n, err := s.RevokeUserTokens(ctx, "alice")
		if err != nil || n != 1 {
			t.Errorf("RevokeUserTokens(alice) = %d, %v; want 1 (two already revoked)", n, err)
		}
		if u, err := s.UserByToken(ctx, bob); err != nil || u.Name != "@bob" {
			t.Errorf("bob's token after revoking alice's: %+v, %v", u, err)
		}
		if list, _ := s.Tokens(ctx); len(list) != 1 {
			t.Errorf("%d tokens left, want bob's 1", len(list))
		}
	})
}

// TestWritesCountsWhatPagesShow: Writes moves with every committed change to what
// the site shows (a run, a report, a token, a revocation) and not with what changes
// nothing (a resubmitted or conflicting run, a rate-limit bucket), so that a cache of
// pages keyed by it is never stale on this instance and not dropped for nothing.
func TestWritesCountsWhatPagesShow(t *testing.T) {
	storetest.Each(t, func(t *testing.T, s *store.Store) {
		ctx := context.Background()
		doc, r := seed(t)
		step := func(what string, wantMoved bool, do func() error) {
			t.Helper()
			before := s.Writes()
			if err := do(); err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			if moved := s.Writes() != before; moved != wantMoved {
				t.Errorf("%s: Writes moved %v, want %v", what, moved, wantMoved)
			}
		}
		step("storing a run", true, func() error { _, err := s.PutRun(ctx, record(r, "@alice", ""), doc); return err })
		step("storing it again", false, func() error { _, err := s.PutRun(ctx, record(r, "@alice", ""), doc); return err })
		step("a conflicting run", false, func() error {
			if _, err := s.PutRun(ctx, record(r, "@bob", ""), append(doc, ' ')); !errors.Is(err, store.ErrConflict) {
				return fmt.Errorf("want ErrConflict, got %v", err)
			}
			return nil
		})
		step("a rate-limit bucket", false, func() error {
			_, _, err := s.TakeToken(ctx, "ip:1", 1, 5, time.Now(), true)
			return err
		})
		step("a report", true, func() error {
			return s.PutReport(ctx, store.Report{Slug: "w", Title: "W", BodyMD: "x", Author: "@alice", CreatedAt: time.Now()})
		})
		var token string
		step("a token", true, func() error { var err error; token, err = s.CreateToken(ctx, "@carol", "acme"); return err })
		step("revoking it", true, func() error { return s.RevokeToken(ctx, token) })
	})
}
