package engine

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/catalog"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// tableNotFound is Spark's TABLE_OR_VIEW_NOT_FOUND for name, saying why
// (cause) after Spark's message.
func tableNotFound(name string, cause error) *sparkerr.Error {
	id := expr.QuoteID(strings.Split(name, ".")...)
	return &sparkerr.Error{Class: "TABLE_OR_VIEW_NOT_FOUND", Params: map[string]string{"relationName": id}, Cause: cause,
		Message: fmt.Sprintf("The table or view %s cannot be found. Verify the spelling and correctness of the schema and catalog: %v", id, cause)}
}

// Table returns a table as a batch DataFrame, as spark.table(name): a temp
// view, a memory-sink table, or a lakehouse table ("lakehouse.gold.event_windows",
// read at its current snapshot).
func (s *Session) Table(name string) *DataFrame {
	df, err := s.table(context.Background(), name)
	if err != nil {
		return &DataFrame{s: s, err: fmt.Errorf("table(%q): %w", name, err)}
	}
	return df
}

func (s *Session) table(ctx context.Context, name string) (*DataFrame, error) {
	if v, ok := s.view(name); ok {
		return v, nil
	}
	s.mu.Lock()
	mt := s.tables[name]
	s.mu.Unlock()
	if mt != nil {
		return &DataFrame{s: s, node: &plan.LocalScan{Name: name, Out: mt.schema, Records: mt.snapshot()}}, nil
	}
	if !strings.Contains(name, ".") {
		return nil, tableNotFound(name, fmt.Errorf("no temp view or memory table named %q; lakehouse tables are named like lakehouse.gold.event_windows", name))
	}
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	t, err := lh.LoadTable(ctx, name)
	if errors.Is(err, lakehouse.ErrNoSuchTable) || errors.Is(err, catalog.ErrNoSuchNamespace) {
		return nil, tableNotFound(name, err)
	}
	if err != nil {
		return nil, err
	}
	recs, err := t.ReadAll(ctx)
	if err != nil {
		return nil, err
	}
	schema := t.Schema()
	refresh := func(ctx context.Context) ([]arrow.RecordBatch, error) {
		cur, err := lh.LoadTable(ctx, name)
		if err != nil {
			return nil, fmt.Errorf("table %s: %w", name, err)
		}
		if !sameColumns(cur.Schema(), schema) {
			return nil, fmt.Errorf("table %s changed its columns since the DataFrame was made (now %s): restart the query", name, cur.Schema())
		}
		return cur.ReadAll(ctx)
	}
	return &DataFrame{s: s, node: &plan.LocalScan{Name: t.Name(), Out: schema, Records: recs, Refresh: refresh}}, nil
}
