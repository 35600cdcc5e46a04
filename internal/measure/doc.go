// Package measure is the measurement core every load shape runs on: the server under
// test and its retry policy (server.go), the stream check before a run (check.go),
// the run's clock and the one request record on it (record.go: what the client saw,
// with its scheduled send, its slot wait and its place in a session), the events log
// and its one reader (events.go, read.go), the per-request aggregates (aggregate.go),
// a measurement's series slice by slice (series.go),
// the one table of validity rules every shape is judged by (rules.go), energy scoring
// (energy.go), and what a run reads beside the server (options.go: where its document
// and events go, progress, the server's gauges, the client's CPU).
//
// A load shape decides when each request is sent and what a measurement's figures
// are: the speed test matrix's closed loop (internal/bench) and the open loop's rates
// (internal/openloop). measure imports neither; re-scoring a whole run document is
// internal/session's.
package measure
