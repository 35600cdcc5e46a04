package workload

import (
	"bytes"
	"math"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// TestMooncakeRealTrace reads the first 100 lines of Mooncake's FAST'25 conversation
// trace (testdata/README.md): every line's hash ids cover its input in 512-token
// blocks, and its ideal cache hits at the trace's granularity are the 99 later uses
// of the first block all conversations share (an independent count, testdata/README.md:
// 50,688 of 1,524,742 input tokens).
func TestMooncakeRealTrace(t *testing.T) {
	tr, err := LoadMooncake("testdata/mooncake-conversation-100.jsonl", 0)
	if err != nil {
		t.Fatal(err)
	}
	if tr.BlockSize != 512 || len(tr.Requests) != 100 {
		t.Fatalf("block %d, %d requests", tr.BlockSize, len(tr.Requests))
	}
	r := tr.Requests[0]
	if r.Timestamp != 0 || r.InputLength != 6758 || r.OutputLength != 500 || len(r.HashIDs) != 14 || r.HashIDs[0] != 0 {
		t.Errorf("first request %+v", r)
	}
	cached, ratio := tr.IdealCached(CacheModel{})
	sum, total := 0, 0
	for i, c := range cached {
		sum += c
		total += tr.Requests[i].InputLength
	}
	if sum != 50688 || total != 1524742 || math.Abs(ratio-50688.0/1524742) > 1e-12 {
		t.Errorf("ideal %d of %d tokens (ratio %v), want 50688 of 1524742", sum, total, ratio)
	}
	off, err := tr.Offsets(10)
	if err != nil || off[len(off)-1] != 3300*time.Millisecond {
		t.Errorf("the last request at speed 10: %v (%v), want 3.3 s (33,000 ms / 10)", off[len(off)-1], err)
	}
}

// TestTraceTokens: equal hash ids are equal token blocks wherever they are, a short
// last block is the start of its id's block, other ids differ, and a line without
// hash ids shares nothing.
func TestTraceTokens(t *testing.T) {
	tr, err := ParseMooncake("t.jsonl", []byte(strings.Join([]string{
		`{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [7, 8, 9]}`,
		`{"timestamp": 1, "input_length": 7, "output_length": 1, "hash_ids": [7, 8]}`,
		`{"timestamp": 2, "input_length": 8, "output_length": 1, "hash_ids": [8, 7]}`,
		`{"timestamp": 3, "input_length": 8, "output_length": 1}`,
	}, "\n")), 4)
	if err != nil {
		t.Fatal(err)
	}
	a, b, c, d := tr.Tokens(0, 1000, 1), tr.Tokens(1, 1000, 1), tr.Tokens(2, 1000, 1), tr.Tokens(3, 1000, 1)
	if !cmp.Equal(a[:7], b) {
		t.Errorf("ids 7, 8 then a short block of 8: %v is not the start of %v", b, a)
	}
	if !cmp.Equal(c[:4], a[4:8]) || !cmp.Equal(c[4:], a[:4]) {
		t.Error("the same id in another place is not the same block")
	}
	if cmp.Equal(a[:4], a[4:8]) || cmp.Equal(d[:4], a[:4]) || cmp.Equal(d[:4], d[4:]) {
		t.Error("different ids (or no ids) gave equal blocks")
	}
	if !cmp.Equal(a, tr.Tokens(0, 1000, 1)) || cmp.Equal(a, tr.Tokens(0, 1000, 2)) {
		t.Error("tokens must depend on the seed and nothing else")
	}
	words := []string{"w0", "w1", "w2"}
	if got := Text([]int{2, 0, 1}, words); got != "w2 w0 w1" {
		t.Errorf("Text %q", got)
	}
}

// TestTraceIdealByHand: a trace of 4-token blocks seen by a cache of 2-token blocks
// behind a 1-token lead and a 1-token trail (L c1 c2 … T), worked out by hand. A
// prompt of n tokens leaves its lead and content cached up to ⌊(1+n)/2⌋·2 tokens.
//
//	0: first, nothing cached; leaves L c1…c9 (blocks 1, 2 whole, 1 token of 3)
//	1: [1 2 4]: blocks 1, 2 match (8 content tokens) → ⌊(1+8)/2⌋·2 = 8
//	2: equal to 1: whole but its last token, ⌊(1+9+1−1)/2⌋·2 = 10
//	3: [5 2]: 5 was never seen → the lead alone, ⌊1/2⌋·2 = 0
//	4: [1 2] of 7 tokens: all 7 were held (by 0) → 8, its own bound ⌊(1+7)/2⌋·2 = 8
//	5: [1 2 3] of 12: 8 + the 1 token of block 3 held by 0 → ⌊10/2⌋·2 = 10
func TestTraceIdealByHand(t *testing.T) {
	tr, err := ParseMooncake("t.jsonl", []byte(strings.Join([]string{
		`{"timestamp": 0, "input_length": 10, "output_length": 1, "hash_ids": [1, 2, 3]}`,
		`{"timestamp": 1, "input_length": 9, "output_length": 1, "hash_ids": [1, 2, 4]}`,
		`{"timestamp": 2, "input_length": 9, "output_length": 1, "hash_ids": [1, 2, 4]}`,
		`{"timestamp": 3, "input_length": 6, "output_length": 1, "hash_ids": [5, 2]}`,
		`{"timestamp": 4, "input_length": 7, "output_length": 1, "hash_ids": [1, 2]}`,
		`{"timestamp": 5, "input_length": 12, "output_length": 1, "hash_ids": [1, 2, 3]}`,
	}, "\n")), 4)
	if err != nil {
		t.Fatal(err)
	}
	got, ratio := tr.IdealCached(CacheModel{Block: 2, Lead: 1, Trail: 1})
	want := []int{0, 8, 10, 0, 8, 10}
	if !cmp.Equal(got, want) {
		t.Errorf("ideal %v, want %v", got, want)
	}
	if math.Abs(ratio-36.0/(12+11+11+8+9+14)) > 1e-12 {
		t.Errorf("ratio %v", ratio)
	}
}

// TestTraceErrors: bad lines are refused with their file:line.
func TestTraceErrors(t *testing.T) {
	for _, tc := range []struct{ data, want string }{
		{`{"input_length": 5, "output_length": 1}`, `t.jsonl:1: "timestamp"`},
		{"\n" + `{"timestamp": 0, "input_length": 0, "output_length": 1}`, `t.jsonl:2: "input_length" is 0`},
		{`{"timestamp": 0, "input_length": 5, "output_length": 1.5}`, `"output_length" is 1.5`},
		{`{"timestamp": 0, "input_length": 1025, "output_length": 1, "hash_ids": [0, 1]}`, "2 hash ids for 1025 input tokens: blocks of 512 tokens make 3"},
		{`{"timestamp": 0, "input_length": 5, "output_length": 1, "hash_ids": [-1]}`, "hash id -1"},
		{`{"timestamp": 0, "input_length": 5`, "t.jsonl:1:"},
		{"", "t.jsonl: no requests"},
	} {
		if _, err := ParseMooncake("t.jsonl", []byte(tc.data), 0); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.data, err, tc.want)
		}
	}
	if _, err := (&Trace{Requests: []TraceRequest{{}}}).Offsets(-1); err == nil {
		t.Error("a negative speed was accepted")
	}
}

// TestWriteJSONLRoundTrip: a trace written and read back is the same trace, in
// Mooncake's own spacing.
func TestWriteJSONLRoundTrip(t *testing.T) {
	tr, err := LoadMooncake("testdata/mooncake-conversation-100.jsonl", 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := tr.WriteJSONL(&buf); err != nil {
		t.Fatal(err)
	}
	orig, _ := os.ReadFile("testdata/mooncake-conversation-100.jsonl")
	if buf.String() != string(orig) {
		t.Error("writing Mooncake's own lines back does not give them byte for byte")
	}
}

// TestSchedule: a fixed schedule is sent in time order (ties in file order), from the
// first request, faster by the speed factor.
func TestSchedule(t *testing.T) {
	s, err := LoadSchedule("testdata/schedule.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	var order []string
	for _, e := range s.Entries {
		m := e.ChatMessages()
		order = append(order, m[len(m)-1].Content)
	}
	want := []string{"first question", "second, sent at 250.5 ms", "third, sent at 1.5 s", "fourth: same time as the third, after it in the file", "fifth", "sixth"}
	if diff := cmp.Diff(want, order); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	off, err := s.Offsets(2)
	if err != nil {
		t.Fatal(err)
	}
	if wantOff := []time.Duration{0, 125250 * time.Microsecond, 750 * time.Millisecond, 750 * time.Millisecond, 1500 * time.Millisecond, 2 * time.Second}; !cmp.Equal(off, wantOff) {
		t.Errorf("offsets at speed 2: %v, want %v", off, wantOff)
	}
	if s.Entries[0].OutputTokens != 16 || s.Entries[1].OutputTokens != 8 {
		t.Errorf("output lengths %d, %d", s.Entries[0].OutputTokens, s.Entries[1].OutputTokens)
	}
	if _, err := ParseSchedule("s.jsonl", []byte(`{"prompt": "no time"}`)); err == nil || !strings.Contains(err.Error(), `s.jsonl:1: "timestamp"`) {
		t.Errorf("a line without a timestamp: %v", err)
	}
}

// TestPrefixPool: every prefix used n/K times (the remainder to the first), shuffled
// by the seed; a prefix is cached from its second use.
func TestPrefixPool(t *testing.T) {
	p := PrefixPool{Prompts: 3, Tokens: 100}
	a, err := p.Assign(10, 4)
	if err != nil {
		t.Fatal(err)
	}
	count := map[int]int{}
	for _, k := range a {
		count[k]++
	}
	if count[0] != 4 || count[1] != 3 || count[2] != 3 {
		t.Errorf("uses %v, want 4, 3, 3", count)
	}
	b, _ := p.Assign(10, 4)
	c, _ := p.Assign(10, 5)
	if !cmp.Equal(a, b) || cmp.Equal(a, c) {
		t.Error("the assignment must depend on the seed alone")
	}
	got := PrefixPool{Prompts: 2, Tokens: 100}.IdealCached([]int{0, 1, 0, 1, 1}, 16, 3)
	if want := []int{0, 0, 96, 96, 96}; !cmp.Equal(got, want) {
		t.Errorf("ideal %v, want %v (3+100 tokens in blocks of 16 from the second use)", got, want)
	}
	if _, err := (PrefixPool{}).Assign(3, 1); err == nil {
		t.Error("an empty pool was accepted")
	}
}
