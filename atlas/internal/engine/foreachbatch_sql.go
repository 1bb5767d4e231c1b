package engine

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// sqlBatchView is what a foreachBatch view name may be: an identifier.
var sqlBatchView = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)

// CheckForeachBatchSQL refuses a SQL foreachBatch that cannot run: a view
// name that is not an identifier, no statement, or a statement that does
// not parse (with the parser's line:column). It runs before any side
// effect.
func CheckForeachBatchSQL(view string, statements []string) error {
	if !sqlBatchView.MatchString(view) {
		return fmt.Errorf("foreachBatch SQL: the view name %q is not an identifier: name the micro-batch like \"updates\"", view)
	}
	if len(statements) == 0 {
		return errors.New("foreachBatch SQL: no statement: give at least one, such as MERGE INTO t USING updates u ON ...")
	}
	for i, st := range statements {
		if strings.TrimSpace(st) == "" {
			return fmt.Errorf("foreachBatch SQL: statement %d is empty", i+1)
		}
		if _, err := parser.Parse(st); err != nil {
			return fmt.Errorf("foreachBatch SQL: statement %d: %w", i+1, err)
		}
	}
	return nil
}

// ForeachBatchSQL is a foreachBatch function that publishes each
// micro-batch as the temp view view and runs statements against it, in
// order, through the batch's session: inside the callback, so their table
// writes are keyed by (query id, batch id, write sequence) and a replayed
// batch skips the writes it already made. A view of that name the session
// had before comes back after the statements. Check the arguments with
// CheckForeachBatchSQL first. DataStreamWriter.ForeachBatchSQL also
// records the form in the checkpoint.
func ForeachBatchSQL(view string, statements []string) func(*DataFrame, int64) error {
	return foreachBatchSQL(view, statements, nil)
}

// foreachBatchSQL is ForeachBatchSQL calling each, when set, with every
// statement's result (statement counts from 0) before the view goes.
func foreachBatchSQL(view string, statements []string, each func(batchID int64, statement int, result *DataFrame) error) func(*DataFrame, int64) error {
	stmts := append([]string(nil), statements...)
	return func(batch *DataFrame, batchID int64) error {
		s := batch.s
		prev, had := s.view(view)
		if err := batch.CreateOrReplaceTempView(view); err != nil {
			return fmt.Errorf("foreachBatch SQL: publish micro-batch %d as %s: %w", batchID, view, err)
		}
		defer func() {
			if had {
				s.registerView(view, prev)
			} else {
				s.dropView(view)
			}
		}()
		for i, st := range stmts {
			res, err := s.SQLContext(context.Background(), st)
			if err != nil {
				return fmt.Errorf("foreachBatch SQL: micro-batch %d, statement %d: %w", batchID, i+1, err)
			}
			if each != nil {
				if err := each(batchID, i, res); err != nil {
					return fmt.Errorf("foreachBatch SQL: micro-batch %d, statement %d: %w", batchID, i+1, err)
				}
			}
		}
		return nil
	}
}

// ForeachBatchSQL is foreachBatch with a body of SQL (see the function
// ForeachBatchSQL): each micro-batch is published as the temp view view
// and statements run over it. The checkpoint records view and statements
// at the first start, and refuses a later start from it with other
// statements or another sink (checkpoint.ErrBatchFormMismatch), so two
// programs sharing a checkpoint (a notebook and `atlas run cdc`) run one
// query. each, when not nil, gets every statement's result (statement
// counts from 0), for instance a MERGE's counts. Invalid arguments fail at
// Start.
func (w *DataStreamWriter) ForeachBatchSQL(view string, statements []string, each func(batchID int64, statement int, result *DataFrame) error) *DataStreamWriter {
	w.foreach = foreachBatchSQL(view, statements, each)
	if err := CheckForeachBatchSQL(view, statements); err != nil {
		w.df = w.df.with(nil, err)
	}
	w.sqlForm = &checkpoint.BatchForm{View: view, Statements: append([]string(nil), statements...)}
	return w
}

// dropView removes a temp view of the session.
func (s *Session) dropView(name string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.views, strings.ToLower(name))
}
