// Package gguf owns writing GGUF v3 model files and the tiny random-weight llama model
// that the end-to-end tests serve with a real engine (llama.cpp through Ollama). It
// writes only: reading GGUF metadata is gguf-parser-go's job. Pure Go, no cgo.
//
// The format (github.com/ggml-org/ggml/blob/master/docs/gguf.md): a header (magic
// "GGUF", version, tensor count, metadata count), the metadata key/value pairs, the
// tensor infos (name, dimensions, type, offset into the data section), padding to the
// alignment, then each tensor's data, every tensor starting on an aligned offset.
package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
)

// Version is the GGUF version this package writes.
const Version = 3

// DefaultAlignment is the data alignment GGUF readers assume when general.alignment
// is absent.
const DefaultAlignment = 32

// magic is "GGUF" as it appears in the file's first four bytes.
var magic = [4]byte{'G', 'G', 'U', 'F'}

// metadata value types, as numbered by the GGUF spec.
const (
	typeUint8   uint32 = 0
	typeInt8    uint32 = 1
	typeUint16  uint32 = 2
	typeInt16   uint32 = 3
	typeUint32  uint32 = 4
	typeInt32   uint32 = 5
	typeFloat32 uint32 = 6
	typeBool    uint32 = 7
	typeString  uint32 = 8
	typeArray   uint32 = 9
	typeUint64  uint32 = 10
	typeInt64   uint32 = 11
	typeFloat64 uint32 = 12
)

// TensorType is a ggml tensor element type. Only the unquantised ones are written here.
type TensorType uint32

const (
	F32 TensorType = 0
	F16 TensorType = 1
)

// size is the bytes one element of t takes.
func (t TensorType) size() int {
	switch t {
	case F32:
		return 4
	case F16:
		return 2
	}
	return 0
}

func (t TensorType) String() string {
	switch t {
	case F32:
		return "F32"
	case F16:
		return "F16"
	}
	return fmt.Sprintf("TensorType(%d)", uint32(t))
}

// KV is one metadata pair. Value is one of: uint8, int8, uint16, int16, uint32, int32,
// uint64, int64, float32, float64, bool, string, or a slice of one of those.
type KV struct {
	Key   string
	Value any
}

// Tensor is one named tensor. Shape lists dimensions innermost first, as ggml does
// (ne[0] is the contiguous one): a llama weight matrix that maps n_embd inputs to n_ff
// outputs has Shape {n_embd, n_ff}, stored as n_ff rows of n_embd elements.
type Tensor struct {
	Name  string
	Shape []uint64
	Type  TensorType
	Data  []byte
}

// Elements is the number of elements the shape holds.
func (t *Tensor) Elements() uint64 {
	n := uint64(1)
	for _, d := range t.Shape {
		n *= d
	}
	return n
}

// NewF32 makes an F32 tensor of the given shape from values (row-major, innermost
// dimension first).
func NewF32(name string, shape []uint64, values []float32) Tensor {
	b := make([]byte, 4*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
	}
	return Tensor{Name: name, Shape: shape, Type: F32, Data: b}
}

// NewF16 makes an F16 tensor of the given shape, rounding values to half precision.
func NewF16(name string, shape []uint64, values []float32) Tensor {
	b := make([]byte, 2*len(values))
	for i, v := range values {
		binary.LittleEndian.PutUint16(b[2*i:], Float16(v))
	}
	return Tensor{Name: name, Shape: shape, Type: F16, Data: b}
}

// File is a GGUF file to be written: metadata in order, then tensors in order.
type File struct {
	KV      []KV
	Tensors []Tensor
	// Alignment of the data section and of every tensor in it; 0 means
	// DefaultAlignment. A value other than 32 is also written as general.alignment.
	Alignment int
}

func (f *File) alignment() int {
	if f.Alignment == 0 {
		return DefaultAlignment
	}
	return f.Alignment
}

// validate checks what a reader would reject, so that a bad file fails here with a
// clear message rather than inside the engine.
func (f *File) validate() error {
	a := f.alignment()
	if a <= 0 || a%8 != 0 {
		return fmt.Errorf("gguf: alignment %d is not a positive multiple of 8", a)
	}
	keys := make(map[string]bool, len(f.KV))
	for _, kv := range f.KV {
		if kv.Key == "" {
			return fmt.Errorf("gguf: metadata key is empty")
		}
		if keys[kv.Key] {
			return fmt.Errorf("gguf: metadata key %q appears twice", kv.Key)
		}
		keys[kv.Key] = true
		if kv.Key == "general.alignment" {
			return fmt.Errorf("gguf: set File.Alignment rather than general.alignment")
		}
	}
	names := make(map[string]bool, len(f.Tensors))
	for i := range f.Tensors {
		t := &f.Tensors[i]
		if t.Name == "" || len(t.Name) > 63 {
			return fmt.Errorf("gguf: tensor %d: name %q must be 1 to 63 bytes", i, t.Name)
		}
		if names[t.Name] {
			return fmt.Errorf("gguf: tensor %q appears twice", t.Name)
		}
		names[t.Name] = true
		if len(t.Shape) == 0 || len(t.Shape) > 4 {
			return fmt.Errorf("gguf: tensor %q has %d dimensions, want 1 to 4", t.Name, len(t.Shape))
		}
		for _, d := range t.Shape {
			if d == 0 {
				return fmt.Errorf("gguf: tensor %q has a zero dimension %v", t.Name, t.Shape)
			}
		}
		if t.Type.size() == 0 {
			return fmt.Errorf("gguf: tensor %q has unsupported type %v", t.Name, t.Type)
		}
		if want := t.Elements() * uint64(t.Type.size()); uint64(len(t.Data)) != want {
			return fmt.Errorf("gguf: tensor %q: shape %v of %v needs %d bytes, data has %d", t.Name, t.Shape, t.Type, want, len(t.Data))
		}
	}
	return nil
}

// WriteTo writes the whole file to w.
func (f *File) WriteTo(w io.Writer) (int64, error) {
	if err := f.validate(); err != nil {
		return 0, err
	}
	cw := &countingWriter{w: bufio.NewWriterSize(w, 1<<20)}
	e := encoder{w: cw}
	align := f.alignment()

	kvs := f.KV
	if align != DefaultAlignment {
		kvs = append(append([]KV(nil), kvs...), KV{Key: "general.alignment", Value: uint32(align)})
	}

	e.raw(magic[:])
	e.u32(Version)
	e.u64(uint64(len(f.Tensors)))
	e.u64(uint64(len(kvs)))
	for _, kv := range kvs {
		e.str(kv.Key)
		if err := e.value(kv.Value); err != nil {
			return cw.n, fmt.Errorf("gguf: metadata %q: %w", kv.Key, err)
		}
	}

	var offset uint64
	for i := range f.Tensors {
		t := &f.Tensors[i]
		e.str(t.Name)
		e.u32(uint32(len(t.Shape)))
		for _, d := range t.Shape {
			e.u64(d)
		}
		e.u32(uint32(t.Type))
		e.u64(offset)
		offset = padTo(offset+uint64(len(t.Data)), uint64(align))
	}
	e.pad(align)
	for i := range f.Tensors {
		e.raw(f.Tensors[i].Data)
		e.pad(align)
	}
	if e.err != nil {
		return cw.n, fmt.Errorf("gguf: writing: %w", e.err)
	}
	if err := cw.w.Flush(); err != nil {
		return cw.n, fmt.Errorf("gguf: writing: %w", err)
	}
	return cw.n, nil
}

// WriteFile writes the file at path (created or truncated).
func (f *File) WriteFile(path string) error {
	out, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("gguf: creating %s: %w", filepath.Base(path), err)
	}
	if _, err := f.WriteTo(out); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return fmt.Errorf("gguf: closing %s: %w", filepath.Base(path), err)
	}
	return nil
}

func padTo(n, align uint64) uint64 {
	return (n + align - 1) / align * align
}

type countingWriter struct {
	w *bufio.Writer
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// encoder writes little-endian GGUF primitives and keeps the first error.
type encoder struct {
	w   *countingWriter
	err error
	buf [8]byte
}

func (e *encoder) raw(b []byte) {
	if e.err == nil {
		_, e.err = e.w.Write(b)
	}
}

func (e *encoder) u8(v uint8) { e.raw([]byte{v}) }

func (e *encoder) u16(v uint16) {
	binary.LittleEndian.PutUint16(e.buf[:], v)
	e.raw(e.buf[:2])
}

func (e *encoder) u32(v uint32) {
	binary.LittleEndian.PutUint32(e.buf[:], v)
	e.raw(e.buf[:4])
}

func (e *encoder) u64(v uint64) {
	binary.LittleEndian.PutUint64(e.buf[:], v)
	e.raw(e.buf[:8])
}

func (e *encoder) str(s string) {
	e.u64(uint64(len(s)))
	e.raw([]byte(s))
}

func (e *encoder) pad(align int) {
	if rem := int(e.w.n % int64(align)); rem != 0 {
		e.raw(make([]byte, align-rem))
	}
}

// value writes a metadata value: its type, then its payload.
func (e *encoder) value(v any) error {
	switch v := v.(type) {
	case uint8:
		e.u32(typeUint8)
		e.u8(v)
	case int8:
		e.u32(typeInt8)
		e.u8(uint8(v))
	case uint16:
		e.u32(typeUint16)
		e.u16(v)
	case int16:
		e.u32(typeInt16)
		e.u16(uint16(v))
	case uint32:
		e.u32(typeUint32)
		e.u32(v)
	case int32:
		e.u32(typeInt32)
		e.u32(uint32(v))
	case uint64:
		e.u32(typeUint64)
		e.u64(v)
	case int64:
		e.u32(typeInt64)
		e.u64(uint64(v))
	case float32:
		e.u32(typeFloat32)
		e.u32(math.Float32bits(v))
	case float64:
		e.u32(typeFloat64)
		e.u64(math.Float64bits(v))
	case bool:
		e.u32(typeBool)
		if v {
			e.u8(1)
		} else {
			e.u8(0)
		}
	case string:
		e.u32(typeString)
		e.str(v)
	case []uint8:
		array(e, typeUint8, v, e.u8)
	case []int8:
		array(e, typeInt8, v, func(x int8) { e.u8(uint8(x)) })
	case []uint16:
		array(e, typeUint16, v, e.u16)
	case []int16:
		array(e, typeInt16, v, func(x int16) { e.u16(uint16(x)) })
	case []uint32:
		array(e, typeUint32, v, e.u32)
	case []int32:
		array(e, typeInt32, v, func(x int32) { e.u32(uint32(x)) })
	case []uint64:
		array(e, typeUint64, v, e.u64)
	case []int64:
		array(e, typeInt64, v, func(x int64) { e.u64(uint64(x)) })
	case []float32:
		array(e, typeFloat32, v, func(x float32) { e.u32(math.Float32bits(x)) })
	case []float64:
		array(e, typeFloat64, v, func(x float64) { e.u64(math.Float64bits(x)) })
	case []bool:
		array(e, typeBool, v, func(x bool) {
			if x {
				e.u8(1)
			} else {
				e.u8(0)
			}
		})
	case []string:
		array(e, typeString, v, e.str)
	default:
		return fmt.Errorf("unsupported value type %T", v)
	}
	return nil
}

func array[T any](e *encoder, elem uint32, vs []T, put func(T)) {
	e.u32(typeArray)
	e.u32(elem)
	e.u64(uint64(len(vs)))
	for _, v := range vs {
		put(v)
	}
}

// Float16 converts f to IEEE 754 half precision bits, rounding to nearest even;
// values beyond the half range become ±Inf, NaN stays NaN.
func Float16(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int32(b>>23&0xff) - 127 + 15
	mant := b & 0x7fffff

	switch {
	case b&0x7fffffff == 0:
		return sign
	case b>>23&0xff == 0xff: // Inf or NaN
		if mant != 0 {
			return sign | 0x7e00
		}
		return sign | 0x7c00
	case exp >= 0x1f:
		return sign | 0x7c00
	case exp <= 0:
		// Subnormal half (or zero): shift the mantissa, with its implicit 1, into place.
		if exp < -10 {
			return sign
		}
		m := mant | 0x800000
		shift := uint32(14 - exp)
		half := m >> shift
		rem := m & (1<<shift - 1)
		mid := uint32(1) << (shift - 1)
		if rem > mid || (rem == mid && half&1 == 1) {
			half++
		}
		return sign | uint16(half)
	}
	half := uint32(exp)<<10 | mant>>13
	rem := mant & 0x1fff
	if rem > 0x1000 || (rem == 0x1000 && half&1 == 1) {
		half++ // may carry into the exponent, and up to Inf: both are right
	}
	return sign | uint16(half)
}
