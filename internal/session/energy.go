package session

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/llmbench/llmbench/internal/hw"
	"github.com/llmbench/llmbench/internal/perf"
	"github.com/llmbench/llmbench/internal/power"
	"github.com/llmbench/llmbench/internal/rundoc"
)

// A run's energy and cost: which telemetry source meters the server's machine, and
// what the machine costs.

// energySetup holds the run's meter, if any.
type energySetup struct {
	meter  *hw.Meter
	remote *hw.Remote
}

func (e *energySetup) telemetry() power.Telemetry {
	switch {
	case e == nil:
		return nil
	case e.meter != nil:
		return e.meter
	case e.remote != nil:
		return e.remote
	}
	return nil
}

func (e *energySetup) close() {
	if e != nil && e.meter != nil {
		e.meter.Close()
	}
}

// setupEnergy starts the telemetry the config asks for and fills the run document's
// energy block (telemetry and price).
func (s *Session) setupEnergy(ctx context.Context) error {
	c, doc := &s.cfg, s.doc
	e, info, err := startTelemetry(ctx, c, doc, s.base, s.preLaunchPIDs)
	if err != nil {
		return err
	}
	if info.Reason != "" && c.Telemetry == "auto" && doc.Kind() == rundoc.RunMeasured {
		s.obs.Note(fmt.Sprintf("note: no power telemetry (%s)", info.Reason))
	}
	var old *rundoc.Price
	if doc.Energy != nil {
		old = doc.Energy.Price
		if doc.Energy.Telemetry != info.Telemetry {
			info.Notes = append(info.Notes, fmt.Sprintf("Resumed with telemetry %s; the cells measured before were metered by %s.", info.Telemetry, doc.Energy.Telemetry))
		}
	}
	price, note, err := resolvePrice(c.Price, doc, len(info.Devices), old)
	if err != nil {
		e.close()
		return err
	}
	s.meter = e
	s.closers = append(s.closers, e.close)
	info.Price = price
	if note != "" {
		info.Notes = append(info.Notes, note)
	}
	if info.Telemetry == hw.SourceNone && price == nil && doc.Kind() == rundoc.RunEmulated {
		doc.Energy = nil // nothing to say about an emulator's energy
		return nil
	}
	doc.Energy = &info
	return nil
}

func startTelemetry(ctx context.Context, c *Config, doc *rundoc.Run, base string, preLaunch []int) (*energySetup, rundoc.RunEnergy, error) {
	none := func(reason string) (*energySetup, rundoc.RunEnergy, error) {
		return &energySetup{}, rundoc.RunEnergy{Telemetry: hw.SourceNone, Reason: reason}, nil
	}
	src := strings.TrimSpace(c.Telemetry)
	switch {
	case src == hw.SourceNone:
		return none("--telemetry none")
	case strings.HasPrefix(src, "http://") || strings.HasPrefix(src, "https://"):
		return dialTelemetry(ctx, src, c.TelemetryToken)
	case src == "auto" || src == "":
		if doc.Kind() == rundoc.RunEmulated {
			return none("the built-in emulator's numbers are not a GPU's: nothing to meter")
		}
		if !IsLocal(base) && c.Launch == "" {
			return none("the server is remote; run `llmbench telemetry --listen :9109` on its machine and pass --telemetry http://HOST:9109")
		}
		m, err := hw.StartTelemetry(ctx, "auto", hw.TelemetryOptions{ForeignPIDs: preLaunch, ServerPort: ServerPort(base)})
		if err != nil {
			return none(err.Error())
		}
		return &energySetup{meter: m}, m.Info(), nil
	}
	m, err := hw.StartTelemetry(ctx, src, hw.TelemetryOptions{ForeignPIDs: preLaunch, ServerPort: ServerPort(base)})
	if err != nil {
		return nil, rundoc.RunEnergy{}, fmt.Errorf("--telemetry %s: %w", src, err)
	}
	return &energySetup{meter: m}, m.Info(), nil
}

// dialTelemetry connects to the remote agent at url (llmbench telemetry --listen).
func dialTelemetry(ctx context.Context, url, token string) (*energySetup, rundoc.RunEnergy, error) {
	if token == "" {
		token = os.Getenv("LLMBENCH_TELEMETRY_TOKEN")
	}
	if token == "" {
		return nil, rundoc.RunEnergy{}, hw.ErrRemoteToken
	}
	r, err := hw.DialRemote(ctx, url, token)
	if err != nil {
		return nil, rundoc.RunEnergy{}, err
	}
	return &energySetup{remote: r}, r.Info(), nil
}

// resolvePrice reads --price-per-hour: a number, a catalog id, none, or auto (the
// catalog's reference price for the run's GPU, times the GPUs metered or detected).
// On --resume, auto keeps the price the run began with.
func resolvePrice(flag string, doc *rundoc.Run, metered int, old *rundoc.Price) (*rundoc.Price, string, error) {
	flag = strings.TrimSpace(flag)
	switch flag {
	case "none", "":
		return nil, "", nil
	case "auto":
		if old != nil {
			return old, "", nil
		}
		return autoPrice(doc, metered)
	}
	if v, err := strconv.ParseFloat(flag, 64); err == nil {
		if !(v > 0) || v > 1e6 {
			return nil, "", fmt.Errorf("--price-per-hour %s: a positive amount of US dollars per hour", flag)
		}
		return &rundoc.Price{USDPerHour: v, Source: "--price-per-hour", Date: time.Now().UTC().Format("2006-01-02")}, "", nil
	}
	ec, err := perf.LoadEnergy()
	if err != nil {
		return nil, "", err
	}
	p, err := ec.Price(flag)
	if err != nil {
		return nil, "", fmt.Errorf("--price-per-hour: %w", err)
	}
	n := metered
	if n == 0 && len(doc.Hardware.GPUs) > 0 {
		n = doc.Hardware.GPUs[0].Count
	}
	return p.RunPrice(n), "", nil
}

// autoPrice is the catalog's reference price for the run's first GPU, times the GPUs
// metered (or detected), with the note that says it is not this machine's cost.
func autoPrice(doc *rundoc.Run, metered int) (*rundoc.Price, string, error) {
	if doc.Kind() != rundoc.RunMeasured || len(doc.Hardware.GPUs) == 0 {
		return nil, "", nil
	}
	g := doc.Hardware.GPUs[0]
	c, err := perf.Load()
	if err != nil {
		return nil, "", err
	}
	ec, err := perf.LoadEnergy()
	if err != nil {
		return nil, "", err
	}
	cg, err := c.GPU(g.Name)
	p, ok := perf.PriceEntry{}, false
	if err == nil {
		p, ok = ec.ReferencePrice(cg.ID)
	}
	if !ok {
		return nil, fmt.Sprintf("No catalog price for %s: give the machine's price with --price-per-hour for $/Mtok.", g.Name), nil
	}
	n := metered
	if n == 0 {
		n = max(g.Count, 1)
	}
	return p.RunPrice(n), fmt.Sprintf("$/Mtok is at the catalog's public price for %d× %s (%s), not this machine's cost; give yours with --price-per-hour.", n, cg.Name, p.ID), nil
}
