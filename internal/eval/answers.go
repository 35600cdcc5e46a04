package eval

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"

	"github.com/llmbench/llmbench/internal/accuracy"
)

// Answer is one line of the answers file: an item's raw response as the server sent
// it, or why its request failed. The file is appended to as answers arrive (a resumed
// run adds its own); the last line of an id counts.
type Answer struct {
	Set string `json:"set"`
	ID  string `json:"id"`
	accuracy.Response
	Error string `json:"error,omitempty"`
}

// ReadAnswers reads an answers file into set → id → response; failed requests are
// left out.
func ReadAnswers(path string) (map[string]map[string]accuracy.Response, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading the answers: %w", err)
	}
	defer f.Close()
	out := map[string]map[string]accuracy.Response{}
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 64<<20)
	for n := 1; sc.Scan(); n++ {
		var a Answer
		if err := json.Unmarshal(sc.Bytes(), &a); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", path, n, err)
		}
		if out[a.Set] == nil {
			out[a.Set] = map[string]accuracy.Response{}
		}
		if a.Error != "" {
			delete(out[a.Set], a.ID)
			continue
		}
		out[a.Set][a.ID] = a.Response
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading the answers: %w", err)
	}
	return out, nil
}
