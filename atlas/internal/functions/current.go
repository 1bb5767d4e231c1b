package functions

import (
	"fmt"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// currentDefs are current_date (alias curdate), localtimestamp and
// current_timezone: the query's time (expr.Ctx.Now, one instant per
// query or micro-batch, as current_timestamp) read in the session time
// zone, and that zone's name.
func currentDefs() []*Def {
	now := func(name string, kind nowKind, aliases ...string) *Def {
		return &Def{Name: name, Aliases: aliases, Group: "datetime", MinArgs: 0, MaxArgs: 0,
			ColumnName: func(string, []string) string { return name + "()" },
			Build: func(string, []expr.Expr) (expr.Expr, error) {
				return &nowExpr{name: name, kind: kind}, nil
			}}
	}
	return []*Def{
		now("current_date", nowDate, "curdate"),
		now("localtimestamp", nowLocal),
		now("current_timezone", nowZone),
	}
}

type nowKind int

const (
	nowDate  nowKind = iota // current_date(): the date in the session time zone
	nowLocal                // localtimestamp(): the wall clock there, TIMESTAMP_NTZ
	nowZone                 // current_timezone(): the session time zone's name
)

// nowExpr is a function of the query's time.
type nowExpr struct {
	name string
	kind nowKind
}

func (e *nowExpr) String() string { return e.name + "()" }

// Bind returns the bound expression; it reads no column.
func (e *nowExpr) Bind(*arrow.Schema) (expr.Bound, error) { return e, nil }

// Type is DATE, TIMESTAMP_NTZ or STRING.
func (e *nowExpr) Type() arrow.DataType {
	switch e.kind {
	case nowDate:
		return tDate
	case nowLocal:
		return tNTZ
	}
	return tString
}

// Nullable is false: the query always has a time.
func (e *nowExpr) Nullable() bool { return false }

// Eval repeats the value for every row of rec.
func (e *nowExpr) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	loc := c.Zone()
	var v any = loc.String()
	if e.kind != nowZone {
		if c.Now.IsZero() {
			return nil, fmt.Errorf("%s: the evaluation context has no query time", e)
		}
		wall := wallIn(c.Now, loc)
		v = wall
		if e.kind == nowDate {
			y, m, d := wall.Date()
			v = time.Date(y, m, d, 0, 0, 0, 0, time.UTC)
		}
	}
	b := array.NewBuilder(c.Mem, e.Type())
	defer b.Release()
	for range rec.NumRows() {
		if err := appendValue(b, v); err != nil {
			return nil, fmt.Errorf("%s: %w", e, err)
		}
	}
	return b.NewArray(), nil
}
