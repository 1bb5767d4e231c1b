package plan

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// Deduplicate drops rows whose key columns equal an earlier row's, as
// Spark's Deduplicate and DeduplicateWithinWatermark.
type Deduplicate struct {
	In Node
	// Keys are the key column names (every column when none were given).
	Keys []string
	// KeyIndex are the key columns' indices in the input.
	KeyIndex []int
	// WithinWatermark is dropDuplicatesWithinWatermark.
	WithinWatermark bool
	// EventTime is the index of the watermarked input column, or -1;
	// EventTimeIsKey says it is among the keys.
	EventTime      int
	EventTimeIsKey bool
	// DelayMs is the watermark delay of EventTime.
	DelayMs int64
}

// NewDeduplicate resolves the key columns (all columns when keys is
// empty) and finds the watermarked column.
func NewDeduplicate(in Node, keys []string, withinWatermark bool) (*Deduplicate, error) {
	op := "dropDuplicates"
	if withinWatermark {
		op = "dropDuplicatesWithinWatermark"
	}
	if withinWatermark && !in.IsStreaming() {
		return nil, fmt.Errorf("dropDuplicatesWithinWatermark is not supported with batch DataFrames/DataSets: use DropDuplicates")
	}
	s := in.Schema()
	d := &Deduplicate{In: in, WithinWatermark: withinWatermark, EventTime: -1}
	if len(keys) == 0 {
		for i, f := range s.Fields() {
			keys = append(keys, f.Name)
			d.KeyIndex = append(d.KeyIndex, i)
		}
	} else {
		for _, k := range keys {
			i := expr.FieldIndex(s, k)
			if i < 0 {
				return nil, fmt.Errorf("%s: cannot resolve column %q among (%s)", op, k, fieldNames(s))
			}
			d.KeyIndex = append(d.KeyIndex, i)
		}
	}
	for _, i := range d.KeyIndex {
		switch s.Field(i).Type.ID() {
		case arrow.STRING, arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.TIMESTAMP, arrow.DATE32, arrow.FLOAT32, arrow.FLOAT64, arrow.BOOL:
		default:
			return nil, fmt.Errorf("%s: column %q of type %s cannot be a deduplication key; select its fields first", op, s.Field(i).Name, s.Field(i).Type)
		}
	}
	for i, f := range s.Fields() {
		v, ok := f.Metadata.GetValue(expr.MetaWatermarkDelay)
		if !ok || f.Type.ID() != arrow.TIMESTAMP {
			// A window of an aggregation before this one carries the
			// delay too; its rows are never late for what follows.
			continue
		}
		ms, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%s: corrupt watermark delay on %s: %w", op, f.Name, err)
		}
		d.EventTime, d.DelayMs = i, ms
		for _, k := range d.KeyIndex {
			if k == i {
				d.EventTimeIsKey = true
			}
		}
		break
	}
	d.Keys = make([]string, len(d.KeyIndex))
	for j, i := range d.KeyIndex {
		d.Keys[j] = s.Field(i).Name
	}
	return d, nil
}

func (d *Deduplicate) Schema() *arrow.Schema { return d.In.Schema() }
func (d *Deduplicate) Input() Node           { return d.In }
func (d *Deduplicate) IsStreaming() bool     { return d.In.IsStreaming() }
func (d *Deduplicate) Describe() string {
	if d.WithinWatermark {
		return "DeduplicateWithinWatermark [" + strings.Join(d.Keys, ", ") + "]"
	}
	return "Deduplicate [" + strings.Join(d.Keys, ", ") + "]"
}

// OperatorName is the state operator's name in progress reports, as Spark's.
func (d *Deduplicate) OperatorName() string {
	if d.WithinWatermark {
		return "dedupeWithinWatermark"
	}
	return "dedupe"
}
