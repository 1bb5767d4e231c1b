package file

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// maxInferLine bounds one JSON line read for inference (64 MiB).
const maxInferLine = 64 << 20

// InferJSONSchema is the schema Spark's spark.read.json gives without a
// schema (JsonInferSchema): every object of every line of every file
// merged into one struct, its fields sorted by name; integers are bigint,
// other numbers double, true/false boolean, text string, objects structs
// (fields sorted too) and arrays arrays of their merged elements. A field
// seen only as null, or as an empty array's element, is a string; fields
// of conflicting kinds are strings, except bigint and double, which
// widen to double. A line that is not JSON (or is truncated) is
// malformed: with the option mode PERMISSIVE (the default) it adds the
// string column columnNameOfCorruptRecord (default _corrupt_record),
// sorted among the others, as Spark's JsonInferSchema does; DROPMALFORMED
// leaves it out; FAILFAST fails. Valid JSON that is not an object is
// skipped. One departure: an integer beyond bigint is a double, where
// Spark infers decimal(p, 0).
func InferJSONSchema(paths []string, opts map[string]string) (*arrow.Schema, error) {
	ro, err := parseReadOptions("json", opts, false)
	if err != nil {
		return nil, err
	}
	var top *jsonNode
	for _, p := range paths {
		if err := inferJSONFile(p, ro, &top); err != nil {
			return nil, err
		}
	}
	if top == nil || len(top.fields) == 0 {
		return nil, fmt.Errorf("json source: [UNABLE_TO_INFER_SCHEMA] no JSON object in %s to infer a schema from: give the schema with Schema(\"a string, b int\")", strings.Join(paths, ", "))
	}
	st := top.arrow().(*arrow.StructType)
	return arrow.NewSchema(st.Fields(), nil), nil
}

func inferJSONFile(path string, ro readOptions, top **jsonNode) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("json source: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 64<<10), maxInferLine)
	for sc.Scan() {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.UseNumber()
		var v any
		if dec.Decode(&v) != nil {
			switch ro.mode {
			case FailFast:
				return sparkerr.New("MALFORMED_RECORD_IN_PARSING.WITHOUT_SUGGESTION", "Malformed records are detected in schema inference. Parse Mode: FAILFAST. (%s: %.200s)", path, line)
			case Permissive:
				if ro.corrupt != "" {
					*top = mergeJSON(*top, &jsonNode{kind: jsonStruct, fields: map[string]*jsonNode{ro.corrupt: {kind: jsonString}}})
				}
			}
			continue
		}
		if obj, ok := v.(map[string]any); ok {
			*top = mergeJSON(*top, nodeOf(obj))
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("json source: %s: %w", path, err)
	}
	return nil
}

// jsonKind is the inferred type of a JSON value, by Spark's names.
type jsonKind int

const (
	jsonNull jsonKind = iota
	jsonLong
	jsonDouble
	jsonBool
	jsonString
	jsonStruct
	jsonArray
)

// jsonNode is an inferred type: a kind, the fields of a struct, the
// element of an array.
type jsonNode struct {
	kind   jsonKind
	fields map[string]*jsonNode
	elem   *jsonNode
}

func nodeOf(v any) *jsonNode {
	switch x := v.(type) {
	case nil:
		return &jsonNode{kind: jsonNull}
	case bool:
		return &jsonNode{kind: jsonBool}
	case string:
		return &jsonNode{kind: jsonString}
	case json.Number:
		if !strings.ContainsAny(x.String(), ".eE") {
			if _, err := strconv.ParseInt(x.String(), 10, 64); err == nil {
				return &jsonNode{kind: jsonLong}
			}
		}
		return &jsonNode{kind: jsonDouble}
	case map[string]any:
		n := &jsonNode{kind: jsonStruct, fields: map[string]*jsonNode{}}
		for k, fv := range x {
			n.fields[k] = nodeOf(fv)
		}
		return n
	case []any:
		n := &jsonNode{kind: jsonArray}
		for _, e := range x {
			n.elem = mergeJSON(n.elem, nodeOf(e))
		}
		return n
	}
	return &jsonNode{kind: jsonString}
}

// mergeJSON is Spark's compatibleType for JSON: null gives way, bigint
// and double widen to double, structs merge their fields, arrays their
// elements, anything else is a string.
func mergeJSON(a, b *jsonNode) *jsonNode {
	switch {
	case a == nil || a.kind == jsonNull:
		return b
	case b == nil || b.kind == jsonNull:
		return a
	case a.kind == jsonStruct && b.kind == jsonStruct:
		out := &jsonNode{kind: jsonStruct, fields: map[string]*jsonNode{}}
		for k, v := range a.fields {
			out.fields[k] = v
		}
		for k, v := range b.fields {
			out.fields[k] = mergeJSON(out.fields[k], v)
		}
		return out
	case a.kind == jsonArray && b.kind == jsonArray:
		return &jsonNode{kind: jsonArray, elem: mergeJSON(a.elem, b.elem)}
	case a.kind == b.kind:
		return a
	case (a.kind == jsonLong || a.kind == jsonDouble) && (b.kind == jsonLong || b.kind == jsonDouble):
		return &jsonNode{kind: jsonDouble}
	}
	return &jsonNode{kind: jsonString}
}

func (n *jsonNode) arrow() arrow.DataType {
	if n == nil {
		return arrow.BinaryTypes.String
	}
	switch n.kind {
	case jsonLong:
		return arrow.PrimitiveTypes.Int64
	case jsonDouble:
		return arrow.PrimitiveTypes.Float64
	case jsonBool:
		return arrow.FixedWidthTypes.Boolean
	case jsonStruct:
		names := make([]string, 0, len(n.fields))
		for k := range n.fields {
			names = append(names, k)
		}
		sort.Strings(names)
		fields := make([]arrow.Field, 0, len(names))
		for _, k := range names {
			if f := n.fields[k]; f != nil && f.kind == jsonStruct && len(f.fields) == 0 {
				continue // Spark drops a field that is only ever {}
			}
			fields = append(fields, arrow.Field{Name: k, Type: n.fields[k].arrow(), Nullable: true})
		}
		return arrow.StructOf(fields...)
	case jsonArray:
		return arrow.ListOf(n.elem.arrow())
	}
	return arrow.BinaryTypes.String
}
