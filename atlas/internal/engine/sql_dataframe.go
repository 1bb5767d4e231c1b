package engine

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

// CreateDataFrame returns a batch DataFrame over Arrow records, as
// spark.createDataFrame: a MERGE source, a temp view, a table to insert.
// Every record must have schema (compared by column names and types). The
// DataFrame retains the records; the caller keeps its own references.
func (s *Session) CreateDataFrame(schema *arrow.Schema, records []arrow.RecordBatch) *DataFrame {
	for i, r := range records {
		if !sameColumns(r.Schema(), schema) {
			return &DataFrame{s: s, err: fmt.Errorf("createDataFrame: record %d has schema %s, want %s", i, r.Schema(), schema)}
		}
	}
	recs := make([]arrow.RecordBatch, len(records))
	for i, r := range records {
		r.Retain()
		recs[i] = r
	}
	return &DataFrame{s: s, node: &plan.LocalScan{Name: "LocalRelation", Out: schema, Records: recs}}
}

func sameColumns(a, b *arrow.Schema) bool {
	if a.NumFields() != b.NumFields() {
		return false
	}
	for i := range a.NumFields() {
		if a.Field(i).Name != b.Field(i).Name || !arrow.TypeEqual(a.Field(i).Type, b.Field(i).Type) {
			return false
		}
	}
	return true
}
