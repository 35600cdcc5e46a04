package workload

import (
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/openai"
)

var testWords = strings.Fields("alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima mike november oscar papa")

// TestPlanSessionsSynthetic: messages of the asked length, their own per (session,
// turn), think times only between turns, all from the seed.
func TestPlanSessionsSynthetic(t *testing.T) {
	spec := SessionSpec{Turns: 5, UserTokens: 12, Texts: WordTexts(testWords, 3), OutputTokens: 40, Think: Think{Mean: 2 * time.Second}}
	a, err := PlanSessions(spec, 4, 9)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := PlanSessions(spec, 4, 9)
	if !cmp.Equal(a, b) {
		t.Error("the same seed planned other sessions")
	}
	seen := map[string]bool{}
	for _, s := range a {
		for k, turn := range s.Turns {
			if n := len(strings.Fields(turn.User)); n != 12 {
				t.Errorf("session %d turn %d: %d words, want 12", s.ID, k, n)
			}
			if seen[turn.User] {
				t.Errorf("session %d turn %d repeats another turn's message", s.ID, k)
			}
			seen[turn.User] = true
			if want := map[bool]time.Duration{true: 0, false: 2 * time.Second}[k == 0]; turn.Think != want || turn.OutputTokens != 40 {
				t.Errorf("session %d turn %d: think %v, output %d", s.ID, k, turn.Think, turn.OutputTokens)
			}
		}
	}
}

// TestThinkExponential: exponential think times have the asked mean (within 5% over
// 4,000 draws, about 3 standard errors) and are not all equal.
func TestThinkExponential(t *testing.T) {
	th, err := ParseThink("exp:1s")
	if err != nil || !th.Exponential || th.Mean != time.Second || th.String() != "exp:1s" {
		t.Fatalf("ParseThink: %+v %v", th, err)
	}
	s, err := PlanSessions(SessionSpec{Turns: 4001, UserTokens: 1, Texts: WordTexts(testWords, 1), Think: th}, 1, 5)
	if err != nil {
		t.Fatal(err)
	}
	var sum time.Duration
	for _, turn := range s[0].Turns[1:] {
		sum += turn.Think
	}
	if mean := sum.Seconds() / 4000; math.Abs(mean-1) > 0.05 {
		t.Errorf("mean think %.3fs, want 1s", mean)
	}
	if s[0].Turns[1].Think == s[0].Turns[2].Think {
		t.Error("exponential think times are all the same")
	}
	for _, bad := range []string{"", "exp:", "-1s", "two seconds"} {
		if _, err := ParseThink(bad); err == nil {
			t.Errorf("ParseThink(%q) accepted", bad)
		}
	}
}

// TestPlanSessionsFromDataset: a session takes its conversation's user turns, then the
// next entry's, in the seed's shuffle of the dataset; an entry's output length carries over unless the spec sets one.
func TestPlanSessionsFromDataset(t *testing.T) {
	d, err := LoadDataset("testdata/sharegpt-small.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := PlanSessions(SessionSpec{Turns: 3, From: d.Entries}, 3, 1)
	if err != nil {
		t.Fatal(err)
	}
	got := func(i int) []string {
		var out []string
		for _, turn := range s[i].Turns {
			out = append(out, turn.User)
		}
		return out
	}
	// Three sessions start from the three conversations, each in the seed's order,
	// and go on with the next conversation of that order.
	order := []int{}
	for i := range 3 {
		k := slices.IndexFunc(d.Entries, func(e Entry) bool { return e.userTurns()[0] == got(i)[0] })
		if k < 0 || slices.Contains(order, k) {
			t.Fatalf("session %d starts with %q: not a conversation of its own", i, got(i)[0])
		}
		order = append(order, k)
	}
	for i := range 3 {
		var want []string
		for j := i; len(want) < 3; j++ {
			want = append(want, d.Entries[order[j%3]].userTurns()...)
		}
		if diff := cmp.Diff(want[:3], got(i)); diff != "" {
			t.Errorf("session %d (-want +got):\n%s", i, diff)
		}
	}
	// Another seed (another cell) sends them in another order; one session planned
	// alone is the same as planned with all.
	orders := map[string]bool{}
	for seed := range uint64(20) {
		s2, err := PlanSessions(SessionSpec{Turns: 1, From: d.Entries}, 1, seed)
		if err != nil {
			t.Fatal(err)
		}
		alone, err := PlanSession(SessionSpec{Turns: 1, From: d.Entries}, 0, seed)
		if err != nil || !cmp.Equal(alone, s2[0]) {
			t.Errorf("seed %d: session 0 planned alone %+v, with the others %+v (%v)", seed, alone, s2[0], err)
		}
		orders[s2[0].Turns[0].User] = true
	}
	if len(orders) != len(d.Entries) {
		t.Errorf("20 seeds started session 0 from %d of the %d conversations", len(orders), len(d.Entries))
	}
	if _, err := PlanSessions(SessionSpec{Turns: 2, From: []Entry{{Messages: []openai.Message{{Role: "system", Content: "x"}}}}}, 1, 1); err == nil {
		t.Error("a dataset without user messages was accepted")
	}
	if _, err := PlanSessions(SessionSpec{Turns: 2}, 1, 1); err == nil {
		t.Error("sessions without messages of any kind were accepted")
	}
}

// TestConversation: turn k's messages are every earlier message, the server's real
// replies included, then the new user message; a request's messages never change
// after it was handed out; a reply needs a turn awaiting it.
func TestConversation(t *testing.T) {
	s := &Session{ID: 7, Turns: []Turn{{User: "q0", OutputTokens: 5}, {User: "q1", Think: time.Second}, {User: "q2"}}}
	c := NewConversation(s, openai.Message{Role: "system", Content: "sys"})
	if err := c.Reply("early", TurnUsage{}); err == nil {
		t.Error("a reply before any turn was accepted")
	}
	r0, ok := c.Next()
	if !ok || r0.Session != 7 || r0.Turn != 0 || r0.OutputTokens != 5 {
		t.Fatalf("turn 0: %+v %v", r0, ok)
	}
	if _, ok := c.Next(); ok {
		t.Error("a second turn was handed out before the first's reply")
	}
	if err := c.Reply("a0", TurnUsage{PromptTokens: 10, CompletionTokens: 5}); err != nil {
		t.Fatal(err)
	}
	r1, _ := c.Next()
	c.Reply("a1", TurnUsage{PromptTokens: 20, CompletionTokens: 6})
	r2, _ := c.Next()
	want := []openai.Message{{Role: "system", Content: "sys"}, {Role: "user", Content: "q0"}, {Role: "assistant", Content: "a0"},
		{Role: "user", Content: "q1"}, {Role: "assistant", Content: "a1"}, {Role: "user", Content: "q2"}}
	if diff := cmp.Diff(want, r2.Messages); diff != "" {
		t.Errorf("turn 2's messages (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(want[:4], r1.Messages); diff != "" || r1.Think != time.Second {
		t.Errorf("turn 1's messages changed after later turns (-want +got):\n%s", diff)
	}
	if len(r0.Messages) != 2 {
		t.Errorf("turn 0's messages grew to %d", len(r0.Messages))
	}
	c.Reply("a2", TurnUsage{PromptTokens: 30, CompletionTokens: 4})
	if !c.Done() || len(c.Usage()) != 3 {
		t.Errorf("done %v after 3 replies, usage %d", c.Done(), len(c.Usage()))
	}
	ended := NewConversation(s)
	ended.Next()
	ended.End()
	if !ended.Done() {
		t.Error("an ended conversation is not done")
	}
}

// TestIdealCached: worked by hand. Turn 1 repeats turn 0's prompt and reply but the
// reply's last token: 100+20−1 = 119 tokens, 112 in blocks of 16; turn 2's bound is
// its own prompt less one (a server computes a prompt's last token); after a reply
// with reasoning only the previous prompt repeats.
func TestIdealCached(t *testing.T) {
	five := 5
	turns := []TurnUsage{
		{PromptTokens: 100, CompletionTokens: 20},
		{PromptTokens: 140, CompletionTokens: 300, CachedTokens: &five},
		{PromptTokens: 400, CompletionTokens: 50, ReasoningTokens: 30},
		{PromptTokens: 470, CompletionTokens: 10},
	}
	if got, want := IdealCached(turns, 1), []int{0, 119, 399, 400}; !cmp.Equal(got, want) {
		t.Errorf("ideal in tokens %v, want %v", got, want)
	}
	if got, want := IdealCached(turns, 16), []int{0, 112, 384, 400}; !cmp.Equal(got, want) {
		t.Errorf("ideal in blocks of 16 %v, want %v", got, want)
	}
	if r := HitRatio(turns, []int{0, 119, 399, 400}); math.Abs(r-918.0/1110) > 1e-12 {
		t.Errorf("hit ratio %v", r)
	}
	got, all := Achieved(turns)
	if all || !cmp.Equal(got, []int{0, 5, 0, 0}) {
		t.Errorf("achieved %v (all %v)", got, all)
	}
}
