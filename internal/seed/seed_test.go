package seed

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"
)

func TestRunPathIsTheEmbeddedDocument(t *testing.T) {
	b, err := os.ReadFile(RunPath())
	if err != nil {
		t.Fatalf("reading the seed run from its path: %v", err)
	}
	if !bytes.Equal(b, RunJSON) {
		t.Error("seed-run.json on disk differs from the embedded copy")
	}
	var doc map[string]any
	if err := json.Unmarshal(RunJSON, &doc); err != nil {
		t.Fatalf("the seed run is not JSON: %v", err)
	}
	if doc["schema_version"] != float64(1) {
		t.Error("the seed run is not schema v1")
	}
}

func TestPageIsTheSeedPage(t *testing.T) {
	for _, want := range []string{"Speed test matrix", "Qwen3.8-27B-INT4 on RTX 3090 24GB", "--max-model-len 65536", "56K context1,66433,908 ms TTFT"} {
		if !strings.Contains(PageText, want) {
			t.Errorf("the seed page lacks %q", want)
		}
	}
}

// TestPageTables: the transcribed tables decode and hold the seed page's shape: the
// prefill rows, four contexts of the matrix, and its twelve-column measurements.
func TestPageTables(t *testing.T) {
	s := PageTables()
	if len(s.Header) == 0 || len(s.Prefill) == 0 || len(s.Matrix) != 4 || len(s.All) == 0 || len(s.All[0]) != 12 {
		t.Errorf("seed tables: %d header lines, %d prefill rows, %d matrix rows, %d measurements", len(s.Header), len(s.Prefill), len(s.Matrix), len(s.All))
	}
	for i, row := range s.Matrix {
		if !strings.Contains(PageText, row[len(row)-1]) && row[len(row)-1] != "" {
			t.Errorf("matrix row %d's last cell %q is not on the seed page", i, row[len(row)-1])
		}
	}
}
