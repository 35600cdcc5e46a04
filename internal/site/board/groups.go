package board

import (
	"context"

	"github.com/llmbench/llmbench/internal/site/store"
)

// Group is a way the site gathers runs — by GPU, by model, by model family — for
// its group pages and the API's lists: which column it filters by, what its bar
// chart compares, how its list, a group's summary and its runs are read, and whose
// catalog specs a group has.
type Group struct {
	Nav   string // menu entry and URL base: hardware, models, families
	Dim   string // the runs column: gpu, model, family
	BarBy string // what the bars are: gpu or model
	What  string // the groups, for the log: "GPUs"
	List  func(*store.Store, context.Context) ([]store.GroupStat, error)
	Stat  func(*store.Store, context.Context, string) (store.GroupStat, error)
	Runs  func(name string) store.Query
	// ModelSpecs: a group's catalog specs are its model's (a GPU's otherwise).
	ModelSpecs bool
}

// The groups of runs.
var (
	GPUs = Group{Nav: "hardware", Dim: "gpu", BarBy: "model", What: "GPUs",
		List: (*store.Store).GPUs, Stat: (*store.Store).GPU, Runs: func(n string) store.Query { return store.Query{GPU: n} }}
	Models = Group{Nav: "models", Dim: "model", BarBy: "gpu", What: "models",
		List: (*store.Store).Models, Stat: (*store.Store).Model, Runs: func(n string) store.Query { return store.Query{Model: n} }, ModelSpecs: true}
	Families = Group{Nav: "families", Dim: "family", BarBy: "gpu", What: "model families",
		List: (*store.Store).Families, Stat: (*store.Store).FamilyStat, Runs: func(n string) store.Query { return store.Query{Family: n} }, ModelSpecs: true}
)
