package api

import (
	_ "embed"
	"net/http"
)

// openAPI is the API's reference: every path, its parameters and answers, each
// operation's summary in English and Japanese (x-summary-ja).
//
//go:embed openapi.json
var openAPI []byte

// Reference is the API's OpenAPI document, for the page that lists its operations.
func Reference() []byte { return openAPI }

// OpenAPI answers GET /api/openapi.json: the API's reference.
func (s *API) OpenAPI(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write(openAPI)
}
