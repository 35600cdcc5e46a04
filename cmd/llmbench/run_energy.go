package main

import (
	"github.com/spf13/pflag"

	"github.com/llmbench/llmbench/internal/session"
)

// addEnergyFlags binds run's energy and cost flags: which telemetry source meters the
// server's machine, and what the machine costs.
func addEnergyFlags(fl *pflag.FlagSet, c *session.Config) {
	fl.StringVar(&c.Telemetry, "telemetry", "auto", "meter the server's power: auto (nvidia-smi, amd-smi, powermetrics or RAPL when the server is on this machine), nvidia-smi, amd-smi, rapl, powermetrics, none, or http://HOST:PORT (llmbench telemetry --listen on the server's machine)")
	fl.StringVar(&c.TelemetryToken, "telemetry-token", "", "token of the remote telemetry agent (default: $LLMBENCH_TELEMETRY_TOKEN)")
	fl.StringVar(&c.Price, "price-per-hour", "auto", "what the server's machine costs, for $/Mtok: USD per hour (e.g. 2.49), a price id from llmbench calc --list prices, auto (the catalog's price for the detected GPU), or none")
}
