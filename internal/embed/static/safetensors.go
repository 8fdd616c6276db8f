package static

import (
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"sort"
)

// tensor is one entry of a safetensors file; data aliases the file bytes.
type tensor struct {
	name  string
	dtype string
	shape []int
	data  []byte
}

// dtypeSize is the byte width of each safetensors dtype this package can
// decode.
var dtypeSize = map[string]int{"F32": 4, "F16": 2, "BF16": 2, "I8": 1, "I32": 4, "I64": 8}

// parseSafetensors splits a safetensors file into its tensors: an 8-byte
// little-endian header length N, N bytes of JSON mapping each name to
// {dtype, shape, data_offsets [begin, end)} relative to the end of the
// header (plus an optional "__metadata__"), then the raw little-endian
// data. Errors do not name the file; the caller adds it.
func parseSafetensors(b []byte) (map[string]tensor, error) {
	if len(b) < 8 {
		return nil, fmt.Errorf("truncated: %d bytes, shorter than the 8-byte header length", len(b))
	}
	n := binary.LittleEndian.Uint64(b)
	if n > uint64(len(b)-8) {
		return nil, fmt.Errorf("header length %d runs past the end of the %d-byte file", n, len(b))
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b[8:8+n], &raw); err != nil {
		return nil, fmt.Errorf("parsing header JSON: %v", err)
	}
	data := b[8+n:]
	out := make(map[string]tensor, len(raw))
	for name, msg := range raw {
		if name == "__metadata__" {
			continue
		}
		var h struct {
			Dtype       string   `json:"dtype"`
			Shape       []int    `json:"shape"`
			DataOffsets []uint64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(msg, &h); err != nil {
			return nil, fmt.Errorf("tensor %q: parsing header entry: %v", name, err)
		}
		if len(h.DataOffsets) != 2 || h.DataOffsets[0] > h.DataOffsets[1] {
			return nil, fmt.Errorf("tensor %q: bad data_offsets %v", name, h.DataOffsets)
		}
		if h.DataOffsets[1] > uint64(len(data)) {
			return nil, fmt.Errorf("tensor %q: data_offsets %v run past the %d data bytes (truncated file?)", name, h.DataOffsets, len(data))
		}
		size, ok := dtypeSize[h.Dtype]
		if !ok {
			return nil, fmt.Errorf("tensor %q: dtype %q: %w (F32, F16, BF16, I8, I32, I64)", name, h.Dtype, ErrUnsupported)
		}
		count := uint64(1)
		for _, d := range h.Shape {
			if d < 0 {
				return nil, fmt.Errorf("tensor %q: negative shape %v", name, h.Shape)
			}
			if d != 0 && count > uint64(len(data))/uint64(d) {
				count = uint64(len(data)) + 1 // too big either way; avoids overflow
				continue
			}
			count *= uint64(d)
		}
		if count*uint64(size) != h.DataOffsets[1]-h.DataOffsets[0] {
			return nil, fmt.Errorf("tensor %q: shape %v of %s needs %d bytes, data_offsets give %d",
				name, h.Shape, h.Dtype, count*uint64(size), h.DataOffsets[1]-h.DataOffsets[0])
		}
		out[name] = tensor{name: name, dtype: h.Dtype, shape: h.Shape, data: data[h.DataOffsets[0]:h.DataOffsets[1]]}
	}
	return out, nil
}

// names returns the tensor names in order, for error messages.
func names(ts map[string]tensor) []string {
	var s []string
	for n := range ts {
		s = append(s, n)
	}
	sort.Strings(s)
	return s
}

// floats decodes a float tensor (F32, F16 or BF16) to float32.
func (t tensor) floats() ([]float32, error) {
	switch t.dtype {
	case "F32":
		v := make([]float32, len(t.data)/4)
		for i := range v {
			v[i] = math.Float32frombits(binary.LittleEndian.Uint32(t.data[4*i:]))
		}
		return v, nil
	case "F16":
		v := make([]float32, len(t.data)/2)
		for i := range v {
			v[i] = halfToFloat32(binary.LittleEndian.Uint16(t.data[2*i:]))
		}
		return v, nil
	case "BF16":
		v := make([]float32, len(t.data)/2)
		for i := range v {
			v[i] = math.Float32frombits(uint32(binary.LittleEndian.Uint16(t.data[2*i:])) << 16)
		}
		return v, nil
	}
	return nil, fmt.Errorf("tensor %q: dtype %s is not a float type: %w", t.name, t.dtype, ErrUnsupported)
}

// halfToFloat32 converts an IEEE 754 binary16 value to float32 exactly.
func halfToFloat32(h uint16) float32 {
	sign := uint32(h>>15) << 31
	exp := uint32(h>>10) & 0x1f
	frac := uint32(h) & 0x3ff
	switch {
	case exp == 0x1f: // Inf or NaN
		return math.Float32frombits(sign | 0xff<<23 | frac<<13)
	case exp != 0: // normal
		return math.Float32frombits(sign | (exp+127-15)<<23 | frac<<13)
	case frac == 0: // ±0
		return math.Float32frombits(sign)
	}
	// Subnormal: frac × 2^-24.
	f := float32(frac) * (1.0 / (1 << 24))
	if sign != 0 {
		f = -f
	}
	return f
}

// encodeSafetensors writes ts in the safetensors format that
// [parseSafetensors] reads: the header (with "__metadata__" {"format":
// "pt"}, as PyTorch writers add) and then each tensor's data, in name
// order. It sorts ts in place.
func encodeSafetensors(ts []tensor) []byte {
	sort.Slice(ts, func(i, j int) bool { return ts[i].name < ts[j].name })
	header := map[string]any{"__metadata__": map[string]string{"format": "pt"}}
	var data []byte
	for _, t := range ts {
		header[t.name] = map[string]any{
			"dtype": t.dtype, "shape": t.shape,
			"data_offsets": []int{len(data), len(data) + len(t.data)},
		}
		data = append(data, t.data...)
	}
	h, err := json.Marshal(header)
	if err != nil {
		// Only strings, ints and slices of them: cannot fail.
		panic(err)
	}
	out := make([]byte, 0, 8+len(h)+len(data))
	out = binary.LittleEndian.AppendUint64(out, uint64(len(h)))
	out = append(out, h...)
	return append(out, data...)
}

// f32Bytes returns v as little-endian F32 tensor data.
func f32Bytes(v []float32) []byte {
	b := make([]byte, 0, 4*len(v))
	for _, x := range v {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
	}
	return b
}
