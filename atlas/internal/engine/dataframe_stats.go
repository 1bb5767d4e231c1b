package engine

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strconv"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
	"github.com/atlas-lakehouse/atlas/atlas/internal/rowconv"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// The statistics here (df.stat.*, describe, summary) collect their batch
// input when called and compute exactly what Spark computes; where Spark
// approximates (approxQuantile, freqItems), the exact answer is given,
// which is within any error bound.

// columnValues runs df and returns the values of the named columns, with
// their fields.
func (df *DataFrame) columnValues(ctx context.Context, op string, names []string) ([]arrow.Field, [][]any, error) {
	if err := df.Err(); err != nil {
		return nil, nil, err
	}
	idx, err := df.pickColumns(names)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	rec, err := df.collectOne(ctx, op)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", op, err)
	}
	defer rec.Release()
	fields := make([]arrow.Field, len(idx))
	vals := make([][]any, len(idx))
	for k, i := range idx {
		fields[k] = rec.Schema().Field(i)
		col := rec.Column(i)
		vals[k] = make([]any, rec.NumRows())
		for r := range vals[k] {
			vals[k][r] = rowconv.Value(col, r)
		}
	}
	return fields, vals, nil
}

// rowsFrame is a batch DataFrame of the session over rows of Go values.
func (s *Session) rowsFrame(schema *arrow.Schema, rows [][]any) *DataFrame {
	b := array.NewRecordBuilder(memory.DefaultAllocator, schema)
	defer b.Release()
	for _, row := range rows {
		for i, v := range row {
			if err := appendAny(b.Field(i), v); err != nil {
				return &DataFrame{s: s, err: fmt.Errorf("column %s: %w", schema.Field(i).Name, err)}
			}
		}
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	return s.CreateDataFrame(schema, []arrow.RecordBatch{rec})
}

// appendAny is rowconv.AppendValue plus lists ([]any).
func appendAny(b array.Builder, v any) error {
	lb, ok := b.(*array.ListBuilder)
	if !ok || v == nil {
		return rowconv.AppendValue(b, v)
	}
	items, ok := v.([]any)
	if !ok {
		return fmt.Errorf("want a list, got %T", v)
	}
	lb.Append(true)
	for _, x := range items {
		if err := appendAny(lb.ValueBuilder(), x); err != nil {
			return err
		}
	}
	return nil
}

// pairs returns the rows where both a and b are non-null numbers.
func pairs(a, b []any) (xs, ys []float64) {
	for i := range a {
		x, okx := toFloat(a[i])
		y, oky := toFloat(b[i])
		if okx && oky {
			xs, ys = append(xs, x), append(ys, y)
		}
	}
	return xs, ys
}

func toFloat(v any) (float64, bool) {
	switch x := v.(type) {
	case int64:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

func numericCols(op string, fields []arrow.Field) error {
	for _, f := range fields {
		if !isNumber(f.Type) {
			return sparkerr.New("DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE", "%s: column %s is %s; it needs a numeric column", op, f.Name, f.Type)
		}
	}
	return nil
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// covariance is the sample covariance of xs and ys (NaN below two rows).
func covariance(xs, ys []float64) float64 {
	if len(xs) < 2 {
		return math.NaN()
	}
	mx, my := mean(xs), mean(ys)
	var s float64
	for i := range xs {
		s += (xs[i] - mx) * (ys[i] - my)
	}
	return s / float64(len(xs)-1)
}

// twoColumns collects col1 and col2 as numbers.
func (st *DataFrameStatFunctions) twoColumns(ctx context.Context, op, col1, col2 string) ([]float64, []float64, error) {
	fields, vals, err := st.df.columnValues(ctx, op, []string{col1, col2})
	if err != nil {
		return nil, nil, err
	}
	if err := numericCols(op, fields); err != nil {
		return nil, nil, err
	}
	xs, ys := pairs(vals[0], vals[1])
	return xs, ys, nil
}

// Cov is the sample covariance of two numeric columns, as df.stat.cov.
func (st *DataFrameStatFunctions) Cov(ctx context.Context, col1, col2 string) (float64, error) {
	xs, ys, err := st.twoColumns(ctx, "cov", col1, col2)
	if err != nil {
		return 0, err
	}
	return covariance(xs, ys), nil
}

// Corr is the Pearson correlation of two numeric columns, as
// df.stat.corr (method "pearson", the only one Spark has).
func (st *DataFrameStatFunctions) Corr(ctx context.Context, col1, col2, method string) (float64, error) {
	if method != "" && !strings.EqualFold(method, "pearson") {
		return 0, sparkerr.New("INVALID_PARAMETER_VALUE", "corr: only the pearson correlation is supported, got method %q", method)
	}
	xs, ys, err := st.twoColumns(ctx, "corr", col1, col2)
	if err != nil {
		return 0, err
	}
	return covariance(xs, ys) / math.Sqrt(covariance(xs, xs)*covariance(ys, ys)), nil
}

// cellString is a value as Spark casts it to string.
func cellString(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		return numfmt.JavaFloat(x, 64)
	case string:
		return x
	}
	return fmt.Sprint(v)
}

// Crosstab is the contingency table of two columns, as df.stat.crosstab:
// a first column col1_col2 with each value of col1, then one bigint
// column per value of col2 (named by the value, in sorted order) counting
// the rows with both.
func (st *DataFrameStatFunctions) Crosstab(ctx context.Context, col1, col2 string) *DataFrame {
	df := st.df
	_, vals, err := df.columnValues(ctx, "crosstab", []string{col1, col2})
	if err != nil {
		return df.with(nil, err)
	}
	counts := map[string]map[string]int64{}
	var rowKeys []string
	colSet := map[string]bool{}
	for i := range vals[0] {
		a, b := cellString(vals[0][i]), cellString(vals[1][i])
		if counts[a] == nil {
			counts[a] = map[string]int64{}
			rowKeys = append(rowKeys, a)
		}
		counts[a][b]++
		colSet[b] = true
	}
	var colKeys []string
	for k := range colSet {
		colKeys = append(colKeys, k)
	}
	sort.Strings(colKeys)
	sort.Strings(rowKeys)
	fields := []arrow.Field{{Name: col1 + "_" + col2, Type: arrow.BinaryTypes.String, Nullable: true}}
	for _, k := range colKeys {
		fields = append(fields, arrow.Field{Name: k, Type: arrow.PrimitiveTypes.Int64})
	}
	rows := make([][]any, len(rowKeys))
	for i, a := range rowKeys {
		rows[i] = append(rows[i], a)
		for _, b := range colKeys {
			rows[i] = append(rows[i], counts[a][b])
		}
	}
	return df.s.rowsFrame(arrow.NewSchema(fields, nil), rows)
}

// FreqItems finds the items of each column that occur in more than
// support of the rows (Spark's default 0.01), as df.stat.freqItems: one
// row, a column col_freqItems (an array of the column's type) each.
func (st *DataFrameStatFunctions) FreqItems(ctx context.Context, support float64, cols ...string) *DataFrame {
	df := st.df
	if support <= 0 || support > 1 {
		return df.with(nil, sparkerr.New("INVALID_PARAMETER_VALUE", "freqItems: support must be in (0, 1], got %g", support))
	}
	fields, vals, err := df.columnValues(ctx, "freqItems", cols)
	if err != nil {
		return df.with(nil, err)
	}
	out := make([]arrow.Field, len(fields))
	row := make([]any, len(fields))
	for k, f := range fields {
		out[k] = arrow.Field{Name: f.Name + "_freqItems", Type: arrow.ListOf(f.Type), Nullable: true}
		count := map[string]int{}
		first := map[string]any{}
		var order []string
		for _, v := range vals[k] {
			key := fmt.Sprintf("%#v", v)
			if _, ok := first[key]; !ok {
				first[key] = v
				order = append(order, key)
			}
			count[key]++
		}
		items := []any{}
		for _, key := range order {
			if float64(count[key]) > support*float64(len(vals[k])) {
				items = append(items, first[key])
			}
		}
		row[k] = items
	}
	return df.s.rowsFrame(arrow.NewSchema(out, nil), [][]any{row})
}

// sortedNumbers is the non-null, non-NaN numbers of vals, sorted.
func sortedNumbers(vals []any) []float64 {
	var xs []float64
	for _, v := range vals {
		if x, ok := toFloat(v); ok && !math.IsNaN(x) {
			xs = append(xs, x)
		}
	}
	sort.Float64s(xs)
	return xs
}

// quantile is the smallest value with at least p of xs (sorted) at or
// below it, as Spark's percentile_approx and approxQuantile give exactly.
func quantile(xs []float64, p float64) float64 {
	i := int(math.Ceil(p*float64(len(xs)))) - 1
	return xs[min(max(i, 0), len(xs)-1)]
}

// ApproxQuantile gives, for each column, its quantiles at probabilities
// (exact, so within any relativeError), as df.stat.approxQuantile; nulls
// and NaN are skipped, and an empty column has no quantiles.
func (st *DataFrameStatFunctions) ApproxQuantile(ctx context.Context, cols []string, probabilities []float64, relativeError float64) ([][]float64, error) {
	if relativeError < 0 {
		return nil, sparkerr.New("INVALID_PARAMETER_VALUE", "approxQuantile: relativeError must not be negative, got %g", relativeError)
	}
	for _, p := range probabilities {
		if p < 0 || p > 1 {
			return nil, sparkerr.New("INVALID_PARAMETER_VALUE", "approxQuantile: each probability must be in [0, 1], got %g", p)
		}
	}
	fields, vals, err := st.df.columnValues(ctx, "approxQuantile", cols)
	if err != nil {
		return nil, err
	}
	if err := numericCols("approxQuantile", fields); err != nil {
		return nil, err
	}
	out := make([][]float64, len(fields))
	for k := range fields {
		xs := sortedNumbers(vals[k])
		out[k] = []float64{}
		if len(xs) == 0 {
			continue
		}
		for _, p := range probabilities {
			out[k] = append(out[k], quantile(xs, p))
		}
	}
	return out, nil
}

// SampleBy is stratified sampling without replacement, as
// df.stat.sampleBy(col, fractions, seed): a row whose col value is a key
// of fractions is kept with that probability; other rows are dropped.
func (st *DataFrameStatFunctions) SampleBy(ctx context.Context, col string, strata map[any]float64, seed int64) *DataFrame {
	df := st.df
	fractions := map[string]float64{}
	for k, f := range strata {
		if f < 0 || f > 1 {
			return df.with(nil, sparkerr.New("INVALID_PARAMETER_VALUE", "sampleBy: the fraction for %v must be in [0, 1], got %g", k, f))
		}
		fractions[cellString(k)] = f
	}
	idx, err := df.pickColumns([]string{col})
	if err != nil {
		return df.with(nil, fmt.Errorf("sampleBy: %w", err))
	}
	return df.pick(ctx, "sampleBy", func(rec arrow.RecordBatch) ([]int32, error) {
		rng := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
		var keep []int32
		c := rec.Column(idx[0])
		for i := range int(rec.NumRows()) {
			f, ok := fractions[cellString(rowconv.Value(c, i))]
			if u := rng.Float64(); ok && u < f {
				keep = append(keep, int32(i))
			}
		}
		return keep, nil
	})
}

// Describe computes count, mean, stddev, min and max of numeric and string
// columns (all of them when none is named), as df.describe(*cols): a
// column summary naming the statistic, then one string column each.
func (df *DataFrame) Describe(ctx context.Context, cols ...string) *DataFrame {
	return df.summary(ctx, "describe", cols, []string{"count", "mean", "stddev", "min", "max"})
}

// Summary computes statistics (count, mean, stddev, min, max, percentiles
// such as "25%", count_distinct, approx_count_distinct; by default count,
// mean, stddev, min, 25%, 50%, 75%, max) of the numeric and string
// columns, as df.summary(*statistics).
func (df *DataFrame) Summary(ctx context.Context, statistics ...string) *DataFrame {
	if len(statistics) == 0 {
		statistics = []string{"count", "mean", "stddev", "min", "25%", "50%", "75%", "max"}
	}
	return df.summary(ctx, "summary", nil, statistics)
}

func (df *DataFrame) summary(ctx context.Context, op string, cols []string, stats []string) *DataFrame {
	if df.failed() {
		return df
	}
	if len(cols) == 0 {
		for _, f := range df.node.Schema().Fields() {
			if isNumber(f.Type) || f.Type.ID() == arrow.STRING {
				cols = append(cols, f.Name)
			}
		}
	}
	fields, vals, err := df.columnValues(ctx, op, cols)
	if err != nil {
		return df.with(nil, err)
	}
	out := []arrow.Field{{Name: "summary", Type: arrow.BinaryTypes.String, Nullable: true}}
	for _, f := range fields {
		out = append(out, arrow.Field{Name: f.Name, Type: arrow.BinaryTypes.String, Nullable: true})
	}
	var rows [][]any
	for _, s := range stats {
		row := []any{s}
		for k, f := range fields {
			v, err := statistic(s, f, vals[k])
			if err != nil {
				return df.with(nil, fmt.Errorf("%s: %w", op, err))
			}
			row = append(row, v)
		}
		rows = append(rows, row)
	}
	return df.s.rowsFrame(arrow.NewSchema(out, nil), rows)
}

// statistic is one cell of describe/summary: the statistic s of a column,
// as a string (nil where Spark gives null).
func statistic(s string, f arrow.Field, vals []any) (any, error) {
	var present []any
	for _, v := range vals {
		if v != nil {
			present = append(present, v)
		}
	}
	nums := numbersOf(f, present)
	switch s {
	case "count":
		return strconv.Itoa(len(present)), nil
	case "count_distinct", "approx_count_distinct":
		seen := map[string]bool{}
		for _, v := range present {
			seen[fmt.Sprintf("%#v", v)] = true
		}
		return strconv.Itoa(len(seen)), nil
	case "mean":
		if len(nums) == 0 {
			return nil, nil
		}
		return numfmt.JavaFloat(mean(nums), 64), nil
	case "stddev":
		if len(nums) < 2 {
			return nil, nil
		}
		return numfmt.JavaFloat(math.Sqrt(covariance(nums, nums)), 64), nil
	case "min", "max":
		return extreme(s == "max", f, present), nil
	}
	if pct, ok := strings.CutSuffix(s, "%"); ok {
		p, err := strconv.ParseFloat(pct, 64)
		if err != nil || p < 0 || p > 100 {
			return nil, sparkerr.New("INVALID_PARAMETER_VALUE", "unable to parse %s as a percentile", s)
		}
		if !isNumber(f.Type) || len(nums) == 0 {
			return nil, nil
		}
		sort.Float64s(nums)
		q := quantile(nums, p/100)
		if isFloat(f.Type) {
			return numfmt.JavaFloat(q, 64), nil
		}
		return strconv.FormatInt(int64(q), 10), nil
	}
	return nil, sparkerr.New("INVALID_PARAMETER_VALUE", "%s is not a recognised statistic", s)
}

// numbersOf is the values as numbers: numeric columns as they are, string
// columns as far as they parse (Spark averages CAST(col AS DOUBLE)).
func numbersOf(f arrow.Field, vals []any) []float64 {
	var out []float64
	for _, v := range vals {
		switch x := v.(type) {
		case string:
			if n, err := strconv.ParseFloat(strings.TrimSpace(x), 64); err == nil {
				out = append(out, n)
			}
		default:
			if n, ok := toFloat(v); ok {
				out = append(out, n)
			}
		}
	}
	return out
}

// extreme is the largest (or smallest) value, as a string.
func extreme(largest bool, f arrow.Field, vals []any) any {
	if len(vals) == 0 {
		return nil
	}
	best := vals[0]
	for _, v := range vals[1:] {
		if less(best, v) == largest {
			best = v
		}
	}
	return cellString(best)
}

func less(a, b any) bool {
	if x, ok := toFloat(a); ok {
		y, _ := toFloat(b)
		return x < y
	}
	return cellString(a) < cellString(b)
}
