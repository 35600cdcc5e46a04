package rundoc

import "math"

// This file holds the energy and cost a run document records, and the price arithmetic.

// PowerStats are the power figures of one window, summed over every device counted.
// The figures are nil, with Reason saying why, when the trace cannot give them.
type PowerStats struct {
	PowerWMean *float64 `json:"power_w_mean"`
	PowerWMax  *float64 `json:"power_w_max"`
	EnergyJ    *float64 `json:"energy_j"`
	// GPUUtilMean is the mean utilization over the window and the devices, in percent.
	GPUUtilMean *float64 `json:"gpu_util_mean,omitempty"`
	// GPUMemUsedMiB is the most memory the devices held together in the window.
	GPUMemUsedMiB *float64 `json:"gpu_memory_used_mib,omitempty"`
	Throttle      []string `json:"throttle_reasons,omitempty"`
	// Samples counts the samples inside the window, over all devices; Devices how many
	// devices were summed.
	Samples int    `json:"telemetry_samples,omitempty"`
	Devices int    `json:"telemetry_devices,omitempty"`
	Method  string `json:"energy_method,omitempty"` // energy_counter | power_samples | estimate
	Reason  string `json:"energy_reason,omitempty"`
}

// CellEnergy is a decode cell's energy and cost (extensions).
type CellEnergy struct {
	PowerStats
	// JoulesPerToken is the window's energy over the output tokens that arrived in it.
	JoulesPerToken *float64 `json:"joules_per_token"`
	TokSPerW       *float64 `json:"tok_s_per_w"`
	// USDPerMTok is the machine's price per second over total tok/s, × 10⁶.
	USDPerMTok *float64 `json:"usd_per_mtok"`
	CostReason string   `json:"cost_reason,omitempty"`
}

// PrefillEnergy is a prefill row's energy: the cold request's time to first token.
type PrefillEnergy struct {
	PowerStats
	JoulesPerPromptToken *float64 `json:"joules_per_prompt_token"`
}

// Energy methods.
const (
	MethodCounter  = "energy_counter"
	MethodSamples  = "power_samples"
	MethodEstimate = "estimate"
)

// RunEnergy says, for the whole run, what was metered and at what price.
type RunEnergy struct {
	// Telemetry names the source (nvidia-smi, amd-smi, amd-sysfs, rapl, powermetrics,
	// http://HOST:PORT) or "none".
	Telemetry string `json:"telemetry"`
	// Reason says why there is no telemetry, when there is none.
	Reason string `json:"telemetry_reason,omitempty"`
	// Counted says what the watts cover ("board power of GPU 0, 1 (NVIDIA H200)").
	Counted    string            `json:"counted,omitempty"`
	Devices    []TelemetryDevice `json:"devices,omitempty"`
	IntervalMs float64           `json:"interval_ms,omitempty"`
	// Processes are the compute processes on the counted devices when the run began:
	// the server's, as far as llmbench can tell (see Counted).
	Processes []string `json:"gpu_processes,omitempty"`
	Price     *Price   `json:"price,omitempty"`
	Notes     []string `json:"notes,omitempty"`
}

// TelemetryDevice is one metered device.
type TelemetryDevice struct {
	Index       int     `json:"index"`
	Name        string  `json:"name,omitempty"`
	PowerLimitW float64 `json:"power_limit_w,omitempty"`
}

// Price is what the machine costs per hour, and where that figure comes from.
type Price struct {
	USDPerHour float64 `json:"usd_per_hour"`
	// Source is "--price-per-hour" or the catalog entry's provider and address.
	Source string `json:"source"`
	// Date is when the price was published or read (YYYY-MM-DD).
	Date      string `json:"date,omitempty"`
	CatalogID string `json:"catalog_id,omitempty"`
	Note      string `json:"note,omitempty"`
}

// CostPerMTok is what a million output tokens cost at the machine's price and the
// cell's throughput, or nil with the reason.
func CostPerMTok(price *Price, totalTokS float64) (*float64, string) {
	switch {
	case price == nil:
		return nil, "no price: give --price-per-hour"
	case !(totalTokS > 0):
		return nil, "no throughput to divide the price by"
	case !(price.USDPerHour > 0) || math.IsInf(price.USDPerHour, 0):
		return nil, "the price is not a positive amount"
	}
	return ptr(round(price.USDPerHour/3600/totalTokS*1e6, 4)), ""
}

func ptr[T any](v T) *T { return &v }

// PriceOrNil is the run's price, or nil when it has none.
func (e *RunEnergy) PriceOrNil() *Price {
	if e == nil {
		return nil
	}
	return e.Price
}

func round(v float64, decimals int) float64 {
	p := math.Pow(10, float64(decimals))
	return math.Round(v*p) / p
}
