package gguf

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	parser "github.com/gpustack/gguf-parser-go"
)

// writeAndParse writes f to a temp file and reads it back with an independent GGUF
// reader (gguf-parser-go), returning the parsed file and the raw bytes.
func writeAndParse(t *testing.T, f *File) (*parser.GGUFFile, []byte) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.gguf")
	if err := f.WriteFile(path); err != nil {
		t.Fatalf("WriteFile: %v", err)
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	gf, err := parser.ParseGGUFFile(path)
	if err != nil {
		t.Fatalf("gguf-parser-go cannot read what we wrote: %v", err)
	}
	return gf, raw
}

func TestRoundTrip(t *testing.T) {
	f := &File{
		KV: []KV{
			{"general.architecture", "llama"},
			{"test.u8", uint8(200)},
			{"test.i8", int8(-100)},
			{"test.u16", uint16(60000)},
			{"test.i16", int16(-30000)},
			{"test.u32", uint32(4000000000)},
			{"test.i32", int32(-2000000000)},
			{"test.u64", uint64(1) << 60},
			{"test.i64", int64(-1) << 60},
			{"test.f32", float32(1.5)},
			{"test.f64", float64(-2.25)},
			{"test.bool", true},
			{"test.string", "héllo ▁world"},
			{"test.strings", []string{"<unk>", "", "▁the"}},
			{"test.floats", []float32{0, -1.5, 3}},
			{"test.ints", []int32{1, -2, 6}},
			{"test.empty", []uint32{}},
		},
		Tensors: []Tensor{
			// Odd sizes, so that every tensor after the first needs padding.
			NewF32("a", []uint64{3}, []float32{1, 2, 3}),
			NewF16("b", []uint64{5, 3}, ramp(15, 0.25)),
			NewF32("c.weight", []uint64{7, 1, 2}, ramp(14, -1)),
		},
	}
	gf, raw := writeAndParse(t, f)

	if gf.Header.Magic != parser.GGUFMagicGGUFLe {
		t.Errorf("magic = %v, want GGUF little-endian", gf.Header.Magic)
	}
	if gf.Header.Version != parser.GGUFVersionV3 {
		t.Errorf("version = %v, want 3", gf.Header.Version)
	}
	if gf.Header.TensorCount != 3 || gf.Header.MetadataKVCount != uint64(len(f.KV)) {
		t.Errorf("counts = %d tensors, %d kv; want 3, %d", gf.Header.TensorCount, gf.Header.MetadataKVCount, len(f.KV))
	}

	got := map[string]any{}
	for _, kv := range gf.Header.MetadataKV {
		if kv.ValueType == parser.GGUFMetadataValueTypeArray {
			got[kv.Key] = kv.ValueArray().Array
			continue
		}
		got[kv.Key] = kv.Value
	}
	want := map[string]any{}
	for _, kv := range f.KV {
		switch v := kv.Value.(type) {
		case []string:
			want[kv.Key] = anys(v)
		case []float32:
			want[kv.Key] = anys(v)
		case []int32:
			want[kv.Key] = anys(v)
		case []uint32:
			want[kv.Key] = []any{}
		default:
			want[kv.Key] = v
		}
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("metadata read back differs (-wrote +read):\n%s", diff)
	}

	if len(gf.TensorInfos) != len(f.Tensors) {
		t.Fatalf("read %d tensor infos, wrote %d", len(gf.TensorInfos), len(f.Tensors))
	}
	if gf.TensorDataStartOffset%DefaultAlignment != 0 {
		t.Errorf("tensor data starts at %d, not a multiple of %d", gf.TensorDataStartOffset, DefaultAlignment)
	}
	for i, ti := range gf.TensorInfos {
		w := f.Tensors[i]
		if ti.Name != w.Name || !cmp.Equal(ti.Dimensions, w.Shape) || uint32(ti.Type) != uint32(w.Type) {
			t.Errorf("tensor %d = %s %v type %v, want %s %v %v", i, ti.Name, ti.Dimensions, ti.Type, w.Name, w.Shape, w.Type)
		}
		if ti.Offset%DefaultAlignment != 0 {
			t.Errorf("tensor %s at offset %d, not aligned to %d", ti.Name, ti.Offset, DefaultAlignment)
		}
		start := gf.TensorDataStartOffset + int64(ti.Offset)
		if !bytes.Equal(raw[start:start+int64(len(w.Data))], w.Data) {
			t.Errorf("tensor %s: data at its offset is not what was written", ti.Name)
		}
	}
	if len(raw)%DefaultAlignment != 0 {
		t.Errorf("file length %d is not padded to the alignment", len(raw))
	}
}

func TestAlignment(t *testing.T) {
	f := &File{
		KV:        []KV{{"general.architecture", "llama"}},
		Tensors:   []Tensor{NewF32("x", []uint64{1}, []float32{1}), NewF32("y", []uint64{3}, []float32{1, 2, 3})},
		Alignment: 64,
	}
	gf, _ := writeAndParse(t, f)
	kv, ok := gf.Header.MetadataKV.Get("general.alignment")
	if !ok || kv.ValueUint32() != 64 {
		t.Errorf("general.alignment = %v (found %v), want 64", kv.Value, ok)
	}
	if gf.TensorDataStartOffset%64 != 0 || gf.TensorInfos[1].Offset != 64 {
		t.Errorf("data at %d, second tensor at %d; want both on 64-byte boundaries (second at 64)", gf.TensorDataStartOffset, gf.TensorInfos[1].Offset)
	}
}

func TestInvalidFiles(t *testing.T) {
	ok := NewF32("w", []uint64{2}, []float32{1, 2})
	tests := []struct {
		name string
		f    File
		want string
	}{
		{"duplicate key", File{KV: []KV{{"a", uint32(1)}, {"a", uint32(2)}}}, "appears twice"},
		{"empty key", File{KV: []KV{{"", uint32(1)}}}, "key is empty"},
		{"alignment as metadata", File{KV: []KV{{"general.alignment", uint32(32)}}}, "File.Alignment"},
		{"bad alignment", File{Alignment: 12}, "multiple of 8"},
		{"unsupported value", File{KV: []KV{{"k", struct{}{}}}}, "unsupported value type"},
		{"duplicate tensor", File{Tensors: []Tensor{ok, ok}}, "appears twice"},
		{"data size", File{Tensors: []Tensor{{Name: "w", Shape: []uint64{3}, Type: F32, Data: make([]byte, 8)}}}, "needs 12 bytes"},
		{"zero dimension", File{Tensors: []Tensor{{Name: "w", Shape: []uint64{0}, Type: F32}}}, "zero dimension"},
		{"five dimensions", File{Tensors: []Tensor{{Name: "w", Shape: []uint64{1, 1, 1, 1, 1}, Type: F32, Data: make([]byte, 4)}}}, "dimensions"},
		{"quantised type", File{Tensors: []Tensor{{Name: "w", Shape: []uint64{32}, Type: 2, Data: make([]byte, 18)}}}, "unsupported type"},
		{"long name", File{Tensors: []Tensor{{Name: strings.Repeat("n", 64), Shape: []uint64{1}, Type: F32, Data: make([]byte, 4)}}}, "1 to 63 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf bytes.Buffer
			_, err := tt.f.WriteTo(&buf)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("WriteTo error = %v, want one mentioning %q", err, tt.want)
			}
		})
	}
}

func TestFloat16(t *testing.T) {
	tests := []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.1, 0x2e66},
		{65504, 0x7bff},                 // largest half
		{65520, 0x7c00},                 // rounds up to Inf
		{1e6, 0x7c00},                   // overflow
		{float32(math.Inf(-1)), 0xfc00}, // -Inf
		{6.103515625e-05, 0x0400},       // smallest normal
		{5.960464477539063e-08, 0x0001}, // smallest subnormal
		{2.980232238769531e-08, 0x0000}, // half of it: ties to even (0)
		{8.940696716308594e-08, 0x0002}, // 1.5 × smallest: ties to even (2)
		{1e-10, 0x0000},                 // underflow
		{1 + 1.0/2048, 0x3c00},          // exactly halfway between 1 and the next half: to even
		{1 + 3.0/2048, 0x3c02},          // halfway, odd below: rounds up
		{2047.0 / 1024 * 32768, 0x7bff}, // 65504 again, written differently
		{float32(math.NaN()), 0x7e00},
	}
	for _, tt := range tests {
		if got := Float16(tt.in); got != tt.want {
			t.Errorf("Float16(%g) = %#04x, want %#04x", tt.in, got, tt.want)
		}
	}
}

// TestFloat16EveryHalf checks that every finite half value survives a trip through
// float32 and back: the conversion must be exact wherever an exact answer exists.
func TestFloat16EveryHalf(t *testing.T) {
	for h := 0; h < 1<<16; h++ {
		f := halfToFloat(uint16(h))
		if math.IsNaN(float64(f)) {
			continue
		}
		if got := Float16(f); got != uint16(h) {
			t.Fatalf("Float16(%g) = %#04x, want %#04x", f, got, h)
		}
	}
}

// halfToFloat is a plain reference decoder for IEEE half precision.
func halfToFloat(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h >> 10 & 0x1f)
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * float32(mant/1024*math.Pow(2, -14))
	case 31:
		if mant != 0 {
			return float32(math.NaN())
		}
		return sign * float32(math.Inf(1))
	}
	return sign * float32((1+mant/1024)*math.Pow(2, float64(exp-15)))
}

func TestTinyLlama(t *testing.T) {
	cfg := DefaultTinyLlama()
	f, err := TinyLlama(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if p := f.Parameters(); p < 1_000_000 || p > 20_000_000 {
		t.Errorf("model has %d parameters, want a few million", p)
	}
	gf, raw := writeAndParse(t, f)

	arch := gf.Architecture()
	gotArch := []uint64{arch.EmbeddingLength, arch.BlockCount, arch.AttentionHeadCount, arch.AttentionHeadCountKV, arch.MaximumContextLength}
	wantArch := []uint64{uint64(cfg.Embedding), uint64(cfg.Layers), uint64(cfg.Heads), uint64(cfg.KVHeads), uint64(cfg.ContextLength)}
	if arch.Architecture != "llama" || !cmp.Equal(gotArch, wantArch) {
		t.Errorf("architecture %q %v, want llama %v", arch.Architecture, gotArch, wantArch)
	}

	tok := gf.Tokenizer()
	v := TinyVocabulary()
	if tok.Model != "llama" || tok.TokensLength != uint64(len(v.Tokens)) || tok.BOSTokenID != BOSTokenID || tok.EOSTokenID != EOSTokenID || tok.UnknownTokenID != UnknownTokenID {
		t.Errorf("tokenizer = %+v, want llama with %d tokens, bos 1, eos 2, unk 0", tok, len(v.Tokens))
	}
	if got := gf.Metadata().Parameters; uint64(got) != f.Parameters() {
		t.Errorf("reader counts %d parameters, writer %d", got, f.Parameters())
	}

	// The lm head's EOS row is zero and the normal rows are not: that is what keeps
	// a server without ignore_eos from ending streams early.
	var head parser.GGUFTensorInfo
	for _, ti := range gf.TensorInfos {
		if ti.Name == "output.weight" {
			head = ti
		}
	}
	if head.Name == "" {
		t.Fatal("no output.weight tensor")
	}
	nEmbd := int64(cfg.Embedding)
	row := func(id int64) []byte {
		start := gf.TensorDataStartOffset + int64(head.Offset) + id*nEmbd*2
		return raw[start : start+nEmbd*2]
	}
	if !bytes.Equal(row(EOSTokenID), make([]byte, nEmbd*2)) {
		t.Error("EOS row of output.weight is not all zeros")
	}
	for id, typ := range v.Types {
		if typ != TokenNormal {
			continue
		}
		if rms := rowRMS(row(int64(id))); rms < 0.5*cfg.OutputScale {
			t.Errorf("row of normal token %q has RMS %.3f, want about %.2f", v.Tokens[id], rms, cfg.OutputScale)
		}
	}

	// Same config, same bytes: the test model is reproducible.
	again, _ := TinyLlama(cfg)
	var b1, b2 bytes.Buffer
	f.WriteTo(&b1)
	again.WriteTo(&b2)
	if sha256.Sum256(b1.Bytes()) != sha256.Sum256(b2.Bytes()) {
		t.Error("two builds of the same config differ")
	}
}

func TestTinyVocabulary(t *testing.T) {
	v := TinyVocabulary()
	if len(v.Tokens) != len(v.Scores) || len(v.Tokens) != len(v.Types) {
		t.Fatalf("tokens %d, scores %d, types %d: lengths differ", len(v.Tokens), len(v.Scores), len(v.Types))
	}
	seen := map[string]bool{}
	for i, tok := range v.Tokens {
		if seen[tok] {
			t.Errorf("token %q appears twice", tok)
		}
		seen[tok] = true
		if v.Types[i] == TokenNormal && strings.HasPrefix(tok, spaceMarker) {
			// SentencePiece merges bigrams: a word piece is reachable only if the piece
			// one character shorter is in the vocabulary too.
			r := []rune(tok)
			if len(r) > 1 && !seen[string(r[:len(r)-1])] {
				t.Errorf("piece %q is unreachable: %q is not in the vocabulary", tok, string(r[:len(r)-1]))
			}
		}
	}
	for b := 0; b < 256; b++ {
		id := firstByteTokenID + b
		if v.Types[id] != TokenByte || v.Tokens[id] != byteToken(b) {
			t.Errorf("token %d = %q type %d, want byte token %q", id, v.Tokens[id], v.Types[id], byteToken(b))
		}
	}
	if v.Tokens[UnknownTokenID] != "<unk>" || v.Tokens[BOSTokenID] != "<s>" || v.Tokens[EOSTokenID] != "</s>" {
		t.Errorf("special tokens = %q", v.Tokens[:3])
	}
	if n := len(v.Tokens) - 3 - 256; n < 200 {
		t.Errorf("%d normal pieces, want a few hundred", n)
	}
}

func BenchmarkTinyLlama(b *testing.B) {
	for b.Loop() {
		f, err := TinyLlama(DefaultTinyLlama())
		if err != nil {
			b.Fatal(err)
		}
		var n countBytes
		if _, err := f.WriteTo(&n); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(n))
	}
}

type countBytes int

func (c *countBytes) Write(p []byte) (int, error) { *c += countBytes(len(p)); return len(p), nil }

func byteToken(b int) string { return fmt.Sprintf("<0x%02X>", b) }

func rowRMS(b []byte) float64 {
	var s float64
	for i := 0; i+1 < len(b); i += 2 {
		f := float64(halfToFloat(binary.LittleEndian.Uint16(b[i:])))
		s += f * f
	}
	return math.Sqrt(s / float64(len(b)/2))
}

func anys[T any](vs []T) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

// ramp is n values 0, step, 2·step, ...
func ramp(n int, step float32) []float32 {
	out := make([]float32, n)
	for i := range out {
		out[i] = step * float32(i)
	}
	return out
}

// FuzzFloat16 checks that Float16 picks the nearest half (ties to even) for any
// float32 in the half range.
func FuzzFloat16(f *testing.F) {
	for _, seed := range []float32{0, 1, 0.1, -2.5, 65504, 6.1e-5, 3e-8, 1 + 1.0/2048} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, x float32) {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) || math.Abs(float64(x)) > 65504 {
			return
		}
		h := Float16(x)
		got := float64(halfToFloat(h))
		err := math.Abs(got - float64(x))
		// The neighbours on either side of h (same sign) must not be nearer.
		for _, n := range []uint16{h - 1, h + 1} {
			if n&0x7c00 == 0x7c00 || n>>15 != h>>15 || h&0x7fff == 0 {
				continue
			}
			nerr := math.Abs(float64(halfToFloat(n)) - float64(x))
			if nerr < err || (nerr == err && n&1 == 0) {
				t.Fatalf("Float16(%g) = %#04x (%g), but %#04x (%g) is nearer or an even tie", x, h, got, n, halfToFloat(n))
			}
		}
	})
}
