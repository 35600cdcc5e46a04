package wire

import (
	"encoding/json"
	"net/http"
)

// Write answers v as JSON, indented, with status.
func Write(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// WriteError answers an Error with status, the field at fault and why.
func WriteError(w http.ResponseWriter, status int, field, reason string) {
	Write(w, status, Error{Error: http.StatusText(status), Field: field, Reason: reason})
}
