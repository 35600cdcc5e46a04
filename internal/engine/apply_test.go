package engine

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/llmbench/llmbench/internal/rundoc"
)

func TestApplyTo(t *testing.T) {
	info := &Info{
		Engine: VLLM, Version: str("0.26.0"), ServedModel: str("qwen"), ModelID: str("Qwen/Qwen2.5-7B-Instruct"),
		MaxModelLen: i64(32768), KVCacheTokens: i64(513968), KVCacheDtype: str("auto"), PrefixCaching: boolp(true),
		Tokenize: str("/tokenize"), Revision: str("abc"),
	}
	// A hand-set quantization survives when the server does not say.
	e := rundoc.Engine{Quantization: "awq"}
	m := rundoc.Model{}
	info.ApplyTo(&e, &m)
	wantE := rundoc.Engine{Name: "vllm", Version: "0.26.0", Quantization: "awq", KVCacheDtype: "auto",
		KVCacheTokens: i64(513968), MaxModelLen: i64(32768), PrefixCaching: boolp(true), Tokenize: "/tokenize"}
	if d := cmp.Diff(wantE, e); d != "" {
		t.Errorf("engine block (-want +got):\n%s", d)
	}
	wantM := rundoc.Model{ServedName: "qwen", ID: "Qwen/Qwen2.5-7B-Instruct", Revision: "abc"}
	if d := cmp.Diff(wantM, m); d != "" {
		t.Errorf("model block (-want +got):\n%s", d)
	}
	var nilInfo *Info
	nilInfo.ApplyTo(&e, &m) // must not panic
}
