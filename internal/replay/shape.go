package replay

import (
	"bufio"
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"text/template"
)

// Shape is one engine's streamed chat response, as a fixture file in testdata/ writes
// it: the events the engine sends and when. Each fixture is written from the engine's
// serving code (testdata/README.md names the file and commit).
type Shape struct {
	Name   string
	Engine string
	Source string
	// TokensPerStep is how many tokens each engine step brings, cycled (speculative
	// decoding accepts a varying number per step); default 1.
	TokensPerStep []int
	// PerTokenEvents sends a step's tokens as one event each, written together
	// (llama.cpp's speculative drafts, TGI): otherwise a step is one event.
	PerTokenEvents bool
	// ContinuousUsage says the engine honours stream_options.continuous_usage_stats.
	ContinuousUsage bool
	// IncludeUsage says the engine honours stream_options.include_usage.
	IncludeUsage bool
	// TimingsPerToken says the engine honours llama.cpp's timings_per_token.
	TimingsPerToken bool
	// Draft says the engine drafts tokens (llama.cpp's timings carry draft_n).
	Draft bool
	// Expect is what the fixture must give in a run: "valid", or a flag the cells
	// must carry and the reason they are not valid.
	Expect string

	sections map[string]*template.Template
}

//go:embed testdata/*.shape
var shapeFiles embed.FS

// Shapes returns every fixture in testdata/, by name.
func Shapes() (map[string]*Shape, error) {
	entries, err := shapeFiles.ReadDir("testdata")
	if err != nil {
		return nil, err
	}
	out := map[string]*Shape{}
	for _, e := range entries {
		b, err := shapeFiles.ReadFile("testdata/" + e.Name())
		if err != nil {
			return nil, err
		}
		s, err := ParseShape(b)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", e.Name(), err)
		}
		out[s.Name] = s
	}
	return out, nil
}

// ShapeNames lists the fixtures in a stable order.
func ShapeNames() []string {
	shapes, _ := Shapes()
	var names []string
	for n := range shapes {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// LoadShape returns the named fixture.
func LoadShape(name string) (*Shape, error) {
	shapes, err := Shapes()
	if err != nil {
		return nil, err
	}
	s, ok := shapes[name]
	if !ok {
		return nil, fmt.Errorf("no stream shape %q (have %s)", name, strings.Join(ShapeNames(), ", "))
	}
	return s, nil
}

// sectionNames are the parts of a stream a fixture may write:
//   - first: sent once, in the same write as the first step (a role chunk);
//   - step: one event per step (or per token with per_token_events);
//   - finish: after the last step, in its write (engines that send finish_reason on
//     a chunk of its own);
//   - usage: after finish when the request asked for include_usage;
//   - done: the stream's end marker.
var sectionNames = []string{"first", "step", "finish", "usage", "done"}

// ParseShape reads a fixture: "key: value" header lines, then sections that start
// with a line "--- name" and hold the section's bytes as a text/template. Lines that
// start with "#" in the header are comments.
func ParseShape(b []byte) (*Shape, error) {
	s := &Shape{sections: map[string]*template.Template{}, TokensPerStep: []int{1}}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	var section string
	var body strings.Builder
	flush := func() error {
		if section == "" {
			return nil
		}
		t, err := template.New(section).Funcs(template.FuncMap{"json": jsonString}).Parse(body.String())
		if err != nil {
			return fmt.Errorf("section %s: %w", section, err)
		}
		s.sections[section] = t
		body.Reset()
		return nil
	}
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "--- "); ok {
			if err := flush(); err != nil {
				return nil, err
			}
			section = strings.TrimSpace(name)
			if !contains(sectionNames, section) {
				return nil, fmt.Errorf("unknown section %q", section)
			}
			continue
		}
		if section != "" {
			body.WriteString(line)
			body.WriteString("\n")
			continue
		}
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, value, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("header line %q is not key: value", line)
		}
		if err := s.set(strings.TrimSpace(key), strings.TrimSpace(value)); err != nil {
			return nil, err
		}
	}
	if err := flush(); err != nil {
		return nil, err
	}
	if s.Name == "" || s.sections["step"] == nil || s.sections["done"] == nil {
		return nil, fmt.Errorf("a shape needs a name, a step section and a done section")
	}
	return s, nil
}

func (s *Shape) set(key, value string) error {
	flag := func() (bool, error) { return strconv.ParseBool(value) }
	var err error
	switch key {
	case "name":
		s.Name = value
	case "engine":
		s.Engine = value
	case "source":
		s.Source = value
	case "expect":
		s.Expect = value
	case "tokens_per_step":
		s.TokensPerStep = nil
		for _, f := range strings.Split(value, ",") {
			n, e := strconv.Atoi(strings.TrimSpace(f))
			if e != nil || n < 1 {
				return fmt.Errorf("tokens_per_step %q", value)
			}
			s.TokensPerStep = append(s.TokensPerStep, n)
		}
	case "per_token_events":
		s.PerTokenEvents, err = flag()
	case "continuous_usage":
		s.ContinuousUsage, err = flag()
	case "include_usage":
		s.IncludeUsage, err = flag()
	case "timings_per_token":
		s.TimingsPerToken, err = flag()
	case "draft":
		s.Draft, err = flag()
	default:
		return fmt.Errorf("unknown header %q", key)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", key, err)
	}
	return nil
}

// Frame is what a section's template sees.
type Frame struct {
	ID      string
	Created int64
	Model   string
	Prompt  int // prompt tokens
	Cached  int // prompt tokens found in the cache
	PromptN int // prompt tokens read (Prompt − Cached: llama.cpp's timings' prompt_n)
	// Text is this event's generated text, K the tokens it carries, Generated the
	// tokens generated so far (this event's included).
	Text      string
	K         int
	Generated int
	Total     int // Prompt + Generated
	// DeltaKey is the delta's field this event's text goes in: "content", or a
	// reasoning model's reasoning field while it thinks (Config.Reasoning).
	DeltaKey string
	// Finish is the finish reason on the request's last event ("" before).
	Finish string
	// Usage says the request gets usage in every chunk (continuous usage stats).
	Usage bool
	// Timings says the request gets llama.cpp's timings in every chunk.
	Timings bool
	// Draft figures for llama.cpp's timings.
	DraftN, DraftAccepted int
}

// FinishJSON is the finish reason as a JSON value: null before the last event.
func (f Frame) FinishJSON() string {
	if f.Finish == "" {
		return "null"
	}
	return jsonString(f.Finish)
}

func (s *Shape) render(section string, f Frame) ([]byte, bool) {
	t := s.sections[section]
	if t == nil {
		return nil, false
	}
	var b bytes.Buffer
	if err := t.Execute(&b, f); err != nil {
		panic(fmt.Sprintf("shape %s section %s: %v", s.Name, section, err))
	}
	return b.Bytes(), true
}

func (s *Shape) has(section string) bool { return s.sections[section] != nil }

func jsonString(v string) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}
