package atlas

import (
	"fmt"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// ApproxCountDistinct estimates the distinct non-null values of c with
// HyperLogLog, as approx_count_distinct(col[, rsd]) (rsd default 0.05).
func ApproxCountDistinct(c Column, rsd ...float64) Column {
	if len(rsd) > 0 {
		return fn("approx_count_distinct", c, Lit(rsd[0]))
	}
	return fn("approx_count_distinct", c)
}

// CollectList collects c's non-null values per group, in arrival order.
func CollectList(c Column) Column { return fn("collect_list", c) }

// CollectSet collects c's distinct non-null values per group.
func CollectSet(c Column) Column { return fn("collect_set", c) }

// First is the group's first value of c (the first non-null with
// ignoreNulls), as first(col, ignorenulls).
func First(c Column, ignoreNulls ...bool) Column {
	return fn("first", c, Lit(len(ignoreNulls) > 0 && ignoreNulls[0]))
}

// Last is the group's last value of c, as last(col, ignorenulls).
func Last(c Column, ignoreNulls ...bool) Column {
	return fn("last", c, Lit(len(ignoreNulls) > 0 && ignoreNulls[0]))
}

// PercentileApprox is percentile_approx(col, percentage, accuracy):
// percentage a float64 or a []float64 (sent as array(lit, ...), as
// PySpark 3.5 sends a list), accuracy default 10000.
func PercentileApprox(c Column, percentage any, accuracy ...int64) Column {
	acc := int64(10000)
	if len(accuracy) > 0 {
		acc = accuracy[0]
	}
	var p Column
	switch x := percentage.(type) {
	case float64:
		p = Lit(x)
	case []float64:
		lits := make([]Column, len(x))
		for i, v := range x {
			lits[i] = Lit(v)
		}
		p = fn("array", lits...)
	default:
		return Column{err: fmt.Errorf("percentile_approx: the percentage must be a float64 or a []float64, got %T", percentage)}
	}
	return fn("percentile_approx", c, p, Lit(acc))
}

// Stddev is the sample standard deviation of c.
func Stddev(c Column) Column { return fn("stddev", c) }

// StddevPop is the population standard deviation of c.
func StddevPop(c Column) Column { return fn("stddev_pop", c) }

// Variance is the sample variance of c.
func Variance(c Column) Column { return fn("variance", c) }

// VarPop is the population variance of c.
func VarPop(c Column) Column { return fn("var_pop", c) }

// SessionWindow is session_window(timeColumn, gapDuration): gap is a
// duration string ("5 minutes"), a time.Duration, or a Column computed per
// row (Spark's dynamic gap).
func SessionWindow(timeCol Column, gap any) Column {
	if g, ok := gap.(Column); ok {
		return fn("session_window", timeCol, g)
	}
	s, err := intervalString(gap)
	if err != nil {
		return Column{err: fmt.Errorf("session_window gap: %w", err)}
	}
	return fn("session_window", timeCol, Lit(s))
}

// DropDuplicates keeps one row per distinct value of the named columns
// (all columns when none are named), as df.dropDuplicates(subset).
func (df *DataFrame) DropDuplicates(cols ...string) *DataFrame { return df.dedup(cols, false) }

// DropDuplicatesWithinWatermark keeps one row per key on a stream with a
// watermark, remembering a key until the watermark passes its first event
// time plus the delay, as df.dropDuplicatesWithinWatermark(subset).
func (df *DataFrame) DropDuplicatesWithinWatermark(cols ...string) *DataFrame {
	return df.dedup(cols, true)
}

func (df *DataFrame) dedup(cols []string, within bool) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		d := &pb.Deduplicate{Input: in}
		if len(cols) == 0 {
			all := true
			d.AllColumnsAsKeys = &all
		} else {
			d.ColumnNames = append([]string(nil), cols...)
		}
		if within {
			d.WithinWatermark = &within
		}
		return &pb.Relation{RelType: &pb.Relation_Deduplicate{Deduplicate: d}}, nil
	})
}
