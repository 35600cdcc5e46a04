package site

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// slowBody is a request body that sends its first bytes and then nothing until it is
// closed: a client trickling its body.
type slowBody struct {
	first []byte
	done  chan struct{}
}

func (b *slowBody) Read(p []byte) (int, error) {
	if len(b.first) > 0 {
		n := copy(p, b.first)
		b.first = b.first[n:]
		return n, nil
	}
	<-b.done
	return 0, io.EOF
}

func (b *slowBody) Close() error { return nil }

// postSlowly posts to path a body of length bytes that sends first and then nothing
// until done closes, with header (name, value pairs), and sends the answer's status to
// codes (0 when there was none).
func postSlowly(ts *testSite, path, first string, length int64, done chan struct{}, codes chan<- int, header ...string) {
	req, _ := http.NewRequest(http.MethodPost, ts.URL+path, &slowBody{first: []byte(first), done: done})
	req.ContentLength = length
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resp, err := ts.Client().Do(req)
	if err != nil {
		codes <- 0
		return
	}
	resp.Body.Close()
	codes <- resp.StatusCode
}

// TestSlowFormBodiesDoNotStarveSubmitters sends 16 report forms without a token whose
// bodies never finish (issue 24: they took all 16 body slots and the API answered 503
// while they lasted), then submits a run through the API, which must be stored; the
// address's forms beyond its share are refused at once, and a form body that stops
// arriving is cut off at its deadline.
func TestSlowFormBodiesDoNotStarveSubmitters(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	ts.srv.guards.FormTimeout = 2 * time.Second
	done := make(chan struct{})
	codes := make(chan int, 16)
	for range 16 {
		go postSlowly(ts, "/reports/new", "slug=s&title=t&body_md=x", 1<<19, done, codes, "Content-Type", "application/x-www-form-urlencoded")
	}
	defer close(done)
	// The forms beyond the address's share are refused without waiting for a slot.
	busy := 0
	for range 16 - guard.MaxFormBodiesPerAddr {
		select {
		case c := <-codes:
			if c == http.StatusServiceUnavailable {
				busy++
			}
		case <-time.After(time.Second):
		}
	}
	if busy != 16-guard.MaxFormBodiesPerAddr {
		t.Errorf("%d of 16 slow forms from one address were refused as busy at once, want %d", busy, 16-guard.MaxFormBodiesPerAddr)
	}
	start := time.Now()
	code, body := ts.submit(t, seedDoc(t))
	if code != http.StatusCreated {
		t.Fatalf("an API submission while 16 slow forms are open: %d %s", code, body)
	}
	if took := time.Since(start); took >= guard.BodyWait {
		t.Errorf("the API submission waited %s for a body slot", took)
	}
	// The two forms still being read end at their deadline with 408.
	for range guard.MaxFormBodiesPerAddr {
		select {
		case c := <-codes:
			if c != http.StatusRequestTimeout {
				t.Errorf("a form body that stopped arriving: %d, want 408", c)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("a form body that stopped arriving was still being read 30 s later")
		}
	}
}

// TestOneTokensSlowBodiesLeaveOthersTheirs: one token sends 16 runs whose bodies never
// finish (issue 37: they held all 16 body slots for 60 s each, and every other
// submitter got 503 after waiting 10 s). It holds guard.MaxBodiesPerToken slots; its other
// bodies are refused at once with 503, and another token's run is stored without
// waiting for a slot.
func TestOneTokensSlowBodiesLeaveOthersTheirs(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RatePerToken: 6000, RateBurst: 100})
		held := make(chan string, guard.MaxBodiesAtOnce)
		ts.srv.guards.Bodies.Taken = func(key string) { held <- key }
		other, err := st.CreateToken(context.Background(), "@bob", "")
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan struct{})
		defer close(done)
		codes := make(chan int, guard.MaxBodiesAtOnce)
		for range guard.MaxBodiesAtOnce {
			go postSlowly(ts, "/api/v1/runs", `{"schema_version":`, 1<<20, done, codes, "Authorization", "Bearer "+ts.token)
		}
		for range guard.MaxBodiesPerToken {
			if key := <-held; key != store.HashToken(ts.token) {
				t.Fatalf("a body slot went to %q, not the slow token", key)
			}
		}
		for range guard.MaxBodiesAtOnce - guard.MaxBodiesPerToken {
			select {
			case c := <-codes:
				if c != http.StatusServiceUnavailable {
					t.Errorf("a slow body beyond the token's %d: %d, want 503 at once", guard.MaxBodiesPerToken, c)
				}
			case <-time.After(guard.BodyWait):
				t.Fatalf("a slow body beyond the token's %d was not refused within %s: the token holds more slots", guard.MaxBodiesPerToken, guard.BodyWait)
			}
		}
		start := time.Now()
		code, _, body := ts.do(t, http.MethodPost, "/api/v1/runs", other, seedDoc(t))
		if code != http.StatusCreated {
			t.Fatalf("another token's submission while the first holds its slots: %d %s", code, body)
		}
		if took := time.Since(start); took >= guard.BodyWait {
			t.Errorf("another token's submission waited %s for a body slot", took)
		}
	})
}

// TestTrailingDataIsRefused: a run document followed by anything but white space is
// refused (issue 24: a ] or } after it was stored, and its pages then answered 500).
func TestTrailingDataIsRefused(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) { trailingDataIsRefused(t, st) })
}

func trailingDataIsRefused(t *testing.T, st *store.Store) {
	ts := newTestSite(t, st, Options{})
	seed := seedDoc(t)
	for _, tail := range []string{"]", "}", " ]", "\n}", "x", " {}", "[]", "null"} {
		doc := append(append([]byte{}, seed...), tail...)
		code, body := ts.submit(t, doc)
		if code != http.StatusBadRequest || !strings.Contains(apiErr(t, body).Reason, "more after its JSON value") {
			t.Errorf("the seed followed by %q: %d %s, want 400 naming what follows", tail, code, body)
		}
	}
	code, _, body := ts.do(t, http.MethodPost, "/api/v1/reports", ts.token, []byte(`{"slug":"a","title":"t","body_md":"b"}]`))
	if code != http.StatusBadRequest {
		t.Errorf("a report followed by ]: %d %s, want 400", code, body)
	}
	ts.mustSubmit(t, append(append([]byte{}, seed...), " \r\n\t"...))
	if code, body := ts.get(t, "/api/v1/runs/"+seedID); code != http.StatusOK || !json.Valid([]byte(body)) {
		t.Errorf("the run stored with trailing white space: %d, valid JSON %v", code, json.Valid([]byte(body)))
	}
}

// hugeDecode is the seed with its decode array replaced by n empty objects.
func hugeDecode(t testing.TB, n int) []byte {
	var m map[string]any
	if err := json.Unmarshal(seedDoc(t), &m); err != nil {
		t.Fatal(err)
	}
	delete(m, "decode")
	head, _ := json.Marshal(m)
	var b bytes.Buffer
	b.Write(head[:len(head)-1])
	b.WriteString(`,"decode":[{}`)
	for range n - 1 {
		b.WriteString(`,{}`)
	}
	b.WriteString(`]}`)
	return b.Bytes()
}

// TestHugeArraysAreRefusedByTheLargestPlan: an array longer than any plan can fill is
// refused, naming it, before its elements are read (issue 24: 1.3 million {} in decode
// cost a core a minute); BenchmarkHugeDecodeArray measures how long the refusal takes.
func TestHugeArraysAreRefusedByTheLargestPlan(t *testing.T) {
	_, ferr := guard.ValidateRun(hugeDecode(t, 1_300_000))
	if ferr == nil || ferr.Field != "decode" || !strings.Contains(ferr.Reason, fmt.Sprint(rundoc.MaxAxis*rundoc.MaxAxis)) {
		t.Errorf("1.3 million decode cells: %v, want decode refused by the largest plan (%d cells)", ferr, rundoc.MaxAxis*rundoc.MaxAxis)
	}
	// As many cells as the largest plan has pass the bound (and fail on what they hold).
	_, ferr = guard.ValidateRun(hugeDecode(t, rundoc.MaxAxis*rundoc.MaxAxis))
	if ferr == nil || ferr.Field == "decode" {
		t.Errorf("%d decode cells: %v, want a fault inside a cell, not the array's length", rundoc.MaxAxis*rundoc.MaxAxis, ferr)
	}
	for _, c := range []struct{ doc, field string }{
		{`{"notes":[` + strings.Repeat(`"n",`, rundoc.MaxNotes) + `"n"]}`, "notes"},
		{`{"rate":[` + strings.Repeat(`{},`, rundoc.MaxRateCells) + `{}]}`, "rate"},
		{`{"x":[` + strings.Repeat(`0,`, rundoc.MaxAxis*rundoc.MaxAxis) + `0]}`, "x"},
	} {
		if ferr := guard.CheckJSON([]byte(c.doc), reflect.TypeOf(rundoc.Run{}), rundoc.MaxString); ferr == nil || ferr.Field != c.field {
			t.Errorf("an over-long %s: %v, want it refused", c.field, ferr)
		}
	}
}

// objectOf is a JSON object of n keys.
func objectOf(n int) string {
	var b strings.Builder
	b.WriteString("{")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `"k%d":%d`, i, i)
	}
	b.WriteString("}")
	return b.String()
}

// TestHugeObjectsAreRefused: an object of more keys than any object of a run document
// can have is refused naming its path (issue 37: an extension object of 150,000 keys,
// 2.6 MB, was stored and served back whole), and nothing is stored; an extension of
// a reasonable size is stored and served back as sent.
func TestHugeObjectsAreRefused(t *testing.T) {
	seed := string(seedDoc(t))
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100})
		for _, c := range []struct{ name, doc, field string }{
			{"in a cell", strings.Replace(seed, `"total_tok_s": 48.2`, `"total_tok_s": 48.2, "x_ext": `+objectOf(150_000), 1), "decode[0].x_ext"},
			{"nested", strings.Replace(seed, `"revision": "main"`, `"revision": "main", "x": {"y": `+objectOf(guard.MaxObjectKeys+1)+`}`, 1), "model.x.y"},
			{"the document itself", strings.Replace(seed, `"revision": "main"`, `"revision": "main"}, `+strings.Trim(objectOf(guard.MaxObjectKeys), "{}")+`, "zz": {"a": 1`, 1), ""},
		} {
			code, body := ts.submit(t, []byte(c.doc))
			e := apiErr(t, body)
			if code != http.StatusBadRequest || e.Field != c.field || !strings.Contains(e.Reason, fmt.Sprintf("more than %d keys", guard.MaxObjectKeys)) {
				t.Errorf("an object of too many keys %s: %d %+v, want 400 naming %q", c.name, code, e, c.field)
			}
		}
		if n, err := st.CountRuns(context.Background(), store.Query{Kinds: []string{"measured", "emulated", "predicted"}}); err != nil || n != 0 {
			t.Errorf("after the refusals the store holds %d runs (%v), want none", n, err)
		}
		ext := objectOf(200)
		doc := strings.Replace(seed, `"revision": "main"`, `"revision": "main", "x_ext": `+ext, 1)
		if code, body := ts.submit(t, []byte(doc)); code != http.StatusCreated {
			t.Fatalf("an extension of 200 keys: %d %s", code, body)
		}
		if _, body := ts.get(t, "/api/v1/runs/"+seedID); !strings.Contains(body, ext) {
			t.Error("the extension of 200 keys is not served back as sent")
		}
	})
}

// TestValidationsAtOnceAreBounded: with every validation slot taken, a submission is
// told to retry (503 with Retry-After) instead of taking another core.
func TestValidationsAtOnceAreBounded(t *testing.T) {
	ts := newTestSite(t, storetest.SQLite(t), Options{})
	for range cap(ts.srv.guards.Validations) {
		ts.srv.guards.Validations <- struct{}{}
	}
	go func() {
		time.Sleep(guard.BodyWait + time.Second)
		for range cap(ts.srv.guards.Validations) {
			<-ts.srv.guards.Validations
		}
	}()
	code, hdr, body := ts.do(t, http.MethodPost, "/api/v1/runs", ts.token, seedDoc(t))
	if code != http.StatusServiceUnavailable || hdr.Get("Retry-After") == "" {
		t.Errorf("a submission while %d validations run: %d %s, want 503 with Retry-After", cap(ts.srv.guards.Validations), code, body)
	}
}

// TestFieldErrorsNameTheJSONPath: errors name a field as a JSON path with its indices,
// a time that is not RFC 3339 text gets a plain reason, and lone surrogates are refused.
func TestFieldErrorsNameTheJSONPath(t *testing.T) {
	cases := []struct {
		name, field, reason string
		edit                func(m map[string]any)
	}{
		{"a string figure", "decode[1].total_tok_s", "must be a JSON number", func(m map[string]any) {
			m["decode"].([]any)[1].(map[string]any)["total_tok_s"] = "fast"
		}},
		{"a fractional count", "decode[2].completed_requests", "whole number", func(m map[string]any) {
			m["decode"].([]any)[2].(map[string]any)["completed_requests"] = 1.5
		}},
		{"a numeric time", "created_at", "RFC 3339", func(m map[string]any) { m["created_at"] = 12345 }},
		{"a time in words", "created_at", "RFC 3339", func(m map[string]any) { m["created_at"] = "yesterday" }},
		{"a lone high surrogate", "title", "surrogate", func(m map[string]any) { m["title"] = "\x00SURROGATE" }},
	}
	for _, c := range cases {
		doc := rawEdit(t, c.edit)
		doc = bytes.Replace(doc, []byte(`\u0000SURROGATE`), []byte(`x\ud800y`), 1)
		_, ferr := guard.ValidateRun(doc)
		if ferr == nil || ferr.Field != c.field || !strings.Contains(ferr.Reason, c.reason) {
			t.Errorf("%s: %v, want %s: …%s…", c.name, ferr, c.field, c.reason)
		}
	}
	ok := rawEdit(t, func(m map[string]any) { m["title"] = "\x00PAIR" })
	ok = bytes.Replace(ok, []byte(`\u0000PAIR`), []byte(`\ud83d\ude00 and \\ud800`), 1)
	if _, ferr := guard.ValidateRun(ok); ferr != nil {
		t.Errorf("a title with a surrogate pair and an escaped backslash: %v", ferr)
	}
}

// TestBearerSchemeIsCaseInsensitive: RFC 7235 makes the scheme case-insensitive; the
// site took "bearer" for no token and counted it toward the address's lockout.
func TestBearerSchemeIsCaseInsensitive(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) { bearerSchemeIsCaseInsensitive(t, st) })
}

func bearerSchemeIsCaseInsensitive(t *testing.T, st *store.Store) {
	ts := newTestSite(t, st, Options{})
	for i, scheme := range []string{"bearer", "BEARER", "Bearer", "bEaReR"} {
		doc := rawEdit(t, func(m map[string]any) { m["id"] = fmt.Sprintf("scheme-%d", i) })
		code, _, body := ts.do(t, http.MethodPost, "/api/v1/runs", "", doc, "Authorization", scheme+" "+ts.token)
		if code != http.StatusCreated {
			t.Errorf("Authorization: %s <token>: %d %s", scheme, code, body)
		}
	}
	if code, _, _ := ts.do(t, http.MethodPost, "/api/v1/runs", "", seedDoc(t), "Authorization", "Basic "+ts.token); code != http.StatusUnauthorized {
		t.Errorf("Authorization: Basic <token>: %d, want 401", code)
	}
}

// BenchmarkHugeDecodeArray is the cost of refusing a 3.9 MB document of 1.3 million
// empty decode cells (issue 24: 54–79 s of a core before).
func BenchmarkHugeDecodeArray(b *testing.B) {
	doc := hugeDecode(b, 1_300_000)
	b.SetBytes(int64(len(doc)))
	for b.Loop() {
		if _, ferr := guard.ValidateRun(doc); ferr == nil {
			b.Fatal("accepted")
		}
	}
}
