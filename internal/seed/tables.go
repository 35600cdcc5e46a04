package seed

import (
	_ "embed"
	"encoding/json"
)

// Tables are the seed page's tables and words, transcribed from seed-page.txt into
// seed-tables.json (shared by the report's tests and the browser tests): the
// renderers must reproduce every one of them from the seed run document.
type Tables struct {
	Header  []string   `json:"header"`
	Notes   []string   `json:"notes"`
	Prefill [][]string `json:"prefill"` // context, prompt tok/s, TTFT
	Matrix  [][]string `json:"matrix"`  // rows 0, 16K, 32K, 56K; columns 1 … 128: "48.2 (85 ms)"
	All     [][]string `json:"all"`     // All measurements, the seed's 12 columns
}

//go:embed seed-tables.json
var tablesJSON []byte

// PageTables are the seed page's Tables. The file is embedded and checked by this
// package's tests, so a fault in it is a fault of the build: it panics.
func PageTables() Tables {
	var t Tables
	if err := json.Unmarshal(tablesJSON, &t); err != nil {
		panic("seed: decoding seed-tables.json: " + err.Error())
	}
	return t
}
