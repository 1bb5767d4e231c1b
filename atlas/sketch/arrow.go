package sketch

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

// EachValue calls fn with every non-null value of a string, binary or
// integer Arrow column, as the items the sketches take; other types are
// refused as Spark refuses them.
func EachValue(a arrow.Array, fn func(any) error) error {
	var get func(i int) any
	switch c := a.(type) {
	case *array.String:
		get = func(i int) any { return c.Value(i) }
	case *array.Binary:
		get = func(i int) any { return c.Value(i) }
	case *array.Int64:
		get = func(i int) any { return c.Value(i) }
	case *array.Int32:
		get = func(i int) any { return c.Value(i) }
	case *array.Int16:
		get = func(i int) any { return c.Value(i) }
	case *array.Int8:
		get = func(i int) any { return c.Value(i) }
	default:
		return fmt.Errorf("the column must be of string, integral or binary type, got %s", a.DataType())
	}
	for i := range a.Len() {
		if a.IsNull(i) {
			continue
		}
		if err := fn(get(i)); err != nil {
			return err
		}
	}
	return nil
}

// CheckType refuses column types the sketches do not take.
func CheckType(t arrow.DataType) error {
	switch t.ID() {
	case arrow.STRING, arrow.BINARY, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64:
		return nil
	}
	return fmt.Errorf("the column must be of string, integral or binary type, got %s", t)
}
