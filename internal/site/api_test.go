package site

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/wire"
)

func TestSubmitIsIdempotentAndVerbatim(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{})
		doc := seedDoc(t)
		code, body := ts.submit(t, doc)
		if code != http.StatusCreated || !strings.Contains(body, `"created": true`) {
			t.Fatalf("first submit = %d %s, want 201 created", code, body)
		}
		code, body = ts.submit(t, doc)
		if code != http.StatusOK || !strings.Contains(body, `"created": false`) {
			t.Errorf("same document again = %d %s, want 200 not created", code, body)
		}
		code, got := ts.get(t, "/api/v1/runs/seed-rtx3090-qwen3.8-27b-int4")
		if code != http.StatusOK || got != string(doc) {
			t.Errorf("GET the run = %d; document identical to the submitted bytes: %v", code, got == string(doc))
		}
		changed := edited(t, func(r *rundoc.Run) { r.Title = "something else" })
		code, body = ts.submit(t, changed)
		if code != http.StatusConflict || !strings.Contains(body, `"field": "id"`) {
			t.Errorf("different document under the same id = %d %s, want 409 on field id", code, body)
		}
		if _, got := ts.get(t, "/api/v1/runs/seed-rtx3090-qwen3.8-27b-int4"); got != string(doc) {
			t.Errorf("a conflicting submission changed the stored document")
		}
		var list wire.RunList
		_, lbody := ts.get(t, "/api/v1/runs")
		if err := json.Unmarshal([]byte(lbody), &list); err != nil || len(list.Runs) != 1 {
			t.Fatalf("list = %s (%v); want one run", lbody, err)
		}
		r := list.Runs[0]
		if r.Submitter != "@alice" || r.Org != "Acme Labs" || r.DecodeTokS == nil || *r.DecodeTokS != 48.2 || r.Profile != "speed-test" {
			t.Errorf("listed run = %+v", r)
		}
	})
}

func TestSubmitRejectsBadDocumentsAndChangesNothing(t *testing.T) {
	tests := []struct {
		name      string
		doc       []byte
		wantField string
	}{
		{"not JSON", []byte(`{"schema_version": 1,`), ""},
		{"empty", []byte(``), ""},
		{"two values", append(seedDoc(t), []byte(` {}`)...), ""},
		{"schema version", rawEdit(t, func(m map[string]any) { m["schema_version"] = 2 }), "schema_version"},
		{"no schema version", rawEdit(t, func(m map[string]any) { delete(m, "schema_version") }), "schema_version"},
		{"no id", rawEdit(t, func(m map[string]any) { delete(m, "id") }), "id"},
		{"id with slash", rawEdit(t, func(m map[string]any) { m["id"] = "../etc/passwd" }), "id"},
		{"id with markup", rawEdit(t, func(m map[string]any) { m["id"] = "<script>" }), "id"},
		{"unknown run status", rawEdit(t, func(m map[string]any) { m["status"] = "guessed" }), "status"},
		{"no created_at", rawEdit(t, func(m map[string]any) { delete(m, "created_at") }), "created_at"},
		{"bad created_at", rawEdit(t, func(m map[string]any) { m["created_at"] = "yesterday" }), "created_at"},
		{"no engine name", rawEdit(t, func(m map[string]any) { m["engine"].(map[string]any)["name"] = "" }), "engine.name"},
		{"no model", rawEdit(t, func(m map[string]any) { m["model"] = map[string]any{} }), "model.served_name"},
		{"contexts wrong type", rawEdit(t, func(m map[string]any) { m["config"].(map[string]any)["contexts"] = "0,16K" }), "config.contexts"},
		{"no concurrency", rawEdit(t, func(m map[string]any) { m["config"].(map[string]any)["concurrency"] = []int{} }), "config.concurrency"},
		{"zero concurrency", rawEdit(t, func(m map[string]any) { m["config"].(map[string]any)["concurrency"] = []int{0, 1} }), "config.concurrency[0]"},
		{"duplicate context", rawEdit(t, func(m map[string]any) { m["config"].(map[string]any)["contexts"] = []int{0, 0} }), "config.contexts[1]"},
		{"negative tok/s", edited(t, func(r *rundoc.Run) { r.Decode[0].TotalTokS = -1 }), "decode[0].total_tok_s"},
		{"huge number", []byte(strings.Replace(string(seedDoc(t)), `"total_tok_s": 48.2`, `"total_tok_s": 1e400`, 1)), "decode[0].total_tok_s"},
		{"unknown cell status", rawEdit(t, func(m map[string]any) { m["decode"].([]any)[3].(map[string]any)["status"] = "great" }), "decode[3].status"},
		{"valid cell without figures", rawEdit(t, func(m map[string]any) {
			m["decode"].([]any)[0] = map[string]any{"context": 0, "concurrency": 1, "status": "valid"}
		}), "decode[0].total_tok_s"},
		{"cell off the plan", edited(t, func(r *rundoc.Run) { r.Decode[0].Concurrency = 3 }), "decode[0].concurrency"},
		{"context off the plan", edited(t, func(r *rundoc.Run) { r.Decode[0].Context = 100 }), "decode[0].context"},
		{"duplicate cell", edited(t, func(r *rundoc.Run) { r.Decode[1] = r.Decode[0] }), "decode[1]"},
		{"duplicate prefill row", edited(t, func(r *rundoc.Run) { r.Prefill[1] = r.Prefill[0] }), "prefill[1]"},
		{"prefill off the plan", edited(t, func(r *rundoc.Run) { r.Prefill[0].Context = 123 }), "prefill[0].context"},
		{"pending cell", edited(t, func(r *rundoc.Run) { r.Decode[4].Status = rundoc.StatusPending }), "decode[4].status"},
		{"predicted cell in a measured run", edited(t, func(r *rundoc.Run) { r.Decode[0].Status = rundoc.StatusPredicted }), "decode[0].status"},
		{"negative ttft", edited(t, func(r *rundoc.Run) { r.Prefill[1].TTFTMs = -5 }), "prefill[1].ttft_ms"},
		{"NaN-like via p90", edited(t, func(r *rundoc.Run) {
			v := -1.0
			r.Decode[0].CellDetail = &rundoc.CellDetail{TTFTP90Ms: &v}
		}), "decode[0].ttft_p90_ms"},
	}
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 1000})
		// One good run first, so "changes nothing" is checked against a non-empty store.
		good := edited(t, func(r *rundoc.Run) { r.ID = "good-run" })
		ts.mustSubmit(t, good)
		for _, tt := range tests {
			t.Run(tt.name, func(t *testing.T) {
				code, body := ts.submit(t, tt.doc)
				if code != http.StatusBadRequest {
					t.Fatalf("status = %d (%s), want 400", code, body)
				}
				var e wire.Error
				if err := json.Unmarshal([]byte(body), &e); err != nil {
					t.Fatalf("error body is not JSON: %s", body)
				}
				if e.Field != tt.wantField || e.Reason == "" {
					t.Errorf("error = field %q reason %q; want field %q with a reason", e.Field, e.Reason, tt.wantField)
				}
			})
		}
		n, err := st.CountRuns(context.Background(), store.Query{})
		if err != nil || n != 1 {
			t.Errorf("after the bad submissions the store holds %d runs (%v), want 1", n, err)
		}
		if _, got := ts.get(t, "/api/v1/runs/good-run"); got != string(good) {
			t.Errorf("the good run changed")
		}
	})
}

func TestValidateAcceptsExtensionsAndPredictedRuns(t *testing.T) {
	withExtras := rawEdit(t, func(m map[string]any) {
		m["future_field"] = map[string]any{"x": 1}
		m["decode"].([]any)[0].(map[string]any)["new_figure"] = 3.5
	})
	if _, err := guard.ValidateRun(withExtras); err != nil {
		t.Errorf("a document with unknown (extension) fields was refused: %v", err)
	}
	predicted := edited(t, func(r *rundoc.Run) {
		r.Status = rundoc.RunPredicted
		for i := range r.Decode {
			if r.Decode[i].Status == rundoc.StatusValid {
				r.Decode[i].Status = rundoc.StatusPredicted
			}
		}
		for i := range r.Prefill {
			r.Prefill[i].Status = rundoc.StatusPredicted
		}
	})
	if _, err := guard.ValidateRun(predicted); err != nil {
		t.Errorf("a predicted document was refused: %v", err)
	}
}

func TestSubmitAuthSizeAndRate(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{MaxBodyBytes: 64 << 10, RatePerToken: 1, RateBurst: 3})
	doc := seedDoc(t)

	code, hdr, body := ts.do(t, http.MethodPost, "/api/v1/runs", "", doc)
	if code != http.StatusUnauthorized || hdr.Get("WWW-Authenticate") == "" || !strings.Contains(body, "Authorization") {
		t.Errorf("no token: %d %s, want 401 with WWW-Authenticate", code, body)
	}
	code, _, _ = ts.do(t, http.MethodPost, "/api/v1/runs", "llmb_not-a-token", doc)
	if code != http.StatusUnauthorized {
		t.Errorf("unknown token: %d, want 401", code)
	}

	big := []byte(`{"schema_version": 1, "notes": ["` + strings.Repeat("x", 70<<10) + `"]}`)
	code, _, body = ts.do(t, http.MethodPost, "/api/v1/runs", ts.token, big)
	if code != http.StatusRequestEntityTooLarge {
		t.Errorf("a body over the limit: %d %s, want 413", code, body)
	}

	// Burst of 3 (the 413 above used one): two more pass, then 429 until time passes.
	for i := range 2 {
		if code, body := ts.submit(t, doc); code != http.StatusCreated && code != http.StatusOK {
			t.Fatalf("submission %d: %d %s", i, code, body)
		}
	}
	code, hdr, body = ts.do(t, http.MethodPost, "/api/v1/runs", ts.token, doc)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" {
		t.Errorf("over the rate: %d %s (Retry-After %q), want 429 with Retry-After", code, body, hdr.Get("Retry-After"))
	}
	// Another token has its own bucket.
	other, err := ts.store.CreateToken(context.Background(), "@bob", "")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, body := ts.do(t, http.MethodPost, "/api/v1/runs", other, doc); code != http.StatusOK {
		t.Errorf("another token: %d %s, want 200 (its own limit; the document is already stored)", code, body)
	}
}

// TestFailedAuthLimitedPerAddress: an address that sends 10 bad tokens is turned away
// (429, Retry-After) before its next token is even looked up, good token or not; other
// addresses are not affected, and good requests never count against the limit.
func TestFailedAuthLimitedPerAddress(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{TrustProxy: true, RateBurst: 1000})
	doc := seedDoc(t)
	from := func(addr string) []string { return []string{"X-Forwarded-For", "203.0.113.9, " + addr} }
	// Good submissions from an address do not use up its failure allowance.
	for range 12 {
		if code, _, body := ts.do(t, http.MethodPost, "/api/v1/runs", ts.token, doc, from("198.51.100.1")...); code != http.StatusCreated && code != http.StatusOK {
			t.Fatalf("good submission: %d %s", code, body)
		}
	}
	for i := range guard.AuthFailureBurst {
		if code, _, _ := ts.do(t, http.MethodPost, "/api/v1/runs", "llmb_guess", doc, from("198.51.100.1")...); code != http.StatusUnauthorized {
			t.Fatalf("bad token %d: %d, want 401", i, code)
		}
	}
	code, hdr, body := ts.do(t, http.MethodPost, "/api/v1/runs", "llmb_guess", doc, from("198.51.100.1")...)
	if code != http.StatusTooManyRequests || hdr.Get("Retry-After") == "" || !strings.Contains(body, "failed authentications") {
		t.Errorf("bad token past the limit: %d %s (Retry-After %q), want 429", code, body, hdr.Get("Retry-After"))
	}
	if code, _, _ := ts.do(t, http.MethodPost, "/api/v1/runs", ts.token, doc, from("198.51.100.1")...); code != http.StatusTooManyRequests {
		t.Errorf("good token from the same address right after: %d, want 429 until the limit refills", code)
	}
	if code, _, body := ts.do(t, http.MethodPost, "/api/v1/runs", ts.token, doc, from("198.51.100.2")...); code != http.StatusOK {
		t.Errorf("another address: %d %s, want 200", code, body)
	}
}

// TestPerAddressRequestLimit: with RatePerIP set, one address gets BurstPerIP requests
// and then 429s, on pages and the API alike; /healthz stays open; the client address
// comes from the connection unless TrustProxy says to read X-Forwarded-For's last entry.
func TestPerAddressRequestLimit(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{RatePerIP: 1, BurstPerIP: 3})
	for i := range 3 {
		if code, _ := ts.get(t, "/api/v1/runs"); code != http.StatusOK {
			t.Fatalf("request %d: %d, want 200", i, code)
		}
	}
	if code, body := ts.get(t, "/runs"); code != http.StatusTooManyRequests || !strings.Contains(body, "this address") {
		t.Errorf("fourth request: %d %s, want 429", code, body)
	}
	if code, _ := ts.get(t, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d, want 200 even when limited", code)
	}
	// Without TrustProxy a forged X-Forwarded-For does not buy a fresh bucket.
	if code, _ := ts.get(t, "/runs", "X-Forwarded-For", "192.0.2.77"); code != http.StatusTooManyRequests {
		t.Errorf("forged X-Forwarded-For without TrustProxy: %d, want 429", code)
	}

	proxied := newTestSite(t, storetest.SQLite(t), Options{RatePerIP: 1, BurstPerIP: 1, TrustProxy: true})
	for _, addr := range []string{"192.0.2.1", "192.0.2.2"} {
		if code, _ := proxied.get(t, "/runs", "X-Forwarded-For", "10.9.9.9, "+addr); code != http.StatusOK {
			t.Errorf("first request from %s behind the proxy: %d, want 200", addr, code)
		}
	}
	// The client may claim anything before the proxy's entry: the last entry decides.
	if code, _ := proxied.get(t, "/runs", "X-Forwarded-For", "192.0.2.99, 192.0.2.1"); code != http.StatusTooManyRequests {
		t.Errorf("second request from 192.0.2.1 with a forged first entry: %d, want 429", code)
	}
}

func TestListRunsAPI(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	for i, gpu := range []string{"RTX 3090", "RTX 4090", "H100"} {
		ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
			r.ID = "run-" + strings.ReplaceAll(strings.ToLower(gpu), " ", "")
			r.Hardware.GPUs[0].Name = gpu
			f := *r.Decode[0].DecodeFigures
			f.TotalTokS = float64(10 * (i + 1))
			r.Decode[0].DecodeFigures = &f
		}))
	}
	ts.mustSubmit(t, edited(t, func(r *rundoc.Run) {
		r.ID, r.Status, r.Engine.Name = "emulated-run", rundoc.RunEmulated, "llmbench-sim"
	}))
	tests := []struct {
		query string
		want  []string
		next  bool
	}{
		{"?sort=decode&kind=measured", []string{"run-h100", "run-rtx4090", "run-rtx3090"}, false},
		{"?sort=decode&kind=measured&limit=2", []string{"run-h100", "run-rtx4090"}, true},
		{"?sort=decode&kind=measured&limit=2&offset=2", []string{"run-rtx3090"}, false},
		{"?gpu=RTX+4090", []string{"run-rtx4090"}, false},
		{"?kind=emulated", []string{"emulated-run"}, false},
		// Equal peaks (the cells not edited) rank by id.
		{"?engine=vllm&sort=peak&kind=measured", []string{"run-h100", "run-rtx3090", "run-rtx4090"}, false},
	}
	for _, tt := range tests {
		code, body := ts.get(t, "/api/v1/runs"+tt.query)
		var out wire.RunList
		if code != http.StatusOK || json.Unmarshal([]byte(body), &out) != nil {
			t.Fatalf("%s: %d %s", tt.query, code, body)
		}
		var ids []string
		for _, r := range out.Runs {
			ids = append(ids, r.ID)
		}
		if strings.Join(ids, ",") != strings.Join(tt.want, ",") || (out.NextOffset != nil) != tt.next {
			t.Errorf("%s = %v (next %v), want %v (next %v)", tt.query, ids, out.NextOffset != nil, tt.want, tt.next)
		}
	}
	for _, q := range []string{"?sort=fastest", "?limit=0", "?limit=1000", "?kind=fake", "?offset=-1"} {
		if code, _ := ts.get(t, "/api/v1/runs"+q); code != http.StatusBadRequest {
			t.Errorf("GET /api/v1/runs%s = %d, want 400", q, code)
		}
	}
	code, body := ts.get(t, "/api/v1/hardware")
	if code != http.StatusOK || !strings.Contains(body, `"name": "RTX 4090"`) || !strings.Contains(body, `"url": "/hardware/RTX%204090"`) {
		t.Errorf("GET /api/v1/hardware = %d %s", code, body)
	}
	code, body = ts.get(t, "/api/v1/models")
	if code != http.StatusOK || !strings.Contains(body, `"name": "RedHatAI/Qwen3.8-27B-INT4"`) {
		t.Errorf("GET /api/v1/models = %d %s", code, body)
	}
	if code, _ := ts.get(t, "/api/v1/runs/nope"); code != http.StatusNotFound {
		t.Errorf("GET an unknown run = %d, want 404", code)
	}
}

func TestOpenAPIDocumentCoversTheRoutes(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	code, body := ts.get(t, "/api/openapi.json")
	var doc struct {
		OpenAPI string                    `json:"openapi"`
		Paths   map[string]map[string]any `json:"paths"`
	}
	if code != http.StatusOK || json.Unmarshal([]byte(body), &doc) != nil || doc.OpenAPI == "" {
		t.Fatalf("GET /api/openapi.json = %d, not an OpenAPI document", code)
	}
	// Every API route the router serves, taken from the router's own table.
	checked := 0
	for _, rt := range ts.srv.routes() {
		method, path, ok := strings.Cut(rt.pattern, " ")
		if !ok || !strings.HasPrefix(path, "/api/v1/") {
			continue
		}
		checked++
		if _, ok := doc.Paths[path][strings.ToLower(method)]; !ok {
			t.Errorf("the OpenAPI document lacks %s", rt.pattern)
		}
	}
	if checked == 0 {
		t.Error("no /api/v1 route found in the router's table: the check above checked nothing")
	}
	// And nothing the router does not serve.
	served := map[string]bool{}
	for _, rt := range ts.srv.routes() {
		served[rt.pattern] = true
	}
	for path, ops := range doc.Paths {
		for method := range ops {
			if p := strings.ToUpper(method) + " " + path; !served[p] {
				t.Errorf("the OpenAPI document describes %s, which the router does not serve", p)
			}
		}
	}
}

// TestWireRateInfIsTheStores: the API writes "inf" for the level the store keeps for
// a rate "inf" cell.
func TestWireRateInfIsTheStores(t *testing.T) {
	if wire.RateInf != metric.RateInf {
		t.Errorf("wire.RateInf %v, metric.RateInf %v", float64(wire.RateInf), metric.RateInf)
	}
}
