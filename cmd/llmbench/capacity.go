package main

import (
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/capacity"
)

// capacityFlag is --capacity, spelled the same on run, report and calc: the targets of
// the "how many users" answer (internal/capacity).
type capacityFlag struct{ t capacity.Targets }

func (f *capacityFlag) String() string { return f.targets().String() }
func (f *capacityFlag) Type() string   { return "targets" }

func (f *capacityFlag) Set(s string) error {
	t, err := capacity.ParseTargets(s)
	if err == nil {
		f.t = t
	}
	return err
}

// targets are the flag's targets, the defaults when it was not given.
func (f *capacityFlag) targets() capacity.Targets {
	if f.t == (capacity.Targets{}) {
		return capacity.DefaultTargets()
	}
	return f.t
}

// addCapacityFlag binds --capacity to f.
func addCapacityFlag(fl *pflag.FlagSet, f *capacityFlag) {
	fl.Var(f, "capacity", "how many users: the per-user speed and first-token time each simultaneous request must get (tok/s=N,ttft=DURATION; the TTFT is the matrix's warm one)")
}
