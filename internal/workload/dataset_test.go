package workload

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/openai"
)

// TestShareGPT reads ShareGPT_V3's layout as vLLM does: a conversation of one turn is
// left out, the first turn is the prompt and the second the completion whatever their
// speakers, and the user turns are kept in order for sessions.
func TestShareGPT(t *testing.T) {
	d, err := LoadDataset("testdata/sharegpt-small.json")
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != "sharegpt" || d.Name != "sharegpt-small.json" || len(d.Entries) != 3 || d.Skipped != 1 {
		t.Fatalf("%s %q: %d entries, %d skipped; want sharegpt, 3 and 1", d.Format, d.Name, len(d.Entries), d.Skipped)
	}
	first := d.Entries[0]
	if first.Prompt != "What does a prefix cache do in an inference server?" || !strings.HasPrefix(first.Completion, "It keeps the attention") {
		t.Errorf("first conversation: prompt %q, completion %q", first.Prompt, first.Completion)
	}
	if first.Where != "testdata/sharegpt-small.json:2" {
		t.Errorf("first conversation is at %q, want line 2", first.Where)
	}
	if d.Entries[1].Prompt != "You are a terse assistant." || d.Entries[1].Completion != "Name three ways to make decoding faster." {
		t.Errorf("a system turn first: vLLM takes turns 0 and 1 as they are; got %q / %q", d.Entries[1].Prompt, d.Entries[1].Completion)
	}
	want := []string{"Translate \"bonjour\" into English.\nThen explain the greeting's register.", "Is \"salut\" the same?", "Thanks."}
	if diff := cmp.Diff(want, d.Entries[2].Turns); diff != "" {
		t.Errorf("user turns (-want +got):\n%s", diff)
	}
	if got := d.Entries[2].ChatMessages(); len(got) != 1 || got[0].Role != "user" || got[0].Content != want[0] {
		t.Errorf("a ShareGPT entry is sent as its first turn: %+v", got)
	}
}

// TestPromptsJSONL reads each kind of line: vLLM's custom line, chat messages (string
// content and text parts), AIPerf's text, an output length under each name; blank
// lines and unknown fields are no error.
func TestPromptsJSONL(t *testing.T) {
	d, err := LoadDataset("testdata/prompts.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	want := []Entry{
		{Prompt: "What is the capital of India?", OutputTokens: 10, Where: "testdata/prompts.jsonl:1"},
		{Messages: []openai.Message{{Role: "system", Content: "Answer in one word."}, {Role: "user", Content: "What colour is the sky?"}}, OutputTokens: 4, Where: "testdata/prompts.jsonl:2"},
		{Prompt: "Explain what a token is to a child.", OutputTokens: 64, Where: "testdata/prompts.jsonl:4"},
		{Messages: []openai.Message{{Role: "user", Content: "Describe a cache\nin two sentences."}}, Where: "testdata/prompts.jsonl:5"},
		{Prompt: "List the prime numbers below twenty.", OutputTokens: 32, Where: "testdata/prompts.jsonl:6"},
	}
	if d.Format != "prompts" {
		t.Errorf("format %q", d.Format)
	}
	if diff := cmp.Diff(want, d.Entries); diff != "" {
		t.Errorf("entries (-want +got):\n%s", diff)
	}
}

// TestDatasetErrors: bad input is refused with the file and the line it is on.
func TestDatasetErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"not JSON", "{\"prompt\": \"a\"}\n{\"prompt\": \"b\"\n", "d.jsonl:2:"},
		{"no prompt", "{\"prompt\": \"a\"}\n\n{\"output_tokens\": 5}\n", `d.jsonl:3: no "messages", "prompt", "text" or "conversations"`},
		{"empty prompt", "{\"prompt\": \"  \"}\n", "d.jsonl:1: the prompt is empty"},
		{"fractional output", "{\"prompt\": \"a\", \"max_tokens\": 2.5}\n", `d.jsonl:1: "max_tokens" is 2.5`},
		{"zero output", "{\"prompt\": \"a\", \"output_tokens\": 0}\n", `"output_tokens" is 0`},
		{"two output lengths", "{\"prompt\": \"a\", \"output_tokens\": 5, \"max_tokens\": 6}\n", "two output lengths disagree"},
		{"image part", "{\"messages\": [{\"role\": \"user\", \"content\": [{\"type\": \"image_url\"}]}]}\n", `d.jsonl:1: messages[0]: a "image_url" part`},
		{"no role", "{\"messages\": [{\"content\": \"hi\"}]}\n", "messages[0] has no role"},
		{"sharegpt speaker", "[\n{\"conversations\": [\n{\"from\": \"human\", \"value\": \"a\"}, {\"from\": \"robot\", \"value\": \"b\"}]}\n]", `d.jsonl:2: conversations[1]: unknown speaker "robot"`},
		{"sharegpt value type", "[\n{\"conversations\": []},\n{\"conversations\": [{\"from\": \"human\", \"value\": 3}, {\"from\": \"gpt\", \"value\": \"b\"}]}\n]", "d.jsonl:3: \"conversations\""},
		{"array cut short", "[\n{\"prompt\": \"a\"},\n{\"prompt\": ", "d.jsonl:3:"},
		{"array syntax", "[\n{\"prompt\": \"a\"}\n{\"prompt\": \"b\"}\n]", "d.jsonl:3:"},
		{"only short conversations", "[{\"conversations\": [{\"from\": \"human\", \"value\": \"a\"}]}]", "no requests (1 conversations of fewer than two turns left out)"},
		{"empty", "\n\n", "d.jsonl: no requests"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseDataset("d.jsonl", []byte(tc.data))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// TestSample: the same seed draws the same requests, another seed others; keep
// filters; too few kept are drawn again (oversampled) from those kept.
func TestSample(t *testing.T) {
	var lines []string
	for i := range 50 {
		lines = append(lines, `{"prompt": "p`+strings.Repeat("x", i)+`"}`)
	}
	d, err := ParseDataset("d.jsonl", []byte(strings.Join(lines, "\n")))
	if err != nil {
		t.Fatal(err)
	}
	a, _ := d.Sample(20, 7, nil)
	b, _ := d.Sample(20, 7, nil)
	c, _ := d.Sample(20, 8, nil)
	if !cmp.Equal(a, b) || cmp.Equal(a, c) {
		t.Error("a sample must depend on the seed, and only on it")
	}
	seen := map[string]bool{}
	for _, e := range a {
		if seen[e.Prompt] {
			t.Errorf("a sample of 20 from 50 drew %q twice", e.Prompt)
		}
		seen[e.Prompt] = true
	}
	short := func(e Entry) bool { return len(e.Prompt) < 6 } // p, px … pxxxx: five kept
	s, err := d.Sample(12, 7, short)
	if err != nil || len(s) != 12 {
		t.Fatalf("oversampled %d (%v), want 12", len(s), err)
	}
	distinct := map[string]bool{}
	for _, e := range s {
		if !short(e) {
			t.Errorf("%q was not kept by the filter", e.Prompt)
		}
		distinct[e.Prompt] = true
	}
	if len(distinct) != 5 {
		t.Errorf("%d distinct requests, want the 5 kept", len(distinct))
	}
	if _, err := d.Sample(3, 7, func(Entry) bool { return false }); err == nil {
		t.Error("a sample with nothing kept was not refused")
	}
}

// TestValidLengths: vLLM's pruning bounds, each side of each.
func TestValidLengths(t *testing.T) {
	for _, tc := range []struct {
		p, o  int
		given bool
		want  bool
	}{
		{4, 4, false, true}, {3, 100, false, false}, {100, 3, false, false}, {100, 3, true, true},
		{1024, 1024, false, true}, {1025, 10, false, false}, {1024, 1025, false, false},
	} {
		if got := ValidLengths(tc.p, tc.o, tc.given); got != tc.want {
			t.Errorf("ValidLengths(%d, %d, %v) = %v", tc.p, tc.o, tc.given, got)
		}
	}
}
