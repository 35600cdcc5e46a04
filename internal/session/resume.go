package session

import (
	"fmt"
	"slices"
	"strings"

	"github.com/llmbench/llmbench/internal/engine"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// SameServer checks that the server probed at base is the one the document measured:
// the same engine, version, model and KV capacity, where both sides know them. A
// resumed run on another server would mix two servers' numbers in one document.
func SameServer(doc *rundoc.Run, info *engine.Info, base string) error {
	var diffs []string
	differ := func(what, was, now string) {
		if was != "" && now != "" && was != now {
			diffs = append(diffs, fmt.Sprintf("%s %s, now %s", what, was, now))
		}
	}
	differ("engine", doc.Engine.Name, info.Engine)
	differ("version", doc.Engine.Version, orEmpty(info.Version))
	differ("model id", doc.Model.ID, orEmpty(info.ModelID))
	if was, now := doc.Engine.KVCacheTokens, info.KVCacheTokens; was != nil && now != nil && *was != *now {
		diffs = append(diffs, fmt.Sprintf("KV cache %d tokens, now %d", *was, *now))
	}
	if doc.Model.ServedName != "" && len(info.Models) > 0 && !slices.Contains(info.Models, doc.Model.ServedName) && !slices.Contains(info.Models, doc.Model.ServedName+":latest") {
		diffs = append(diffs, fmt.Sprintf("model %s, now %s", doc.Model.ServedName, strings.Join(info.Models, ", ")))
	}
	if len(diffs) == 0 {
		return nil
	}
	return fmt.Errorf("%s is not the server this run measured (%s): %s; a resumed run finishes on the same server, or starts a new document without --resume", base, EndpointOf(doc), strings.Join(diffs, "; "))
}

// RecordEndpoint adds base to the endpoints the document used.
func RecordEndpoint(doc *rundoc.Run, base string) {
	c := &doc.Config
	if c.Endpoint == "" || base == c.Endpoint && len(c.Endpoints) == 0 {
		return
	}
	if len(c.Endpoints) == 0 {
		c.Endpoints = []string{c.Endpoint}
	}
	if !slices.Contains(c.Endpoints, base) {
		c.Endpoints = append(c.Endpoints, base)
	}
}

func EndpointOf(doc *rundoc.Run) string {
	if doc.Config.Endpoint == "" {
		return "the built-in emulator"
	}
	return doc.Config.Endpoint
}

func orEmpty(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
