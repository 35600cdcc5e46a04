package workload

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Think is the pause between a reply and the user's next message.
type Think struct {
	Mean time.Duration
	// Exponential draws each pause from an exponential distribution of that mean
	// (users who answer at random moments); otherwise every pause is Mean.
	Exponential bool
}

// ParseThink reads a think time: a duration ("2s", fixed) or "exp:DURATION".
func ParseThink(s string) (Think, error) {
	var t Think
	v := s
	if rest, ok := strings.CutPrefix(s, "exp:"); ok {
		t.Exponential, v = true, rest
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return t, fmt.Errorf("think time %q: want a duration (2s) or exp:DURATION", s)
	}
	t.Mean = d
	return t, nil
}

func (t Think) String() string {
	if t.Exponential {
		return "exp:" + t.Mean.String()
	}
	return t.Mean.String()
}

func (t Think) draw(rng *rand.Rand) time.Duration {
	if !t.Exponential || t.Mean == 0 {
		return t.Mean
	}
	return time.Duration(rng.ExpFloat64() * float64(t.Mean))
}

// SessionSpec is what every session of a run is like.
type SessionSpec struct {
	// Turns is how many requests a session sends.
	Turns int
	// From gives the users' messages: a session takes an entry's user turns (a
	// ShareGPT conversation's, or one prompt), then the next entries' when it needs
	// more, in an order shuffled with the seed. Empty: synthetic messages of
	// UserTokens tokens, from Texts.
	From []Entry
	// UserTokens is the length of a synthetic user message.
	UserTokens int
	// Texts makes synthetic messages (nil: From must be given).
	Texts Texts
	// OutputTokens is every turn's answer length (0: the entry's, else the run's).
	OutputTokens int
	Think        Think

	// order is From's indices shuffled with orderSeed: session k starts from
	// From[order[k]], so each cell (its own seed) sends other conversations, and
	// no two sessions of a cell share one before all have been sent.
	order     []int
	orderSeed uint64
}

// Shuffled returns the spec with its dataset's order drawn for seed, once, so that
// planning each session alone does not shuffle the whole dataset again.
func (spec SessionSpec) Shuffled(seed uint64) SessionSpec {
	if len(spec.From) > 0 && (spec.order == nil || spec.orderSeed != seed) {
		spec.order = newRand(seed, streamSessionOrder).Perm(len(spec.From))
		spec.orderSeed = seed
	}
	return spec
}

// Texts makes a synthetic user message of about tokens tokens for a session's turn.
// The run's prompt builder fills it, counted by the server's tokenizer where it has
// one; each (session, turn) must get its own text.
type Texts func(session, turn, tokens int) string

// WordTexts makes messages of words drawn with the seed from words: each word one
// token where words are one token each (the emulator's canonical words, a BPE
// tokenizer's common words).
func WordTexts(words []string, seed uint64) Texts {
	return func(session, turn, tokens int) string {
		rng := newRand(seed, uint64(session)<<20|uint64(turn))
		w := make([]string, tokens)
		for i := range w {
			w[i] = words[rng.IntN(len(words))]
		}
		return strings.Join(w, " ")
	}
}

// Session is one planned conversation.
type Session struct {
	ID    int
	Turns []Turn
}

// Turn is one planned request of a session.
type Turn struct {
	// User is the user's message.
	User string
	// OutputTokens is the answer length asked for (0: the run's).
	OutputTokens int
	// Think is the pause before this turn is sent, after the reply to the one before
	// (0 for the first turn).
	Think time.Duration
}

// PlanSessions plans n sessions from the seed, numbered from 0: their user messages,
// answer lengths and think times.
func PlanSessions(spec SessionSpec, n int, seed uint64) ([]Session, error) {
	if n < 1 {
		return nil, fmt.Errorf("sessions: %d sessions; want at least 1", n)
	}
	spec = spec.Shuffled(seed)
	out := make([]Session, n)
	for s := range out {
		var err error
		if out[s], err = PlanSession(spec, s, seed); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// PlanSession plans session id from the seed, alone: a load shape that starts sessions
// as it goes (a closed loop's users, each starting the next when one ends) plans each
// when it starts, and gets what planning them all at once would.
func PlanSession(spec SessionSpec, id int, seed uint64) (Session, error) {
	if spec.Turns < 1 || id < 0 {
		return Session{}, fmt.Errorf("sessions: session %d of %d turns; want at least 1 turn", id, spec.Turns)
	}
	if len(spec.From) == 0 && (spec.Texts == nil || spec.UserTokens < 1) {
		return Session{}, errors.New("sessions: user messages need a dataset, or a length and a text maker")
	}
	rng := newRand(seed, streamSessions^mix(uint64(id)))
	out := Session{ID: id, Turns: make([]Turn, spec.Turns)}
	msgs := spec.Shuffled(seed).userMessages(id)
	if len(spec.From) > 0 && len(msgs) < spec.Turns {
		return Session{}, errors.New("sessions: the dataset has no user messages to send")
	}
	for k := range out.Turns {
		t := &out.Turns[k]
		t.OutputTokens = spec.OutputTokens
		if len(spec.From) > 0 {
			t.User = msgs[k].text
			if t.OutputTokens == 0 {
				t.OutputTokens = msgs[k].output
			}
		} else {
			t.User = spec.Texts(id, k, spec.UserTokens)
		}
		if k > 0 {
			t.Think = spec.Think.draw(rng)
		}
	}
	return out, nil
}

type userMessage struct {
	text   string
	output int
}

// userMessages are session s's messages from the dataset, in the shuffled order:
// the s-th entry's user turns, then the next entry's, and so on round the dataset.
func (spec SessionSpec) userMessages(s int) []userMessage {
	if len(spec.From) == 0 {
		return nil
	}
	var out []userMessage
	for i := s; len(out) < spec.Turns; i++ {
		e := spec.From[spec.order[i%len(spec.From)]]
		for _, u := range e.userTurns() {
			out = append(out, userMessage{text: u, output: e.OutputTokens})
		}
		if i-s > spec.Turns+len(spec.From) {
			break // no entry has a user turn (only system or assistant messages)
		}
	}
	return out
}
