package ui

import (
	"strings"
	"testing"

	"github.com/llmbench/llmbench/internal/rundoc"
	seedcopy "github.com/llmbench/llmbench/internal/seed"
)

// TestReportBodyHasTheSeedNumbers: the run page's report body (Wired's renderer)
// is the report package's, in the page's language.
func TestReportBodyHasTheSeedNumbers(t *testing.T) {
	run, err := rundoc.ReadFile(seedcopy.RunPath())
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := (HTMLReport{}).Body(&b, run, "ja"); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{"329.4", "2,163", "1,310"} {
		if !strings.Contains(b.String(), v) {
			t.Errorf("the report body lacks %s", v)
		}
	}
	if (HTMLReport{}).Styles() == "" {
		t.Errorf("no report styles")
	}
}
