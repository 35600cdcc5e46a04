package ui

import (
	"context"
	"net/url"
	"slices"
	"strconv"

	"github.com/llmbench/llmbench/internal/capacity"
	"github.com/llmbench/llmbench/internal/locale"
	"github.com/llmbench/llmbench/internal/report"
	"github.com/llmbench/llmbench/internal/rundoc"
	"github.com/llmbench/llmbench/internal/site/board"
	"github.com/llmbench/llmbench/internal/site/metric"
	"github.com/llmbench/llmbench/internal/site/store"
)

// This file holds the site's capacity answers (issue 36, docs/capacity.md): the
// leaderboard's level of the capacity metrics (a target speed per user), the best
// measured runs on hardware and model pages, the compare page's rows, and the API's
// answer for one run. Every figure comes from internal/capacity, as run, report and
// calc's do.

// usersBest is a hardware or model page's capacity: per context, the measured run of
// the group that serves the most users per GPU at the default targets.
type usersBest struct {
	Sub  string
	Rows []usersBestRow
}

type usersBestRow struct {
	Context, Users, PerGPU string
	Rec                    store.RunRecord
	BoardURL               string // the leaderboard by users per GPU at this cell, this group's runs
}

// usersBestContexts bounds the rows: the contexts most runs have.
const usersBestContexts = 8

// usersBest ranks the group's runs (q) by users per GPU at each context they have, at
// the default speed; nil when none has a capacity.
func (s *Pages) usersBest(ctx context.Context, q store.Query, dim, name, lang string) (*usersBest, error) {
	cells, err := s.board.MetricCells(ctx, "users_per_gpu", q)
	if err != nil {
		return nil, err
	}
	runs := map[int]int{}
	for _, c := range cells {
		if c.Level == metric.DefaultSpeed {
			runs[c.Context] += c.Runs
		}
	}
	if len(runs) == 0 {
		return nil, nil
	}
	ub := &usersBest{Sub: locale.T(lang, "users_best_sub", report.FormatNumber(lang, metric.DefaultSpeed, 0))}
	for _, c := range topKeys(runs, usersBestContexts, -1) {
		if runs[c] == 0 {
			continue // -1, which topKeys adds as the key that must be there
		}
		row, ok, err := s.usersBestAt(ctx, q, c, lang)
		if err != nil {
			return nil, err
		}
		if ok {
			row.BoardURL = "/?" + url.Values{"metric": {"users_per_gpu"}, "context": {strconv.Itoa(c)}, "speed": {board.FormatLevel(metric.DefaultSpeed)}, dim: {name}, "lang": {lang}}.Encode()
			ub.Rows = append(ub.Rows, row)
		}
	}
	return ub, nil
}

// usersBestAt is the best run at one context, with its users and users per GPU.
func (s *Pages) usersBestAt(ctx context.Context, q store.Query, context int, lang string) (usersBestRow, bool, error) {
	q.Limit, q.Offset, q.Sort = 1, 0, ""
	top, err := s.store.RankByCell(ctx, store.CellQuery{Query: q, Metric: "users_per_gpu", Context: context, Level: metric.DefaultSpeed})
	if err != nil || len(top) == 0 {
		return usersBestRow{}, false, err
	}
	values, err := s.store.CellValues(ctx, []string{top[0].ID}, "users")
	if err != nil {
		return usersBestRow{}, false, err
	}
	row := usersBestRow{Context: rundoc.FormatTokens(context), Users: "—", PerGPU: report.FormatNumber(lang, top[0].Value, 1), Rec: top[0].RunRecord}
	for _, v := range values[top[0].ID] {
		if v.Context == context && v.Level == metric.DefaultSpeed {
			row.Users = report.FormatNumber(lang, v.Value, 0)
		}
	}
	return row, true, nil
}

// compareUsers are the compare page's rows "Users at ≥ X tok/s" (one per context any
// run has), each run's answer as the reports' capacity table writes it.
type compareUsers struct {
	Speed string // the form's value
	Label string // "Users at ≥ 20 tok/s each, first token ≤ 1 s"
	Rows  []compareUsersRow
	IDs   []string // the runs, for the form that changes the speed
	Error string
}

type compareUsersRow struct {
	Context string
	Cells   []string
}

// compareUsersOf answers every run at the speed the query asks (speed=, default 20).
func compareUsersOf(runs []*rundoc.Run, ids []string, speedParam, lang string) *compareUsers {
	speed, ferr := board.ParseSpeed(speedParam)
	cu := &compareUsers{Speed: board.FormatLevel(speed), IDs: ids}
	if ferr != nil {
		speed, cu.Speed, cu.Error = metric.DefaultSpeed, board.FormatLevel(metric.DefaultSpeed), ferr.Error()
	}
	t := capacity.DefaultTargets().WithSpeed(speed)
	cu.Label = locale.T(lang, "compare_users", report.FormatNumber(lang, speed, decimalsOf(speed)))
	answers := make([]capacity.Answer, len(runs))
	var contexts []int
	for i, r := range runs {
		answers[i] = capacity.Of(r, t)
		for _, row := range answers[i].Rows {
			if !slices.Contains(contexts, row.Context) {
				contexts = append(contexts, row.Context)
			}
		}
	}
	slices.Sort(contexts)
	for _, c := range contexts {
		row := compareUsersRow{Context: rundoc.FormatTokens(c)}
		for _, a := range answers {
			cell := "—"
			if r, ok := a.Row(c); ok {
				cell = report.CapacityCell(lang, r)
			}
			row.Cells = append(row.Cells, cell)
		}
		cu.Rows = append(cu.Rows, row)
	}
	if len(cu.Rows) == 0 {
		return nil
	}
	return cu
}

// decimalsOf is how many decimals a target speed needs (20, 12.5).
func decimalsOf(v float64) int {
	if v == float64(int64(v)) {
		return 0
	}
	return 1
}

// pv packs the page and a value for the capacity partials (partials-capacity.html).
func init() {
	templateFuncs["pv"] = func(p *page, v any) any {
		return struct {
			P *page
			V any
		}{p, v}
	}
}
