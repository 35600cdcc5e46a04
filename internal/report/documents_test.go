package report

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReadRunSaysWhere: a document that does not parse is named with the line and
// column at fault; one without schema_version is said not to be a run document.
func TestReadRunSaysWhere(t *testing.T) {
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, c := range []struct{ path, want string }{
		{filepath.Join(dir, "nope.json"), "does not exist"},
		{write("other.json", `{"name": "x"}`), "not an llmbench run document"},
		{write("typ.json", "{\"schema_version\": 1,\n \"id\": 5}"), "at line 2, column"},
	} {
		if _, err := ReadRun(c.path); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err = %v, want %q", c.path, err, c.want)
		}
	}
}

// TestRenderChecksFirst: an unknown format or language is refused before any file is
// read.
func TestRenderChecksFirst(t *testing.T) {
	var out, stderr bytes.Buffer
	if err := Render(&out, &stderr, []string{"nope.json"}, "", Options{Format: "xml", Lang: "en"}); err == nil || !strings.Contains(err.Error(), `unknown --format "xml"`) {
		t.Errorf("xml: err = %v", err)
	}
	if err := Render(&out, &stderr, []string{"nope.json"}, "", Options{Format: "text", Lang: "fr"}); err == nil || !strings.Contains(err.Error(), `unknown --lang "fr"`) {
		t.Errorf("fr: err = %v", err)
	}
}
