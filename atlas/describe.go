package atlas

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
)

// describeStatistics are describe()'s rows, in Spark's order.
var describeStatistics = []string{"count", "mean", "stddev", "min", "max"}

// summaryStatistics are summary()'s default rows, in Spark's order.
var summaryStatistics = []string{"count", "mean", "stddev", "min", "25%", "50%", "75%", "max"}

// Describe computes count, mean, stddev, min and max of the named columns
// (every numeric and string column when none is named), as describe():
// a string column summary naming the statistic, then one string column
// per described column. mean and stddev are null for string columns.
func (df *DataFrame) Describe(cols ...string) *DataFrame {
	return df.statistics("describe", cols, describeStatistics)
}

// Summary computes the given statistics (count, mean, stddev, min, max and
// percentiles such as "25%"; by default count, mean, stddev, min, 25%,
// 50%, 75%, max) of every numeric and string column, as summary(). The
// percentiles are percentile_approx with accuracy 10000, and null for
// string columns.
func (df *DataFrame) Summary(statistics ...string) *DataFrame {
	if len(statistics) == 0 {
		statistics = summaryStatistics
	}
	return df.statistics("summary", nil, statistics)
}

// statistics builds one row per statistic: an aggregate over df of every
// selected column, each cast to string, under a summary label; the rows
// are joined by Union in the statistics' order.
func (df *DataFrame) statistics(what string, cols []string, stats []string) *DataFrame {
	if df.err != nil {
		return df
	}
	sch := df.Schema()
	if sch == nil {
		return df.s.failedDF(fmt.Errorf("%s: %w", what, df.Err()))
	}
	var fields []arrow.Field
	if len(cols) == 0 {
		for _, f := range sch.Fields() {
			if isNumeric(f.Type) || f.Type.ID() == arrow.STRING {
				fields = append(fields, f)
			}
		}
	} else {
		for _, c := range cols {
			i := fieldIndex(sch, c)
			if i < 0 {
				return df.s.failedDF(fmt.Errorf("%s: no column %q among %v", what, c, df.Columns()))
			}
			fields = append(fields, sch.Field(i))
		}
	}
	var out *DataFrame
	for _, stat := range stats {
		row, err := df.statisticRow(stat, fields)
		if err != nil {
			return df.s.failedDF(fmt.Errorf("%s: %w", what, err))
		}
		if out == nil {
			out = row
		} else {
			out = out.Union(row)
		}
	}
	if out == nil {
		return df.s.failedDF(fmt.Errorf("%s: name at least one statistic", what))
	}
	return out
}

// statisticRow is one row: summary = stat, and per field the statistic
// cast to string (null where it does not apply to the field's type).
func (df *DataFrame) statisticRow(stat string, fields []arrow.Field) (*DataFrame, error) {
	aggs := []Column{Count(Lit(1)).Alias("__rows")}
	sel := []any{Lit(stat).Alias("summary")}
	for i, f := range fields {
		col := "`" + strings.ReplaceAll(f.Name, "`", "``") + "`"
		tmp := "__s" + strconv.Itoa(i)
		var agg string
		switch lower := strings.ToLower(stat); {
		case lower == "count":
			agg = "count(" + col + ")"
		case lower == "mean" && isNumeric(f.Type):
			agg = "avg(" + col + ")"
		case lower == "stddev" && isNumeric(f.Type):
			agg = "stddev(" + col + ")"
		case lower == "min", lower == "max":
			agg = lower + "(" + col + ")"
		case strings.HasSuffix(lower, "%"):
			p, err := strconv.ParseFloat(strings.TrimSuffix(lower, "%"), 64)
			if err != nil || p < 0 || p > 100 {
				return nil, fmt.Errorf("statistic %q: a percentile is a number from 0%% to 100%%, such as 25%%", stat)
			}
			if isNumeric(f.Type) {
				agg = "percentile_approx(" + col + ", " + strconv.FormatFloat(p/100, 'g', -1, 64) + ", 10000)"
			}
		case lower == "mean", lower == "stddev":
		default:
			return nil, fmt.Errorf("statistic %q is not one of count, mean, stddev, min, max or a percentile such as 25%%", stat)
		}
		if agg == "" {
			sel = append(sel, Lit(nil).Cast("string").Alias(f.Name))
			continue
		}
		aggs = append(aggs, Expr(agg).Alias(tmp))
		sel = append(sel, Col(tmp).Cast("string").Alias(f.Name))
	}
	return df.GroupBy().Agg(aggs...).Select(sel...), nil
}

func fieldIndex(s *arrow.Schema, name string) int {
	for i, f := range s.Fields() {
		if strings.EqualFold(f.Name, name) {
			return i
		}
	}
	return -1
}

func isNumeric(t arrow.DataType) bool {
	switch t.ID() {
	case arrow.INT8, arrow.INT16, arrow.INT32, arrow.INT64, arrow.FLOAT32, arrow.FLOAT64,
		arrow.DECIMAL128, arrow.DECIMAL256:
		return true
	}
	return false
}
