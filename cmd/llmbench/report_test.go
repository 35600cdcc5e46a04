package main

import (
	"bytes"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// runReportCmd runs "llmbench report ARGS…" and returns its standard output.
func runReportCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRootCmd()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(append([]string{"report"}, args...))
	err := root.Execute()
	return out.String(), err
}

var seedRun = seedcopy.RunPath()

func TestReportPrintsSeedTables(t *testing.T) {
	out, err := runReportCmd(t, seedRun)
	if err != nil {
		t.Fatal(err)
	}
	// A sample of the seed page's figures from each table; the report package's tests
	// compare every row.
	for _, want := range []string{
		"Qwen3.8-27B-INT4 on RTX 3090 24GB", "Measured",
		"8K              2,163   3,808 ms", "56K             1,664  33,908 ms",
		"48.2 (85 ms)", "329.4 (496 ms)", "43.5 (1,310 ms)", "Over capacity",
		"2,163.0", "20.7 ms", "1.00", "1,445", "30.0 s", "9,878",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report output lacks %q:\n%s", want, out)
		}
	}
}

func TestReportWritesFile(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"text", "md", "csv", "json", "html"} {
		path := filepath.Join(dir, "out."+f)
		if _, err := runReportCmd(t, seedRun, "--format", f, "-o", path, "--lang", "ja"); err != nil {
			t.Fatalf("--format %s: %v", f, err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Contains(b, []byte("2,163")) && !bytes.Contains(b, []byte("2163")) {
			t.Errorf("--format %s: the file lacks the seed's 8K prefill figure", f)
		}
	}
}

func TestReportErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cases := []struct {
		name string
		args []string
		want string
	}{
		{"missing file", []string{filepath.Join(dir, "nope.json")}, "does not exist"},
		{"bad json", []string{write("bad.json", "{oops")}, "parsing run document"},
		{"not a run", []string{write("other.json", `{"name": "x"}`)}, "not an llmbench run document"},
		{"wrong schema", []string{write("v9.json", `{"schema_version": 9}`)}, "schema_version 9"},
		{"unknown format", []string{seedRun, "--format", "xml"}, `unknown --format "xml"`},
		{"unknown language", []string{seedRun, "--lang", "fr"}, `unknown --lang "fr"`},
		{"no file", nil, "report needs a run document"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := runReportCmd(t, c.args...)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error = %v, want one containing %q", err, c.want)
			}
		})
	}
}
