package api

import (
	"net/http"

	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/site/calc"
	"github.com/llmbench/llmbench/internal/site/guard"
	"github.com/llmbench/llmbench/internal/site/wire"
)

// apiPredict answers the predicted run document for the calculator's knobs.
func (s *API) Predict(w http.ResponseWriter, r *http.Request) {
	if s.calc == nil {
		wire.WriteError(w, http.StatusServiceUnavailable, "", "the calculator is not available on this site")
		return
	}
	in, ferr := calc.FromQuery(r.URL.Query())
	if ferr == nil && in.GPU == "" {
		ferr = &guard.FieldError{Field: "gpu", Reason: "is required (a GPU and a model)"}
	}
	if ferr != nil {
		wire.WriteError(w, http.StatusBadRequest, ferr.Field, ferr.Reason)
		return
	}
	p, err := s.calc.Predict(r.Context(), in)
	if err != nil {
		ce := calc.AsError(err)
		wire.WriteError(w, http.StatusBadRequest, ce.Field, ce.Message(locale.EN))
		return
	}
	wire.Write(w, http.StatusOK, s.calc.WithUsers(r.Context(), in, p.Run))
}
