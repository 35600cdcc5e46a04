package calc

import "github.com/llmbench/llmbench/internal/site/wire"

// Catalog gives the specifications of GPUs and models, by the names runs use: Perf,
// or a test's stand-in.
type Catalog interface {
	GPUSpecs(name string) ([]wire.Spec, bool)
	ModelSpecs(name string) ([]wire.Spec, bool)
}

// SpecsOf is the catalog's specifications of the GPU name (the model name, with
// model); none without a catalog.
func SpecsOf(c Catalog, name string, model bool) ([]wire.Spec, bool) {
	switch {
	case c == nil:
		return nil, false
	case model:
		return c.ModelSpecs(name)
	}
	return c.GPUSpecs(name)
}
