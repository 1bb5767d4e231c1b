package engine

import (
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// aggWith builds an aggregate column with options.
func aggWith(fn string, c Column, opts expr.AggOptions) Column {
	col := aggCol(fn, &c)
	col.agg.Opts = opts
	return col
}

// ApproxCountDistinct estimates the number of distinct non-null values
// with HyperLogLog, as approx_count_distinct(col[, rsd]): rsd is the
// maximum relative standard deviation (default 0.05), from which the
// sketch's precision is derived as Spark does, p = ceil(2*log2(1.106/rsd)).
// Its state is checkpointed in streaming queries.
func ApproxCountDistinct(c Column, rsd ...float64) Column {
	opts := expr.AggOptions{RSD: expr.DefaultRSD}
	if len(rsd) > 0 {
		opts.RSD = rsd[0]
	}
	return aggWith("approx_count_distinct", c, opts)
}

// CountDistinct counts distinct non-null values, as countDistinct(col).
// Like Spark, streaming queries refuse it: use ApproxCountDistinct.
func CountDistinct(c Column) Column {
	return aggWith("count", c, expr.AggOptions{Distinct: true})
}

// CollectList collects the non-null values of each group in arrival
// order, as collect_list.
func CollectList(c Column) Column { return aggCol("collect_list", &c) }

// CollectSet collects the distinct non-null values of each group, as
// collect_set.
func CollectSet(c Column) Column { return aggCol("collect_set", &c) }

// First is the first value of each group, as first(col, ignoreNulls):
// with ignoreNulls the first non-null value.
func First(c Column, ignoreNulls ...bool) Column {
	return aggWith("first", c, expr.AggOptions{IgnoreNulls: len(ignoreNulls) > 0 && ignoreNulls[0]})
}

// Last is the last value of each group, as last(col, ignoreNulls).
func Last(c Column, ignoreNulls ...bool) Column {
	return aggWith("last", c, expr.AggOptions{IgnoreNulls: len(ignoreNulls) > 0 && ignoreNulls[0]})
}

// PercentileApprox is percentile_approx(col, percentage[, accuracy]):
// percentage is a float64 in [0, 1] (the result is one value) or a
// []float64 (the result is an array); accuracy (default 10000) bounds the
// rank error by rows/accuracy. The result is one of the column's values,
// in its type.
func PercentileApprox(c Column, percentage any, accuracy ...int64) Column {
	opts := expr.AggOptions{Accuracy: expr.DefaultAccuracy}
	switch p := percentage.(type) {
	case float64:
		opts.Percentages = []float64{p}
	case []float64:
		opts.Percentages, opts.PercentArray = append([]float64(nil), p...), true
	default:
		return errCol(fmt.Errorf("percentile_approx(%s): the percentage must be a float64 or a []float64, got %T", c, percentage))
	}
	if len(accuracy) > 0 {
		opts.Accuracy = accuracy[0]
	}
	return aggWith("percentile_approx", c, opts)
}

// Stddev is the sample standard deviation, as stddev (null for fewer than
// two values).
func Stddev(c Column) Column { return aggCol("stddev", &c) }

// StddevSamp is Stddev.
func StddevSamp(c Column) Column { return aggCol("stddev_samp", &c) }

// StddevPop is the population standard deviation.
func StddevPop(c Column) Column { return aggCol("stddev_pop", &c) }

// Variance is the sample variance (null for fewer than two values).
func Variance(c Column) Column { return aggCol("variance", &c) }

// VarSamp is Variance.
func VarSamp(c Column) Column { return aggCol("var_samp", &c) }

// VarPop is the population variance.
func VarPop(c Column) Column { return aggCol("var_pop", &c) }

// Agg aggregates the whole DataFrame as one group, as df.agg(...) (that
// is, GroupBy().Agg(...)).
func (df *DataFrame) Agg(aggs ...Column) *DataFrame { return df.GroupBy().Agg(aggs...) }
