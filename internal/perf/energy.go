package perf

import (
	"fmt"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// Energy and cost: the dated catalog of public GPU prices (data/prices.json), the
// board power of each GPU (data/power.json), and calc's energy estimate — a GPU's
// power as its idle share of the limit plus the rest in proportion to the predicted
// utilization of the step's binding resource. The estimate is labelled as one in
// every cell it fills.

// PriceEntry is one published price.
type PriceEntry struct {
	ID            string   `json:"id"`
	Provider      string   `json:"provider"`
	Offer         string   `json:"offer"`
	GPUs          []string `json:"gpus"`
	USDPerGPUHour float64  `json:"usd_per_gpu_hour"`
	Quoted        string   `json:"quoted"`
	Billing       string   `json:"billing"` // instance | serverless
	Date          string   `json:"date"`
	DateKind      string   `json:"date_kind"` // stated | read
	Source        string   `json:"source"`
	SourceKind    string   `json:"source_kind"` // vendor page | article
}

// BoardPower is a GPU's shipped power limit.
type BoardPower struct {
	ID          string  `json:"id"`
	BoardPowerW float64 `json:"board_power_w"`
	Source      string  `json:"source"`
}

// EnergyCatalog holds the prices and board powers.
type EnergyCatalog struct {
	Prices          []PriceEntry
	Power           []BoardPower
	IdleShare       float64
	IdleShareSource string
}

var (
	energyOnce sync.Once
	energyCat  *EnergyCatalog
	energyErr  error
)

// LoadEnergy returns the embedded price and power catalog (parsed once).
func LoadEnergy() (*EnergyCatalog, error) {
	energyOnce.Do(func() {
		var prices struct {
			About  string       `json:"_about"`
			Prices []PriceEntry `json:"prices"`
		}
		var power struct {
			About           string       `json:"_about"`
			IdleShare       float64      `json:"idle_share"`
			IdleShareSource string       `json:"idle_share_source"`
			GPUs            []BoardPower `json:"gpus"`
		}
		if energyErr = readJSON("prices.json", &prices); energyErr != nil {
			return
		}
		if energyErr = readJSON("power.json", &power); energyErr != nil {
			return
		}
		energyCat = &EnergyCatalog{Prices: prices.Prices, Power: power.GPUs, IdleShare: power.IdleShare, IdleShareSource: power.IdleShareSource}
	})
	return energyCat, energyErr
}

// Price finds a catalog price by id.
func (e *EnergyCatalog) Price(id string) (PriceEntry, error) {
	for _, p := range e.Prices {
		if strings.EqualFold(p.ID, id) {
			return p, nil
		}
	}
	var ids []string
	for _, p := range e.Prices {
		ids = append(ids, p.ID)
	}
	return PriceEntry{}, fmt.Errorf("unknown price %q; see llmbench calc --list prices (%s)", id, strings.Join(ids, ", "))
}

// ReferencePrice is the catalog's price for a GPU when none is given: an on-demand
// instance's if one is listed (what renting the whole machine costs), else the
// cheapest listing, so that runs on the same GPU compare at one price.
func (e *EnergyCatalog) ReferencePrice(gpuID string) (PriceEntry, bool) {
	var cands []PriceEntry
	for _, p := range e.Prices {
		if slices.Contains(p.GPUs, gpuID) {
			cands = append(cands, p)
		}
	}
	if len(cands) == 0 {
		return PriceEntry{}, false
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if (cands[i].Billing == "instance") != (cands[j].Billing == "instance") {
			return cands[i].Billing == "instance"
		}
		return cands[i].USDPerGPUHour < cands[j].USDPerGPUHour
	})
	return cands[0], true
}

// RunPrice is a catalog entry as a run document's price for gpus of that GPU.
func (p PriceEntry) RunPrice(gpus int) *rundoc.Price {
	gpus = max(gpus, 1)
	src := p.Provider + ", " + p.Offer + ": " + p.Quoted + " (" + p.Source + ")"
	var notes []string
	if gpus > 1 {
		notes = append(notes, rundoc.PriceGPUs.Write(strconv.Itoa(gpus), strconv.FormatFloat(p.USDPerGPUHour, 'g', -1, 64)))
	}
	if p.DateKind == "read" {
		notes = append(notes, rundoc.PriceUndated.Write(p.Date))
	}
	note, date := strings.Join(notes, rundoc.PriceNoteJoin), p.Date
	return &rundoc.Price{USDPerHour: round(p.USDPerGPUHour*float64(gpus), 4), Source: src, Date: date, CatalogID: p.ID, Note: note}
}

// BoardPowerW is a GPU's board power from the catalog.
func (e *EnergyCatalog) BoardPowerW(gpuID string) (BoardPower, bool) {
	for _, b := range e.Power {
		if b.ID == gpuID {
			return b, true
		}
	}
	return BoardPower{}, false
}

// EstimatedPowerW is a GPU's power at a utilization u in [0, 1]: the idle share of its
// limit plus the rest in proportion to u.
func EstimatedPowerW(limitW, idleShare, u float64) float64 {
	u = math.Max(0, math.Min(1, u))
	return limitW * (idleShare + (1-idleShare)*u)
}

// DecodeUtilization is the predicted utilization of a decode cell's step: the ideal
// time of its binding resource (memory traffic or compute, at peak) over the step's
// predicted wall time, at the streams' mean context as DecodeFigures models it. The
// per-sequence overhead is left out of the wall time: it is the sampler's work on the
// GPU and the scheduler's and detokenizer's, which vLLM overlaps with the GPU's, so it
// does not leave the GPU idle the way the gaps between a layer's kernels do.
func (s Setup) DecodeUtilization(context, concurrency int, p Plan, fig rundoc.DecodeFigures) float64 {
	step := fig.TBTMs / 1000
	if !(step > 0) {
		return 0
	}
	duration := p.DurationS
	if duration <= 0 {
		duration = 30
	}
	gen := min(float64(p.MaxOutputTokens), duration/step)
	ctxs := make([]int, concurrency)
	for i := range ctxs {
		ctxs[i] = context + int(gen/2)
	}
	t := s.Terms(nil, ctxs)
	busy := s.Eff
	busy.OverheadPerSeqUs = 0
	return math.Min(1, math.Max(t.MemorySeconds, t.ComputeSeconds)/busy.Seconds(t))
}

// CatalogPrice is the price catalog's reference price for the setup's GPUs (see
// EnergyCatalog.ReferencePrice), or nil when the catalog lists none for this GPU.
func (s Setup) CatalogPrice() *rundoc.Price {
	ec, err := LoadEnergy()
	if err != nil {
		return nil
	}
	p, ok := ec.ReferencePrice(s.GPU.ID)
	if !ok {
		return nil
	}
	return p.RunPrice(s.n())
}

// EstimateEnergy fills a predicted run's decode cells with estimated power, J/token
// and tok/s/W from the GPU's board power and each cell's predicted utilization, and
// $/Mtok where a price is given; the run's energy block says it is an estimate.
func (s Setup) EstimateEnergy(run *rundoc.Run, p Plan, price *rundoc.Price) error {
	ec, err := LoadEnergy()
	if err != nil {
		return err
	}
	info := &rundoc.RunEnergy{Telemetry: "none", Reason: "predicted: nothing was measured", Price: price}
	run.Energy = info
	bp, ok := ec.BoardPowerW(s.GPU.ID)
	if !ok {
		info.Notes = append(info.Notes, fmt.Sprintf("No energy estimate: the catalog has no board power for %s.", s.GPU.Name))
	} else {
		info.Devices = []rundoc.TelemetryDevice{{Index: 0, Name: s.GPU.Name, PowerLimitW: bp.BoardPowerW}}
		info.Notes = append(info.Notes, fmt.Sprintf("Energy is an estimate, not a measurement: each of %d %s at its %g W board power (%s) × (%.3f idle share + %.3f × the predicted utilization of the step's binding resource); the idle share comes from one idle H200 (%s).",
			s.n(), s.GPU.Name, bp.BoardPowerW, bp.Source, ec.IdleShare, 1-ec.IdleShare, ec.IdleShareSource))
	}
	for i := range run.Decode {
		c := &run.Decode[i]
		if c.DecodeFigures == nil || c.Status != rundoc.StatusPredicted {
			continue
		}
		ps := rundoc.PowerStats{Reason: "no board power for this GPU in the catalog"}
		if ok {
			u := s.DecodeUtilization(c.Context, c.Concurrency, p, *c.DecodeFigures)
			w := EstimatedPowerW(bp.BoardPowerW, ec.IdleShare, u) * float64(s.n())
			ps = rundoc.PowerStats{PowerWMean: fptr(round(w, 1)), Devices: s.n(), Method: rundoc.MethodEstimate}
		}
		ce := &rundoc.CellEnergy{PowerStats: ps}
		if ps.PowerWMean != nil && c.TotalTokS > 0 {
			ce.JoulesPerToken = fptr(round(*ps.PowerWMean/c.TotalTokS, 4))
			ce.TokSPerW = fptr(round(c.TotalTokS / *ps.PowerWMean, 4))
		}
		ce.USDPerMTok, ce.CostReason = rundoc.CostPerMTok(price, c.TotalTokS)
		c.CellEnergy = ce
	}
	return nil
}

func fptr(v float64) *float64 { return &v }
