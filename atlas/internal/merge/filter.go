package merge

import (
	"cmp"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/iceberg-go"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
)

// keyFilter is the file filter of a merge: for each key column, IsIn of
// the distinct source key values (a superset of the matching rows for a
// composite key). Column statistics then skip files that cannot hold a
// source key. NOT MATCHED BY SOURCE clauses need every file: nil.
func keyFilter(mp *sql.MergePlan, src *mergeSource) iceberg.BooleanExpression {
	if len(mp.NotMatchedBySource) > 0 {
		return nil
	}
	var out iceberg.BooleanExpression
	for k, key := range mp.Keys {
		f := isIn(mp.Target.Field(key.Target).Name, src.keys[k])
		if f == nil {
			continue
		}
		if out == nil {
			out = f
		} else {
			out = iceberg.NewAnd(out, f)
		}
	}
	return out
}

// inListLimit is the most values a key filter lists with IsIn; above it
// the filter is the values' range. iceberg-go (like Iceberg's Java
// inclusive metrics evaluator, limit 200) does not prune files with
// statistics for long IN lists, while a range prunes clustered keys.
const inListLimit = 200

func isIn(name string, col arrow.Array) iceberg.BooleanExpression {
	ref := iceberg.Reference(name)
	switch a := col.(type) {
	case *array.String:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, a.Value))
	case *array.Int64:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, a.Value))
	case *array.Int32:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, a.Value))
	case *array.Float64:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, a.Value))
	case *array.Date32:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, func(i int) iceberg.Date { return iceberg.Date(a.Value(i)) }))
	case *array.Timestamp:
		return inOrRange(ref, distinct(a.Len(), a.IsNull, func(i int) iceberg.Timestamp { return iceberg.Timestamp(a.Value(i)) }))
	}
	return nil
}

// inOrRange is IsIn(ref, vals) for short lists, else lo <= ref <= hi.
func inOrRange[T interface {
	iceberg.LiteralType
	cmp.Ordered
}](ref iceberg.UnboundTerm, vals []T) iceberg.BooleanExpression {
	if len(vals) <= inListLimit {
		return iceberg.IsIn(ref, vals...)
	}
	lo, hi := slices.Min(vals), slices.Max(vals)
	return iceberg.NewAnd(iceberg.GreaterThanEqual(ref, lo), iceberg.LessThanEqual(ref, hi))
}

func distinct[T comparable](n int, isNull func(int) bool, value func(int) T) []T {
	seen := make(map[T]struct{}, n)
	out := make([]T, 0, n)
	for i := 0; i < n; i++ {
		if isNull(i) {
			continue
		}
		v := value(i)
		if _, dup := seen[v]; !dup {
			seen[v] = struct{}{}
			out = append(out, v)
		}
	}
	return out
}
