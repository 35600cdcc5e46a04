package accuracy

import (
	"strconv"
	"strings"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// SetKey names what two evaluations must share for their scores to be read side by
// side without pairing their items (the site's leaderboard filter, issue 38): the set
// (name, revision, data checksum, prompt, scorer) and the items asked, which --limit
// chooses alike on every run (an evenly spread subset of the same set). Compare, which
// pairs items, checks the items themselves.
func SetKey(a *rundoc.Accuracy) string {
	s := a.Set
	return strings.Join([]string{s.Name, s.Revision, s.SHA256, s.Prompt, s.Scorer, "limit=" + strconv.Itoa(a.Config.Limit)}, "|")
}

// Scored is an evaluation's accuracy where it is finished and has one: an evaluation
// still pending (interrupted) says nothing yet of the configuration.
func Scored(a *rundoc.Accuracy) (float64, bool) {
	if a.Status != rundoc.AccuracyComplete || a.Score == nil {
		return 0, false
	}
	return *a.Score, true
}
