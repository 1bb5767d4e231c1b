package file

import (
	"encoding/json"
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/bitutil"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/jsonx"
)

// JSON arrays. The jsonx decoder (from_json's hot path) has no arrays, so
// the reader decodes an array field as a string, which jsonx fills with
// the array's JSON text exactly as written, and then turns each text into
// the array: its elements are decoded by jsonx too, one element per row
// of a one-field struct, so an element converts as a field of its type
// does (timestamps, numbers, nested structs and arrays alike). A value
// that is not an array, or an element that does not fit, makes the
// array null and the line malformed.

// withoutLists returns t with every array, at any depth of structs,
// replaced by string; changed reports whether t has one.
func withoutLists(t arrow.DataType) (out arrow.DataType, changed bool) {
	switch tt := t.(type) {
	case *arrow.ListType:
		return arrow.BinaryTypes.String, true
	case *arrow.StructType:
		fields := make([]arrow.Field, tt.NumFields())
		for i, f := range tt.Fields() {
			ft, c := withoutLists(f.Type)
			changed = changed || c
			f.Type = ft
			fields[i] = f
		}
		if !changed {
			return t, false
		}
		return arrow.StructOf(fields...), true
	}
	return t, false
}

// listsFrom turns a, decoded with withoutLists(want), into an array of
// type want, setting bad[i] for each row i whose array did not parse or
// had an element that did not fit. The result is the caller's to release.
func listsFrom(mem memory.Allocator, a arrow.Array, want arrow.DataType, bad []bool) (arrow.Array, error) {
	switch wt := want.(type) {
	case *arrow.ListType:
		return listFromText(mem, a.(*array.String), wt, bad)
	case *arrow.StructType:
		st := a.(*array.Struct)
		if _, changed := withoutLists(want); !changed {
			a.Retain()
			return a, nil
		}
		children := make([]arrow.ArrayData, st.NumField())
		for i := range st.NumField() {
			c, err := listsFrom(mem, st.Field(i), wt.Field(i).Type, bad)
			if err != nil {
				return nil, err
			}
			defer c.Release()
			children[i] = c.Data()
		}
		d := st.Data()
		data := array.NewData(want, st.Len(), d.Buffers(), children, st.NullN(), d.Offset())
		defer data.Release()
		return array.MakeFromData(data), nil
	}
	a.Retain()
	return a, nil
}

// listFromText parses each text of s as a JSON array of want's element
// type.
func listFromText(mem memory.Allocator, s *array.String, want *arrow.ListType, bad []bool) (arrow.Array, error) {
	n := s.Len()
	var (
		elems  []string // {"e":<element>} per element
		owner  []int    // the row of each element
		valid  = make([]bool, n)
		counts = make([]int32, n)
	)
	for i := range n {
		if s.IsNull(i) {
			continue
		}
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(s.Value(i)), &raw); err != nil || raw == nil {
			bad[i] = true
			continue
		}
		valid[i] = true
		counts[i] = int32(len(raw))
		for _, e := range raw {
			elems = append(elems, `{"e":`+string(e)+`}`)
			owner = append(owner, i)
		}
	}
	elemType := want.Elem()
	values, elemBad, err := decodeElements(mem, elems, elemType)
	if err != nil {
		return nil, err
	}
	defer values.Release()
	for j, b := range elemBad {
		if b && valid[owner[j]] {
			valid[owner[j]] = false
			bad[owner[j]] = true
		}
	}
	// Rows made invalid by a bad element keep their elements in values
	// (the offsets still span them) but the list is null.
	offsets := make([]int32, n+1)
	validity := make([]byte, bitutil.BytesForBits(int64(n)))
	nulls := 0
	for i := range n {
		offsets[i+1] = offsets[i] + counts[i]
		if valid[i] {
			bitutil.SetBit(validity, i)
		} else {
			nulls++
		}
	}
	data := array.NewData(want, n, []*memory.Buffer{memory.NewBufferBytes(validity), memory.NewBufferBytes(arrow.Int32Traits.CastToBytes(offsets))},
		[]arrow.ArrayData{values.Data()}, nulls, 0)
	defer data.Release()
	return array.MakeFromData(data), nil
}

// decodeElements decodes texts, each {"e":<element>}, into an array of
// elemType; bad[j] says element j did not fit.
func decodeElements(mem memory.Allocator, texts []string, elemType arrow.DataType) (arrow.Array, []bool, error) {
	flat, _ := withoutLists(elemType)
	schema := arrow.NewSchema([]arrow.Field{{Name: "e", Type: flat, Nullable: true}}, nil)
	dec, err := jsonx.NewDecoder(schema, jsonx.Options{})
	if err != nil {
		return nil, nil, fmt.Errorf("json source: array element: %w", err)
	}
	defer dec.Release()
	decodeOne := func(ts []string) (*array.Struct, jsonx.Stats, error) {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		b.AppendValues(ts, nil)
		in := b.NewArray()
		defer in.Release()
		return dec.Decode(in)
	}
	st, stats, err := decodeOne(texts)
	if err != nil {
		return nil, nil, err
	}
	defer st.Release()
	bad := make([]bool, len(texts))
	if stats.Malformed > 0 {
		for j, t := range texts {
			one, s1, err := decodeOne([]string{t})
			if err != nil {
				return nil, nil, err
			}
			one.Release()
			bad[j] = s1.Malformed > 0
		}
	}
	values, err := listsFrom(mem, st.Field(0), elemType, bad)
	if err != nil {
		return nil, nil, err
	}
	return values, bad, nil
}
