package engine

import (
	"context"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
)

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
		return nil, fmt.Errorf("no temp view or memory table named %q; lakehouse tables are named like lakehouse.gold.event_windows", name)
	}
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	t, err := lh.LoadTable(ctx, name)
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
