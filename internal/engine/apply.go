package engine

import "github.com/llmbench/llmbench/internal/rundoc"

// ApplyTo fills the run document's engine and model blocks with what discovery
// learned. Known facts overwrite; unknown ones leave what e and m already hold (a
// flag or a hand-written value), so a user's --kv-cache override is not erased.
func (i *Info) ApplyTo(e *rundoc.Engine, m *rundoc.Model) {
	if i == nil {
		return
	}
	if e != nil {
		e.Name = i.Engine
		setStr(&e.Version, i.Version)
		setStr(&e.Quantization, i.Quantization)
		setStr(&e.Backend, i.Backend)
		setStr(&e.Build, i.Build)
		setStr(&e.KVCacheDtype, i.KVCacheDtype)
		setStr(&e.Preset, i.Preset)
		setStr(&e.Tokenize, i.Tokenize)
		if i.KVCacheTokens != nil {
			e.KVCacheTokens = ptr(*i.KVCacheTokens)
		}
		if i.MaxModelLen != nil {
			e.MaxModelLen = ptr(*i.MaxModelLen)
		}
		if i.MaxNumSeqs != nil {
			e.MaxNumSeqs = ptr(*i.MaxNumSeqs)
		}
		if i.PrefixCaching != nil {
			e.PrefixCaching = ptr(*i.PrefixCaching)
		}
	}
	if m != nil {
		setStr(&m.ServedName, i.ServedModel)
		setStr(&m.ID, i.ModelID)
		setStr(&m.Revision, i.Revision)
	}
}

func setStr(dst *string, v *string) {
	if v != nil && *v != "" {
		*dst = *v
	}
}
