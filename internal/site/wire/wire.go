// Package wire is the site's JSON API as Go types: what each endpoint answers and
// takes, shared by the server, the "llmbench submit" client and the tests, so that
// none of them declares an answer again.
package wire

// Spec is one labelled specification of a GPU or model ("Memory bandwidth", "936 GB/s").
// Key names the label among the site's texts ("spec_<key>"), so that pages show it in
// their language; Label is the English, for the API and any key the site lacks.
type Spec struct {
	Key   string `json:"key,omitempty"`
	Label string `json:"label"`
	Value string `json:"value"`
}
