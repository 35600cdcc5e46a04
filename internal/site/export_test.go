package site

import (
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/api"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// EnglishLabels is every text the site's templates and code name (TextKeys) whose
// Japanese differs, by key, for the test that looks for English left on Japanese
// pages.
func EnglishLabels() (map[string]string, error) {
	keys, err := TextKeys()
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for k := range keys {
		if en := locale.T(locale.EN, k); locale.Has(k) && en != locale.T(locale.JA, k) {
			out[k] = en
		}
	}
	return out, nil
}

// Keys whose name a template writes with printf, by prefix: every value the data can
// give. A template that builds a key from another prefix must add it here.
var dynamicKeyValues = map[string]func() []string{
	"calc_field_": func() []string {
		return []string{"", "gpu", "model", "quant", "kv_dtype", "engine", "gpus", "max_model_len", "gpu_memory_utilization", "max_num_seqs", "max_output", "prefix_caching"}
	},
	"level_": func() []string { return []string{"concurrency", "rate"} },
	"metric_": func() []string {
		var out []string
		for _, m := range metric.CellMetrics {
			out = append(out, m.Name)
		}
		for _, m := range metric.Metrics {
			out = append(out, string(m))
		}
		return out
	},
	"mode_": func() []string { return []string{metric.ModeMatrix, metric.ModeRate} },
	"nav_":  func() []string { return []string{"hardware", "models", "families"} },
	"size_": func() []string {
		var out []string
		for _, b := range store.SizeBuckets {
			out = append(out, b.Name)
		}
		return out
	},
}

var (
	templateKey    = regexp.MustCompile(`\bT "([^"]+)"`)
	templatePrintf = regexp.MustCompile(`\bT \(printf "([^"%]*)%s"`)
	codeKey        = regexp.MustCompile(`\bT\([A-Za-z.]+, "([a-z0-9_]+)"[,)]|\bguard\.Refuse\([^,()]+, "([a-z0-9_]+)"[,)]`)
)

// TextKeys lists every text key the templates name (those a template builds with
// printf, for every value its data can give) and every literal key the package's code
// passes to T or report.T, each with where it is used.
func TextKeys() (map[string]string, error) {
	out := map[string]string{}
	templates := os.DirFS("ui")
	names, err := fs.Glob(templates, "templates/*.html")
	if err != nil {
		return nil, err
	}
	for _, n := range names {
		b, err := fs.ReadFile(templates, n)
		if err != nil {
			return nil, err
		}
		for _, m := range templateKey.FindAllStringSubmatch(string(b), -1) {
			out[m[1]] = n
		}
		for _, m := range templatePrintf.FindAllStringSubmatch(string(b), -1) {
			values, ok := dynamicKeyValues[m[1]]
			if !ok {
				return nil, fmt.Errorf("%s builds keys %s…: list their values in dynamicKeyValues", n, m[1])
			}
			for _, v := range values() {
				out[m[1]+v] = n
			}
		}
	}
	// The code of the site and its packages (not the store's, which names no text).
	err = filepath.WalkDir(".", func(f string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() && (d.Name() == "testdata" || d.Name() == "store") {
			if err == nil {
				err = filepath.SkipDir
			}
			return err
		}
		if d.IsDir() || !strings.HasSuffix(f, ".go") || strings.HasSuffix(f, "_test.go") {
			return nil
		}
		b, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		for _, m := range codeKey.FindAllStringSubmatch(string(b), -1) {
			out[m[1]+m[2]] = f // one of the two is empty
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// APISummaries are the OpenAPI document's operation summaries, [en, ja] by
// "METHOD path".
func APISummaries() (map[string][2]string, error) {
	var doc struct {
		Paths map[string]map[string]struct {
			Summary   string `json:"summary"`
			SummaryJA string `json:"x-summary-ja"`
		} `json:"paths"`
	}
	if err := json.Unmarshal(api.Reference(), &doc); err != nil {
		return nil, err
	}
	out := map[string][2]string{}
	for p, ops := range doc.Paths {
		for m, op := range ops {
			out[strings.ToUpper(m)+" "+p] = [2]string{op.Summary, op.SummaryJA}
		}
	}
	return out, nil
}

// RoutePatterns are the router's patterns ("GET /runs/{id}"), from its own table, for
// the tests that visit every page.
func RoutePatterns() []string {
	var out []string
	for _, rt := range (&Server{}).routes() {
		out = append(out, rt.pattern)
	}
	return out
}

// EvalEntry is a GSM8K evaluation of 100 items whose item i is right when right(i),
// for tests outside the package (accuracy_test.go's evalEntry).
func EvalEntry(right func(i int) bool) rundoc.Accuracy { return evalEntry(right) }
