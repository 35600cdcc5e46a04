package perf

import (
	"errors"
	"fmt"
	"math"
)

// resolveModel sets the setup's model and weight format, and says how a model's name
// was read.
func (c *Catalog) resolveModel(q Query, s *Setup) (nameNote string, err error) {
	sp := q.Specs
	explicitModel := sp.ParamsB > 0 || sp.Layers > 0 || sp.Hidden > 0 || sp.Heads > 0
	sources := 0
	for _, set := range []bool{q.Model != "", q.HFConfig != "", q.GGUF != "", explicitModel} {
		if set {
			sources++
		}
	}
	if sources != 1 {
		return "", errors.New("give exactly one model: --model NAME, --config FILE, --gguf FILE, or --params/--layers/--hidden/--heads")
	}
	takeQuant := q.Quant == "" && q.WeightBits == 0
	var nameQuant *Quant // the weight format the model's name states
	switch {
	case q.Model != "":
		s.Model, nameQuant, nameNote, err = c.modelByName(q.Model, takeQuant)
	case q.HFConfig != "":
		s.Model, err = ModelFromHFConfig(q.HFConfig)
	case q.GGUF != "":
		var fq Quant
		s.Model, fq, err = ModelFromGGUF(q.GGUF)
		if err == nil && takeQuant {
			s.Quant = fq
		}
	default:
		s.Model, err = sp.model()
	}
	if err != nil {
		return "", err
	}
	if err := sp.applyMoE(&s.Model); err != nil {
		return "", err
	}
	return nameNote, c.resolveQuant(q, nameQuant, s)
}

// resolveQuant sets the weight format: the query's, else the name's or the GGUF
// file's, else the query's default.
func (c *Catalog) resolveQuant(q Query, nameQuant *Quant, s *Setup) (err error) {
	switch {
	case q.Quant != "" && q.WeightBits > 0:
		return errors.New("give --quant or --weight-bits, not both")
	case q.Quant != "":
		s.Quant, err = named("quant", q.Quant, c.Quant)
	case q.WeightBits > 0:
		s.Quant = Quant{ID: fmt.Sprintf("%gbit", q.WeightBits), Name: fmt.Sprintf("%g-bit", q.WeightBits), Bits: q.WeightBits,
			EmbeddingBits: max(q.WeightBits, 16), Compute: "fp16", Source: "command line", Explicit: true}
	case nameQuant != nil:
		s.Quant = *nameQuant
	case s.Quant.Bits == 0 && q.DefaultQuant != "":
		s.Quant, err = named("quant", q.DefaultQuant, c.Quant)
	case s.Quant.Bits == 0:
		return errors.New("give the weight format: --quant (see --list quants) or --weight-bits")
	}
	return err
}

// modelByName resolves a model's name as tools print it (ResolveModel): the model, the
// weight format the name states where the catalog holds it and takeQuant (no other
// format was given), and a note saying how the name was read. A format the name
// states that the catalog does not hold is an error unless the query gives one:
// predicting another silently would answer a different question.
func (c *Catalog) modelByName(name string, takeQuant bool) (Model, *Quant, string, error) {
	mm, err := named("model", name, c.ResolveModel)
	if err != nil {
		return Model{}, nil, "", err
	}
	if !takeQuant || mm.Quant == "" {
		return mm.Model, nil, mm.Note(name, nil), nil
	}
	q, err := c.Quant(mm.Quant)
	if err != nil {
		return Model{}, nil, "", &worded{
			msg: fmt.Sprintf("--model %q states weights %q, which the calculator does not model: give --quant (see --list quants) or --weight-bits", name, mm.Quant),
			err: &QueryError{Field: "quant", Value: mm.Quant, Err: err}}
	}
	return mm.Model, &q, mm.Note(name, &q), nil
}

// worded is an error in calc's words over the error that caused it.
type worded struct {
	msg string
	err error
}

func (e *worded) Error() string { return e.msg }
func (e *worded) Unwrap() error { return e.err }

// model is the dense model the specs give.
func (sp ModelSpecs) model() (Model, error) {
	if sp.ParamsB <= 0 || sp.Layers <= 0 || sp.Hidden <= 0 || sp.Heads <= 0 {
		return Model{}, errors.New("an explicit model needs --params (billions), --layers, --hidden and --heads (and usually --kv-heads, --head-dim)")
	}
	m := Model{ID: "custom", Name: fmt.Sprintf("Custom %gB", sp.ParamsB), ParamsB: sp.ParamsB, Layers: sp.Layers, Hidden: sp.Hidden,
		Heads: sp.Heads, KVHeads: sp.KVHeads, HeadDim: sp.HeadDim, Intermediate: sp.Intermediate, Vocab: sp.Vocab,
		Attention: "full", Source: "command line"}
	if m.KVHeads == 0 {
		m.KVHeads = m.Heads
	}
	if m.HeadDim == 0 {
		m.HeadDim = m.Hidden / m.Heads
	}
	if m.Intermediate == 0 {
		m.Intermediate = 4 * m.Hidden
	}
	m.EmbeddingParamsB = float64(sp.Vocab) * float64(sp.Hidden) * 2 / 1e9
	if m.EmbeddingParamsB >= m.ParamsB {
		return Model{}, errors.New("--vocab × --hidden × 2 exceeds --params")
	}
	return m, nil
}

// applyMoE makes a model a mixture of experts from ActiveParamsB (and, when given,
// Experts/ExpertsPerToken), so that a decode step reads the experts its tokens route
// to rather than every weight: with E experts of which k serve a token, the expert
// weights X satisfy params − active = X × (1 − k/E). Without Experts every
// non-embedding weight is taken as an expert weight, of which a token uses the share
// that makes up its active parameters: one token reads exactly the active weights;
// for batches it is an approximation that Experts and ExpertsPerToken remove, as they
// add the work per routed expert, which only the number of experts can size
// (Model.RoutingUnknown).
func (sp ModelSpecs) applyMoE(m *Model) error {
	if sp.Experts < 0 || sp.ExpertsPerToken < 0 || (sp.Experts > 0) != (sp.ExpertsPerToken > 0) {
		return errors.New("--experts and --experts-per-token go together, both positive")
	}
	if sp.Experts > 0 && sp.ExpertsPerToken > sp.Experts {
		return fmt.Errorf("--experts-per-token %d exceeds --experts %d", sp.ExpertsPerToken, sp.Experts)
	}
	if sp.ActiveParamsB <= 0 {
		if sp.Experts > 0 && m.Experts == 0 {
			return errors.New("--experts needs --active-params (the parameters one token computes with)")
		}
		return nil
	}
	if sp.ActiveParamsB > m.ParamsB {
		return fmt.Errorf("--active-params %g exceeds the model's %g billion parameters", sp.ActiveParamsB, m.ParamsB)
	}
	m.ActiveParamsB = sp.ActiveParamsB
	if sp.ActiveParamsB == m.ParamsB {
		m.Experts, m.ExpertsPerToken, m.ExpertParamsB = 0, 0, 0
		return nil
	}
	switch {
	case sp.Experts > 0:
		m.Experts, m.ExpertsPerToken = sp.Experts, sp.ExpertsPerToken
	case m.Experts == 0:
		// No routing given: every non-embedding weight is an expert weight and a token
		// uses the share of them that makes its weights the active parameters.
		x := m.ParamsB - m.EmbeddingParamsB
		share := (sp.ActiveParamsB - m.EmbeddingParamsB) / x
		if share <= 0 {
			return fmt.Errorf("--active-params %g is not more than the embeddings' %g billion", sp.ActiveParamsB, m.EmbeddingParamsB)
		}
		m.Experts, m.ExpertsPerToken, m.ExpertParamsB = 1000, max(int(math.Round(share*1000)), 1), x
		m.RoutingUnknown = true
		return nil
	}
	share := float64(m.ExpertsPerToken) / float64(m.Experts)
	m.ExpertParamsB = (m.ParamsB - sp.ActiveParamsB) / (1 - share)
	if m.ExpertParamsB > m.ParamsB-m.EmbeddingParamsB {
		return fmt.Errorf("--active-params %g with %d of %d experts per token leaves no room for the expert weights in %g billion parameters", sp.ActiveParamsB, m.ExpertsPerToken, m.Experts, m.ParamsB)
	}
	return nil
}
