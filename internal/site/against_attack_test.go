package site

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// TestUploadAttacksAreRefused: the upload page is open to anyone, so it is a way in.
// On both databases, each attack is refused with its status and reason (never a 500),
// and none writes to the store: a body larger than a document (declared, or sent
// chunked), a body that is not a form, a form without the file, a document that is
// invalid, has a key twice or data after it, and more posts a minute than the limit.
func TestUploadAttacksAreRefused(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		const max = 64 << 10
		ts := newTestSite(t, st, Options{MaxBodyBytes: max})
		ts.srv.guards.Against = guard.NewMemoryLimiter(1000, 1000) // the rate limit has its own case below
		writes := st.Writes()
		big := bytes.Repeat([]byte(" "), max+1)
		bad := edited(t, func(r *rundoc.Run) { r.Decode[0].TotalTokS = -3 })
		dup := bytes.Replace(seedDoc(t), []byte(`"id": "seed-rtx3090-qwen3.8-27b-int4",`), []byte(`"id": "seed-rtx3090-qwen3.8-27b-int4", "id": "other",`), 1)
		if bytes.Equal(dup, seedDoc(t)) {
			t.Fatal("the duplicate-key case did not change the seed")
		}
		for _, c := range []struct {
			name  string
			body  func() (io.Reader, string)
			code  int
			field string
		}{
			{"declared larger than a document", func() (io.Reader, string) {
				return uploadBody2(t, "run", append(big, bytes.Repeat([]byte(" "), 16<<10)...))
			}, http.StatusRequestEntityTooLarge, "64 KiB"},
			{"chunked, larger than a document", func() (io.Reader, string) {
				r, ct := uploadBody2(t, "run", big)
				return io.MultiReader(r), ct // no length: sent chunked
			}, http.StatusRequestEntityTooLarge, "64 KiB"},
			{"JSON, not a form", func() (io.Reader, string) { return bytes.NewReader(seedDoc(t)), "application/json" }, http.StatusUnsupportedMediaType, "multipart/form-data"},
			{"a form without the file", func() (io.Reader, string) { return uploadBody2(t, "other", seedDoc(t)) }, http.StatusBadRequest, "multipart/form-data"},
			{"an invalid document", func() (io.Reader, string) { return uploadBody2(t, "run", bad) }, http.StatusBadRequest, "decode[0].total_tok_s"},
			{"a key twice", func() (io.Reader, string) { return uploadBody2(t, "run", dup) }, http.StatusBadRequest, "id: the key is given twice"},
			{"data after the document", func() (io.Reader, string) { return uploadBody2(t, "run", append(seedDoc(t), []byte(`{}`)...)) }, http.StatusBadRequest, "more after its JSON value"},
			{"not JSON at all", func() (io.Reader, string) { return uploadBody2(t, "run", []byte("<script>alert(1)</script>")) }, http.StatusBadRequest, "not valid JSON"},
		} {
			body, ctype := c.body()
			req, err := http.NewRequest(http.MethodPost, ts.URL+"/against", body)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Content-Type", ctype)
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			page, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.code || !strings.Contains(string(page), `id="against-error"`) || !strings.Contains(string(page), c.field) {
				t.Errorf("%s: %d, want %d with the reason (naming %q)\n%.600s", c.name, resp.StatusCode, c.code, c.field, page)

			}
			if strings.Contains(string(page), "&lt;script&gt;alert") || strings.Contains(string(page), "<script>alert") {
				t.Errorf("%s: the page echoes what was posted", c.name)
			}
		}
		if w := st.Writes(); w != writes {
			t.Errorf("the refused uploads wrote to the store %d times", w-writes)
		}
	})
}

// TestUploadsAreRateLimitedPerAddress: past the burst, an address is told when to come
// back (429 and Retry-After) before its body is read.
func TestUploadsAreRateLimitedPerAddress(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{})
		mine, _, _ := pairDocs(t)
		var last *http.Response
		for i := 0; i <= guard.AgainstBurst; i++ {
			body, ctype := uploadBody(t, "run", mine)
			req, _ := http.NewRequest(http.MethodPost, ts.URL+"/against", bytes.NewReader(body))
			req.Header.Set("Content-Type", ctype)
			resp, err := ts.Client().Do(req)
			if err != nil {
				t.Fatal(err)
			}
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if i < guard.AgainstBurst && resp.StatusCode != http.StatusOK {
				t.Fatalf("upload %d of the burst: %d", i+1, resp.StatusCode)
			}
			last = resp
		}
		if last.StatusCode != http.StatusTooManyRequests || last.Header.Get("Retry-After") == "" {
			t.Errorf("upload %d: %d (Retry-After %q), want 429 with Retry-After", guard.AgainstBurst+1, last.StatusCode, last.Header.Get("Retry-After"))
		}
	})
}

func uploadBody2(t testing.TB, field string, doc []byte) (io.Reader, string) {
	b, ct := uploadBody(t, field, doc)
	return bytes.NewReader(b), ct
}
