package jsonx

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// kind is the conversion a column applies to its JSON value.
type kind uint8

const (
	kindString kind = iota
	kindBinary
	kindInt8
	kindInt16
	kindInt32
	kindInt64
	kindFloat32
	kindFloat64
	kindBool
	kindTimestamp
	kindDate
	kindStruct
)

// column is one field of a struct level, compiled from the schema.
type column struct {
	name      string
	nameBytes []byte // name, for case-insensitive comparison without allocation
	// quotedKey is the name and its closing quote, when the name reads
	// as itself between double quotes (no quote, backslash or control
	// byte): a key whose bytes start with it is the name, with no scan.
	quotedKey string
	path      string // dotted path from the root, for error messages
	typ       arrow.DataType
	kind      kind
	child     *level // the nested struct's fields, for kindStruct
	out       output // where the column's values go

	// Text bytes and rows of the previous batch, to size the next one.
	lastBytes, lastRows int
}

// level is one struct of the schema (the root or a nested struct): its
// columns, a lookup table from JSON key to column, and the per-row slots the
// parser fills before the row is appended to the builders.
type level struct {
	cols  []column
	slots []slot
	table fieldTable
}

// reset forgets the values of the previous row at this level. Nested levels
// are reset when their parent field starts a new object.
func (lv *level) reset() {
	for i := range lv.slots {
		lv.slots[i].state = slotAbsent
	}
}

// compileLevel validates fields and builds the level for them. prefix is the
// dotted path of the enclosing struct ("" at the root).
func compileLevel(fields []arrow.Field, prefix string) (*level, error) {
	lv := &level{
		cols:  make([]column, len(fields)),
		slots: make([]slot, len(fields)),
	}
	names := make([]string, len(fields))
	seen := make(map[string]bool, len(fields))
	for i, f := range fields {
		path := f.Name
		if prefix != "" {
			path = prefix + "." + f.Name
		}
		if seen[f.Name] {
			return nil, fmt.Errorf("field %q appears twice", path)
		}
		seen[f.Name] = true
		k, err := kindOf(f.Type)
		if err != nil {
			return nil, fmt.Errorf("field %q: %w", path, err)
		}
		c := column{name: f.Name, nameBytes: []byte(f.Name), path: path, typ: f.Type, kind: k}
		if !strings.ContainsFunc(f.Name, func(r rune) bool { return r == '"' || r == '\\' || r < 0x20 }) {
			c.quotedKey = f.Name + `"`
		}
		if k == kindStruct {
			child, err := compileLevel(f.Type.(*arrow.StructType).Fields(), path)
			if err != nil {
				return nil, err
			}
			c.child = child
		}
		lv.cols[i] = c
		names[i] = f.Name
	}
	lv.table = newFieldTable(names)
	return lv, nil
}

// kindOf maps a supported Arrow type to its conversion.
func kindOf(t arrow.DataType) (kind, error) {
	switch t.ID() {
	case arrow.STRING:
		return kindString, nil
	case arrow.BINARY:
		return kindBinary, nil
	case arrow.INT8:
		return kindInt8, nil
	case arrow.INT16:
		return kindInt16, nil
	case arrow.INT32:
		return kindInt32, nil
	case arrow.INT64:
		return kindInt64, nil
	case arrow.FLOAT32:
		return kindFloat32, nil
	case arrow.FLOAT64:
		return kindFloat64, nil
	case arrow.BOOL:
		return kindBool, nil
	case arrow.DATE32:
		return kindDate, nil
	case arrow.TIMESTAMP:
		ts := t.(*arrow.TimestampType)
		if ts.Unit != arrow.Microsecond || ts.TimeZone != "UTC" {
			return 0, fmt.Errorf("type %s is not supported: timestamps must be %s (Spark's timestamp)", t, types.Timestamp)
		}
		return kindTimestamp, nil
	case arrow.STRUCT:
		return kindStruct, nil
	}
	return 0, fmt.Errorf("type %s is not supported: use string, binary, tinyint, smallint, int, bigint, float, double, boolean, timestamp, date or a struct of these", t)
}
