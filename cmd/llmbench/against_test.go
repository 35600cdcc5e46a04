package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/overlay/overlaytest"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site"
	"github.com/llmbench/llmbench/internal/site/client"
	"github.com/llmbench/llmbench/internal/site/store/storetest"
)

// againstSite is the real site on loopback holding overlaytest.Pair's two runs (mine
// first by peak total tok/s, so --against must pass over it), a weaker run of the same
// GPU and model, and a stronger one on another GPU; it returns the site's address and
// mine written to a file.
func againstSite(t *testing.T) (base, minePath string) {
	t.Helper()
	st := storetest.SQLite(t)
	srv, err := site.New(site.Options{Store: st, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv.Handler())
	t.Cleanup(hs.Close)
	tok, err := st.CreateToken(context.Background(), "@alice", "Acme Labs")
	if err != nil {
		t.Fatal(err)
	}
	mine, best, _ := overlaytest.Pair()
	weaker, _, _ := overlaytest.Pair()
	weaker.ID = "weaker-seed"
	for i := range weaker.Decode {
		if f := weaker.Decode[i].DecodeFigures; f != nil {
			f.TotalTokS /= 2
			f.PerRequestTokS /= 2
			weaker.Decode[i].CellIntervals = nil
		}
	}
	elsewhere, _, _ := overlaytest.Pair()
	elsewhere.ID, elsewhere.Hardware.GPUs[0].Name = "elsewhere-seed", "H100 SXM"
	for _, r := range []*rundoc.Run{mine, best, weaker, elsewhere} {
		doc, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := client.Submit(context.Background(), hs.Client(), hs.URL, tok, doc); err != nil {
			t.Fatalf("submitting %s: %v", r.ID, err)
		}
	}
	minePath = filepath.Join(t.TempDir(), "mine.json")
	doc, _ := json.Marshal(mine)
	writeSiteFile(t, minePath, string(doc))
	return hs.URL, minePath
}

// TestReportAgainst is what a user does: lay a run over the best of its GPU and model
// on a site, by the site's address or the best run's page or API address, in each
// format that holds the overlay and in both languages; and the refusals.
func TestReportAgainst(t *testing.T) {
	base, mine := againstSite(t)
	_, _, marked := overlaytest.Pair()
	marks := func(out, lang string) int {
		return strings.Count(out, locale.T(lang, "ov_better")) + strings.Count(out, locale.T(lang, "ov_worse"))
	}
	for _, against := range []string{base, base + "/", base + "/runs/best-seed", base + "/api/v1/runs/best-seed"} {
		for _, lang := range []string{"en", "ja"} {
			out, err := runCmd(t, "report", mine, "--against", against, "--lang", lang)
			if err != nil {
				t.Fatalf("--against %s: %v\n%s", against, err, out)
			}
			if !strings.Contains(out, base+"/runs/best-seed") || !strings.Contains(out, "Best: Qwen3.8") {
				t.Errorf("--against %s --lang %s: not laid over best-seed:\n%s", against, lang, out)
			}
			if n := marks(out, lang); n != len(marked) {
				t.Errorf("--against %s --lang %s: %d marks, want %d", against, lang, n, len(marked))
			}
		}
	}
	sameMarks(t, base, mine)
	out, err := runCmd(t, "report", mine, "--against", base, "--format", "md")
	if err != nil || marks(out, "en") != len(marked) || !strings.Contains(out, "## "+locale.T("en", "ov_title")) {
		t.Errorf("md: %v\n%s", err, out)
	}
	page := filepath.Join(t.TempDir(), "page.html")
	if out, err := runCmd(t, "report", mine, "--against", base, "--format", "html", "-o", page); err != nil {
		t.Fatalf("html: %v\n%s", err, out)
	}
	html, _ := os.ReadFile(page)
	if n := strings.Count(string(html), `data-mark="better"`) + strings.Count(string(html), `data-mark="worse"`); n != len(marked) {
		t.Errorf("html: %d rows marked, want %d", n, len(marked))
	}

	other := strings.Replace(string(must(os.ReadFile(mine))), `"RTX 3090"`, `"RTX 5090"`, 1)
	lonely := filepath.Join(t.TempDir(), "lonely.json")
	writeSiteFile(t, lonely, other)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", mine, "--against", base, "--format", "csv"}, "text, md and html"},
		{[]string{"report", mine, "--against", base + "/runs/no-such-run"}, "404"},
		{[]string{"report", mine, "--against", base + "/leaderboard"}, "/runs/ID"},
		{[]string{"report", mine, "--against", "ftp://example.org"}, "site's address"},
		{[]string{"report", lonely, "--against", base}, "no other measured run of RedHatAI/Qwen3.8-27B-INT4 on RTX 5090"},
	} {
		if out, err := runCmd(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: err = %v, want one saying %q\n%s", c.args[2:], err, c.want, out)
		}
	}
}

// sameMarks: the terminal and the site mark the same figures of the same cells —
// the marks of report --against's rows, in order, are the run page's.
func sameMarks(t *testing.T, base, mine string) {
	t.Helper()
	out, err := runCmd(t, "report", mine, "--against", base)
	if err != nil {
		t.Fatal(err)
	}
	marks := []string{"better", "worse", "noise", "no_interval", "not_comparable", "only_mine", "only_best"}
	var terminal []string
	for _, line := range strings.Split(out, "\n") {
		for _, m := range marks {
			if strings.HasSuffix(strings.TrimSpace(line), locale.T("en", "ov_"+m)) {
				terminal = append(terminal, m)
				break
			}
		}
	}
	resp, err := http.Get(base + "/runs/mine-seed")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var site []string
	for _, m := range regexp.MustCompile(`data-mark="([a-z_]+)"`).FindAllStringSubmatch(string(page), -1) {
		site = append(site, m[1])
	}
	if len(terminal) < 10 || !slices.Equal(terminal, site) {
		t.Errorf("the terminal's marks\n%v\nare not the run page's\n%v", terminal, site)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// againstLocal points a documented --against at a loopback site holding the pair's
// best run (the seed's GPU and model): the address's path is kept, its host is the
// test site's.
func (s *docServers) againstLocal(args []string) []string {
	for i, a := range args {
		if a != "--against" || i+1 >= len(args) {
			continue
		}
		if s.against == "" {
			s.against, _ = againstSite(s.t)
		}
		u, err := url.Parse(args[i+1])
		if err != nil {
			s.t.Fatalf("--against %q: %v", args[i+1], err)
		}
		local := must(url.Parse(s.against))
		u.Scheme, u.Host = local.Scheme, local.Host
		args[i+1] = u.String()
	}
	return args
}
