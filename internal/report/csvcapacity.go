package report

import (
	"encoding/csv"
	"strconv"

	"github.com/llmbench/llmbench/internal/rundoc"
)

// This file holds the capacity rows of the csv format. Its name sorts after csv.go, so
// its columns follow the intervals' (init order is file order).

// csvCapacityColumns are filled on the capacity rows (phase "capacity"): one per context
// and target speed of the capacity table, the targets' own row carrying its sentence
// in reason.
var csvCapacityColumns = []string{"target_tok_s", "target_ttft_ms", "users", "users_interpolated", "users_limit", "users_next", "users_per_gpu", "users_per_kw", "users_per_usd_hour"}

func init() { csvColumns = append(csvColumns, csvCapacityColumns...) }

// writeCSVCapacity writes the capacity table's rows.
func writeCSVCapacity(cw *csv.Writer, run *rundoc.Run, opts Options, col map[string]int) error {
	cv := newCapacityView(run, opts, "en")
	if cv == nil || cv.Summary.Rate != nil {
		return nil
	}
	for _, a := range cv.Summary.Table {
		for i, r := range a.Rows {
			rec := make([]string, len(csvColumns))
			set := func(k, v string) { rec[col[k]] = v }
			set("phase", "capacity")
			set("context", strconv.Itoa(r.Context))
			if a.Targets == cv.Summary.Targets {
				set("reason", cv.Sentences[i])
			}
			set("target_tok_s", num(a.Targets.TokS))
			set("target_ttft_ms", num(a.Targets.TTFTMs))
			if r.Answered() {
				set("users", strconv.Itoa(r.Users))
			}
			set("users_interpolated", strconv.FormatBool(r.Interpolated))
			set("users_limit", string(r.Limit))
			if r.Next > 0 {
				set("users_next", strconv.Itoa(r.Next))
			}
			csvPtr(set, "users_per_gpu", r.PerGPU)
			csvPtr(set, "users_per_kw", r.PerKW)
			csvPtr(set, "users_per_usd_hour", r.PerUSDHour)
			if err := cw.Write(rec); err != nil {
				return err
			}
		}
	}
	return nil
}

// rateCapacityRecord is an open-loop csv's last row: the highest rate meeting the SLO
// (status "capacity"), its sentence in reason.
func rateCapacityRecord(run *rundoc.Run, opts Options, col map[string]int) []string {
	cv := newCapacityView(run, opts, "en")
	if cv == nil || cv.Summary.Rate == nil {
		return nil
	}
	rec := make([]string, len(rateCSVColumns))
	rec[col["status"]] = "capacity"
	rec[col["reason"]] = cv.Sentences[0]
	if r := cv.Summary.Rate.RPS; r != nil {
		rec[col["rate_rps"]] = num(*r)
	}
	return rec
}
