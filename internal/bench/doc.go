// Package bench owns the speed test matrix, a load shape over the measurement core
// (internal/measure): the plan (cells, over-capacity rule, fitting it to a server:
// plan.go), its orchestration (runner.go), the execution of a row's cold request and
// the warm-up of a server's per-slot caches (warmup.go) and of a cell's N closed-loop
// streams (execute.go), the wait for the server to drain (drain.go), one pure scoring
// path shared by the live run and RescoreAll (score.go, tokens.go, figures.go,
// streams.go, bound.go, earlyend.go, interval.go, repeat.go), the evidence its cells
// give the core's validity rules (evidence.go), and its own events (events.go). What a
// run measured is written into the run document, whose types live in internal/rundoc.
package bench
