package site

import (
	"fmt"
	"html"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/pagecache"
	"github.com/llmbench/llmbench/internal/site/store"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
	"github.com/llmbench/llmbench/internal/site/ui"
)

// largestDoc is the largest run the site accepts, as issue 37 built it: the seed's
// run with 64 contexts × 64 concurrency levels, every cell with a 700-character
// reason — the even cells valid with the seed's figures, the odd ones failed — the
// reasons each distinct (distinct) or one for all.
func largestDoc(t testing.TB, id string, distinct bool) []byte {
	t.Helper()
	return edited(t, func(r *rundoc.Run) {
		r.ID = id
		valid, failed := r.Decode[0], r.Decode[0]
		failed.Status, failed.DecodeFigures, failed.WindowStats = rundoc.StatusFailed, nil, nil
		r.Config.Contexts, r.Config.Concurrency, r.Decode = nil, nil, nil
		for i := range rundoc.MaxAxis {
			r.Config.Contexts = append(r.Config.Contexts, i*1024)
			r.Config.Concurrency = append(r.Config.Concurrency, i+1)
		}
		for _, ctx := range r.Config.Contexts {
			for _, n := range r.Config.Concurrency {
				c := valid
				if (ctx/1024+n)%2 == 1 {
					c = failed
				}
				c.Context, c.Concurrency = ctx, n
				c.Reason = "the server answered 500 " + strings.Repeat("x", 700)
				if distinct {
					c.Reason = fmt.Sprintf("cell %d×%d: ", ctx, n) + c.Reason
				}
				c.Reason = c.Reason[:700]
				r.Decode = append(r.Decode, c)
			}
		}
	})
}

// TestLargestRunPageIsCapped: the run page of the largest document the site accepts
// (issue 37: 7 MB, never kept by the page cache) holds each distinct reason at most
// once, fits in the page cache, and says what it left out; in both languages, on both
// stores, whether the reasons are one or 4,096.
func TestLargestRunPageIsCapped(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{Report: ui.HTMLReport{}, RateBurst: 100, MaxBodyBytes: 8 << 20})
		for _, distinct := range []bool{false, true} {
			id := fmt.Sprintf("largest-%v", distinct)
			doc := largestDoc(t, id, distinct)
			if code, body := ts.submit(t, doc); code != http.StatusCreated {
				t.Fatalf("the largest document (%d bytes): %d %.300s", len(doc), code, body)
			}
			for _, lang := range []string{locale.EN, locale.JA} {
				code, page := ts.get(t, "/runs/"+id+"?lang="+lang)
				t.Logf("distinct reasons %v, %s: the run page is %d bytes (document %d)", distinct, lang, len(page), len(doc))
				if code != http.StatusOK || len(page) > pagecache.MaxPageBytes {
					t.Errorf("the run page: %d, %d bytes; want 200 within the page cache's %d", code, len(page), pagecache.MaxPageBytes)
				}
				if !strings.Contains(page, `id="report-too-large"`) || !strings.Contains(page, html.EscapeString(locale.T(lang, "report_too_large", rundoc.MaxAxis*rundoc.MaxAxis))) {
					t.Errorf("the run page does not say that it shows a summary (%s)", lang)
				}
				reason := "the server answered 500 " + strings.Repeat("x", 600)
				if n := strings.Count(page, reason); n == 0 || n > report.MaxReasonNotes {
					t.Errorf("the page holds a reason %d times, want each distinct one once, at most %d", n, report.MaxReasonNotes)
				}
			}
		}
	})
}

// TestRepeatedEmbedsOfTheLargestRun: a report repeating one embed of the largest run
// 10,000 times (issue 37: 104 repeats were a 183.6 MB page) renders under 5 MB, with
// the run's card once, on both stores.
func TestRepeatedEmbedsOfTheLargestRun(t *testing.T) {
	storetest.Each(t, func(t *testing.T, st *store.Store) {
		ts := newTestSite(t, st, Options{RateBurst: 100, MaxBodyBytes: 8 << 20})
		if code, body := ts.submit(t, largestDoc(t, "largest", true)); code != http.StatusCreated {
			t.Fatalf("the largest document: %d %.300s", code, body)
		}
		md := strings.Repeat("[[run:largest]]\n\n", 10_000)
		if code, _, body := ts.do(t, http.MethodPost, "/api/v1/reports", ts.token, []byte(`{"slug":"again","title":"t","body_md":`+jsonString(md)+`}`)); code != http.StatusCreated {
			t.Fatalf("posting the report: %d %s", code, body)
		}
		code, page := ts.get(t, "/reports/again")
		t.Logf("the report repeating one embed 10,000 times is %d bytes", len(page))
		if code != http.StatusOK || len(page) >= 5<<20 {
			t.Errorf("the report: %d, %d bytes; want 200 under 5 MB", code, len(page))
		}
		if n := strings.Count(page, `class="runcard"`); n != 1 {
			t.Errorf("the run's card is shown %d times, want once", n)
		}
		if n := strings.Count(page, `class="runref"`); n != ui.MaxEmbeds-1 {
			t.Errorf("%d links to the card, want %d (the embeds up to %d)", n, ui.MaxEmbeds-1, ui.MaxEmbeds)
		}
	})
}

// TestLargestRunReportWritesEachReasonOnce: the report body of the largest document
// (issue 37 item 4: each of its 4,096 reasons was written in the cell's hover text,
// its footnote and its row, 11.3 MB) writes each distinct reason at most once, in the
// numbered list under the matrix, which holds at most report.MaxReasonNotes and counts
// the rest; a cell's hover and its row name the reason's number. Its quarter (32 × 32,
// 2.8 MB before) now fits the run page's limit, so that page shows the whole report.
func TestLargestRunReportWritesEachReasonOnce(t *testing.T) {
	for _, distinct := range []bool{false, true} {
		for _, side := range []int{rundoc.MaxAxis, rundoc.MaxAxis / 2} {
			run, err := rundoc.Decode(largestDoc(t, "largest", distinct))
			if err != nil {
				t.Fatal(err)
			}
			run.Config.Contexts, run.Config.Concurrency = run.Config.Contexts[:side], run.Config.Concurrency[:side]
			run.Decode = slices.DeleteFunc(run.Decode, func(c rundoc.DecodeCell) bool { return c.Context >= side*1024 || c.Concurrency > side })
			for _, lang := range []string{locale.EN, locale.JA} {
				var b strings.Builder
				if err := (ui.HTMLReport{}).Body(&b, run, lang); err != nil {
					t.Fatal(err)
				}
				body := b.String()
				t.Logf("distinct reasons %v, %d × %d, %s: the report body is %d bytes", distinct, side, side, lang, len(body))
				// Every reason begins alike: each is written once, or the list has the first 32.
				written, want := strings.Count(body, "the server answered 500 "), 1
				if distinct {
					want = report.MaxReasonNotes
					if more := len(run.Decode) - want; !strings.Contains(body, html.EscapeString(locale.T(lang, "matrix_more_notes", more))) {
						t.Errorf("the %d reasons past the list are not counted (%s)", more, lang)
					}
				}
				if written != want {
					t.Errorf("%d × %d cells, distinct reasons %v (%s): the reasons are written %d times, want %d", side, side, distinct, lang, written, want)
				}
				if !strings.Contains(body, html.EscapeString(locale.T(lang, "reason_ref", 1))) {
					t.Errorf("no cell names its reason's number (%s)", lang)
				}
				if side < rundoc.MaxAxis && len(body) > ui.MaxRunReportBytes {
					t.Errorf("the report of %d × %d cells is %d bytes, over the run page's %d", side, side, len(body), ui.MaxRunReportBytes)
				}
			}
		}
	}
}
