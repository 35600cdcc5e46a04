// Package bench owns the speed test matrix: the plan (cells, over-capacity rule, fitting
// it to a server: plan.go), its orchestration (runner.go), the execution of one request
// (request.go: Send and the retry policy), of a row's cold request and the warm-up of
// a server's per-slot caches (warmup.go) and of a cell (execute.go), the wait for the
// server to drain (drain.go), one pure scoring path shared by the live run and
// Rescore (score.go, tokens.go, figures.go, earlyend.go, on the records of record.go)
// and the events log (events.go). What a run measured is written into the
// run document, whose types live in internal/rundoc; power telemetry's scoring is
// internal/power's. The open loop (run --rate) is internal/openloop's, over what this
// package exports for it: the server, the stream check (CheckStream), the events log
// and its clock, energy input and the progress interfaces; bench does not import it.
package bench
