package lakehouse

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go"
)

// partitionSpec builds an Iceberg partition spec from Spark-style partition
// expressions over the schema's columns:
//
//	country            identity
//	days(ts)           day transform   (also years, months, hours; day, hour, ...)
//	bucket(16, id)     bucket[16]
//	truncate(4, name)  truncate[4]
//
// Partition field names follow Spark's Iceberg naming: the column name for
// identity, column_day / column_bucket / ... otherwise.
func partitionSpec(exprs []string, sc *iceberg.Schema) (iceberg.PartitionSpec, error) {
	if len(exprs) == 0 {
		return *iceberg.UnpartitionedSpec, nil
	}
	opts := make([]iceberg.PartitionOption, 0, len(exprs))
	for _, e := range exprs {
		col, tr, suffix, err := parsePartitionExpr(e)
		if err != nil {
			return iceberg.PartitionSpec{}, err
		}
		if _, ok := sc.FindFieldByName(col); !ok {
			return iceberg.PartitionSpec{}, fmt.Errorf("lakehouse: partition %q: no column %q in the schema", e, col)
		}
		target := col
		if suffix != "" {
			target = col + "_" + suffix
		}
		opts = append(opts, iceberg.AddPartitionFieldByName(col, target, tr, sc, nil))
	}
	spec, err := iceberg.NewPartitionSpecOpts(opts...)
	if err != nil {
		return iceberg.PartitionSpec{}, fmt.Errorf("lakehouse: partition by %v: %w", exprs, err)
	}
	return spec, nil
}

// parsePartitionExpr parses one partition expression into its source column,
// transform and the suffix of the partition field name.
func parsePartitionExpr(e string) (col string, tr iceberg.Transform, suffix string, err error) {
	s := strings.TrimSpace(e)
	open := strings.IndexByte(s, '(')
	if open < 0 {
		if s == "" {
			return "", nil, "", fmt.Errorf("lakehouse: empty partition expression")
		}
		return s, iceberg.IdentityTransform{}, "", nil
	}
	if !strings.HasSuffix(s, ")") {
		return "", nil, "", fmt.Errorf("lakehouse: partition %q: missing closing parenthesis", e)
	}
	fn := strings.ToLower(strings.TrimSpace(s[:open]))
	args := strings.Split(s[open+1:len(s)-1], ",")
	for i := range args {
		args[i] = strings.TrimSpace(args[i])
	}
	one := func() (string, error) {
		if len(args) != 1 || args[0] == "" {
			return "", fmt.Errorf("lakehouse: partition %q: %s takes one column", e, fn)
		}
		return args[0], nil
	}
	widthCol := func() (int, string, error) {
		if len(args) != 2 {
			return 0, "", fmt.Errorf("lakehouse: partition %q: %s takes (width, column)", e, fn)
		}
		n, err := strconv.Atoi(args[0])
		if err != nil || n <= 0 {
			return 0, "", fmt.Errorf("lakehouse: partition %q: width %q is not a positive integer", e, args[0])
		}
		return n, args[1], nil
	}
	switch fn {
	case "identity":
		col, err = one()
		return col, iceberg.IdentityTransform{}, "", err
	case "years", "year":
		col, err = one()
		return col, iceberg.YearTransform{}, "year", err
	case "months", "month":
		col, err = one()
		return col, iceberg.MonthTransform{}, "month", err
	case "days", "day", "date":
		col, err = one()
		return col, iceberg.DayTransform{}, "day", err
	case "hours", "hour", "date_hour":
		col, err = one()
		return col, iceberg.HourTransform{}, "hour", err
	case "bucket":
		n, c, err := widthCol()
		return c, iceberg.BucketTransform{NumBuckets: n}, "bucket", err
	case "truncate":
		n, c, err := widthCol()
		return c, iceberg.TruncateTransform{Width: n}, "trunc", err
	}
	return "", nil, "", fmt.Errorf("lakehouse: partition %q: unknown transform %q: use identity, years, months, days, hours, bucket(n, col) or truncate(n, col)", e, fn)
}
