package workload

import (
	"os"
	"regexp"
	"strings"
	"testing"
)

// TestDocExamples: every example docs/workloads.md shows is read by the parser of the
// format it names, so the page shows no file llmbench would refuse.
func TestDocExamples(t *testing.T) {
	doc, err := os.ReadFile("../../docs/workloads.md")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile("(?s)<!-- workload-example: (\\w+) -->\n```\\w*\n(.*?)```")
	seen := map[string]bool{}
	for _, m := range re.FindAllStringSubmatch(string(doc), -1) {
		kind, body := m[1], []byte(m[2])
		seen[kind] = true
		var err error
		switch kind {
		case "dataset":
			var d *Dataset
			if d, err = ParseDataset("example", body); err == nil && d.Format != "prompts" {
				t.Errorf("the dataset example reads as %s", d.Format)
			}
		case "sharegpt":
			var d *Dataset
			if d, err = ParseDataset("example", body); err == nil && (d.Format != "sharegpt" || len(d.Entries[0].Turns) != 2) {
				t.Errorf("the ShareGPT example reads as %s with turns %q", d.Format, d.Entries[0].Turns)
			}
		case "mooncake":
			_, err = ParseMooncake("example", body, 0)
		case "schedule":
			_, err = ParseSchedule("example", body)
		case "think":
			for _, l := range strings.Fields(string(body)) {
				if _, e := ParseThink(l); e != nil {
					err = e
				}
			}
		default:
			t.Errorf("an example of an unknown kind %q", kind)
		}
		if err != nil {
			t.Errorf("the %s example is refused: %v", kind, err)
		}
	}
	for _, kind := range []string{"dataset", "sharegpt", "mooncake", "schedule", "think"} {
		if !seen[kind] {
			t.Errorf("docs/workloads.md has no %s example", kind)
		}
	}
}
