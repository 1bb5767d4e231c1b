package functions

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
)

// tTimestamp is Spark's TimestampType as Atlas holds it.
var tTimestamp = &arrow.TimestampType{Unit: arrow.Microsecond, TimeZone: "UTC"}

// timePartDefs are hour, minute and second of a timestamp in the session
// time zone; a string or a date argument reads as a timestamp.
func timePartDefs() []*Def {
	part := func(name string, f func(time.Time) int) *Def {
		return row(name, "datetime", 1, 1, &rowImpl{
			resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
				switch in[0].ID() {
				case arrow.TIMESTAMP:
					return []arrow.DataType{nil}, tInt, nil
				case arrow.STRING, arrow.DATE32, arrow.NULL:
					return []arrow.DataType{tTimestamp}, tInt, nil
				}
				return nil, nil, fmt.Errorf("argument 1 requires a timestamp, got %s", in[0])
			},
			eval: func(v []any) (any, error) {
				t, ok := v[0].(time.Time)
				if !ok {
					return nil, fmt.Errorf("%s of %T", name, v[0])
				}
				return int32(f(t)), nil // t is in the session time zone (rowBound)
			}})
	}
	return []*Def{
		part("hour", time.Time.Hour),
		part("minute", time.Time.Minute),
		part("second", time.Time.Second),
	}
}
