package atlas_test

import (
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas"
)

// TestDescribeSummaryMatchPySparkDocs runs the example of PySpark's
// DataFrame.describe and DataFrame.summary docstrings (python/pyspark/sql/
// dataframe.py, Spark 4.0, which prints NULL; 3.5 printed null) and
// compares Show's text with the documented tables.
func TestDescribeSummaryMatchPySparkDocs(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	for _, q := range []string{
		"CREATE NAMESPACE IF NOT EXISTS lakehouse.doc",
		"CREATE TABLE lakehouse.doc.people (name string, age bigint, weight double, height double) USING iceberg",
		"INSERT INTO lakehouse.doc.people VALUES ('Bob', 13, 40.3, 150.5), ('Alice', 12, 37.8, 142.3), ('Tom', 11, 44.1, 142.2)",
	} {
		if _, err := spark.SQL(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	df := spark.Table("lakehouse.doc.people")
	showText := func(d *atlas.DataFrame) string {
		t.Helper()
		s, err := d.ShowString(t.Context(), 20, 20, false)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, c := range []struct {
		name string
		df   *atlas.DataFrame
		want string
	}{
		{"describe(['age'])", df.Describe("age"), `+-------+----+
|summary| age|
+-------+----+
|  count|   3|
|   mean|12.0|
| stddev| 1.0|
|    min|  11|
|    max|  13|
+-------+----+
`},
		// The docstring's weight column is left out: its stddev's last
		// digits (3.1722757341273704) depend on how Spark partitioned the
		// three rows (see the report); every other value is exact.
		{"describe(['age', 'height'])", df.Describe("age", "height"), `+-------+----+-----------------+
|summary| age|           height|
+-------+----+-----------------+
|  count|   3|                3|
|   mean|12.0|            145.0|
| stddev| 1.0|4.763402145525822|
|    min|  11|            142.2|
|    max|  13|            150.5|
+-------+----+-----------------+
`},
		{"select(name, age, height).summary()", df.Select("name", "age", "height").Summary(), `+-------+-----+----+-----------------+
|summary| name| age|           height|
+-------+-----+----+-----------------+
|  count|    3|   3|                3|
|   mean| NULL|12.0|            145.0|
| stddev| NULL| 1.0|4.763402145525822|
|    min|Alice|  11|            142.2|
|    25%| NULL|  11|            142.2|
|    50%| NULL|  12|            142.3|
|    75%| NULL|  13|            150.5|
|    max|  Tom|  13|            150.5|
+-------+-----+----+-----------------+
`},
		// Spark's CentralMomentAgg update over the three weights in one
		// partition gives 3.172275734127371 (the docstring's
		// 3.1722757341273704 is three one-row partitions merged).
		{"describe(['weight'])", df.Describe("weight"), `+-------+-----------------+
|summary|           weight|
+-------+-----------------+
|  count|                3|
|   mean|40.73333333333333|
| stddev|3.172275734127371|
|    min|             37.8|
|    max|             44.1|
+-------+-----------------+
`},
		{"summary('count', 'min', 'max')", df.Select("name", "weight").Summary("count", "min", "max"), `+-------+-----+------+
|summary| name|weight|
+-------+-----+------+
|  count|    3|     3|
|    min|Alice|  37.8|
|    max|  Tom|  44.1|
+-------+-----+------+
`},
	} {
		if got := showText(c.df); got != c.want {
			t.Errorf("%s:\n got\n%s\nwant\n%s", c.name, got, c.want)
		}
	}
}

// TestDescribeRefusesBadArguments: an unknown column or statistic fails
// when the DataFrame is built, naming it.
func TestDescribeRefusesBadArguments(t *testing.T) {
	addr, _ := realServer(t)
	spark := connect(t, addr)
	seedSales(t, spark)
	df := spark.Table("lakehouse.shop.sales")
	if err := df.Describe("nope").Err(); err == nil || !strings.Contains(err.Error(), `no column "nope"`) {
		t.Errorf("describe(nope): %v", err)
	}
	if err := df.Summary("median").Err(); err == nil || !strings.Contains(err.Error(), `statistic "median"`) {
		t.Errorf("summary(median): %v", err)
	}
}
