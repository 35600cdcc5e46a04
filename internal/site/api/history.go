package api

import (
	"net/http"

	"github.com/llmbench/llmbench/internal/site/history"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// History answers GET /api/v1/history?gpu=G&model=M[&quant=Q]: a GPU × model's
// measured single-stream decode figures by engine version (internal/site/history).
func (s *API) History(w http.ResponseWriter, r *http.Request) {
	q, ferr := history.FromQuery(r.URL.Query())
	if ferr != nil {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	h, err := history.Load(r.Context(), s.store, q)
	if err != nil {
		s.log.Error("reading a history", "err", err)
		wire.WriteError(w, http.StatusInternalServerError, "", "could not read the history")
		return
	}
	wire.Write(w, http.StatusOK, h)
}
