// Package openloop owns open-loop measurement (llmbench run --rate, --find-max-rate),
// a load shape over the measurement core (internal/measure): requests sent on a
// seeded arrival schedule whatever the server does (schedule.go, executor.go), each
// cell scored from its requests' scheduled send times with SLO goodput and the
// saturation evidence (score.go, interval.go), the max-rate search (search.go), the
// cells' events and their re-scoring (events.go), and the runner that plans, executes
// and scores every cell of a run document (runner.go, plan.go).
package openloop
