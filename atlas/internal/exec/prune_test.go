package exec

import (
	"fmt"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/internal/source/kafka"
)

// TestReadColumnsOfFirstProjection checks which Kafka columns the source
// is told a query reads, for plans whose answer is known by reading them:
// only the first projection's references count, a star or anything else
// first keeps every column.
func TestReadColumnsOfFirstProjection(t *testing.T) {
	scan, err := plan.NewStreamScan("kafka", func() (source.Source, error) {
		// New does not contact the broker.
		return kafka.New(map[string]string{"kafka.bootstrap.servers": "127.0.0.1:1", "subscribe": "events"})
	})
	if err != nil {
		t.Fatal(err)
	}
	cast := func(col string) expr.Expr { return &expr.Cast{X: expr.Col(col), TypeName: "string"} }
	project := func(in plan.Node, es ...expr.Expr) plan.Node {
		p, err := plan.NewProject(in, es)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	filter := func(in plan.Node, cond expr.Expr) plan.Node {
		f, err := plan.NewFilter(in, cond)
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	// Columns: key, value, topic, partition, offset, timestamp, timestampType.
	for _, tc := range []struct {
		name string
		root plan.Node
		want string // the columns read, "all" for nil
	}{
		{"events scenario", project(project(scan, &expr.Alias{Expr: cast("value"), Name: "json"}), expr.Col("json")), "[value]"},
		{"key and value", project(scan, cast("key"), cast("value")), "[key value]"},
		{"metadata columns", project(scan, expr.Col("topic"), expr.Bin("+", expr.Col("partition"), expr.Col("offset")), expr.Col("timestamp"), expr.Col("timestampType")), "[topic partition offset timestamp timestampType]"},
		{"case-insensitive name", project(scan, expr.Col("VALUE")), "[value]"},
		{"star", project(scan, &expr.Star{}), "[key value topic partition offset timestamp timestampType]"},
		{"star and one more", project(scan, &expr.Star{}, cast("key")), "[key value topic partition offset timestamp timestampType]"},
		{"through an alias", project(plan.NewSubqueryAlias(scan, "k"), expr.Col("k.timestamp"), cast("k.value")), "[value timestamp]"},
		{"filter first", project(filter(scan, expr.Bin("=", expr.Col("partition"), expr.Col("partition"))), cast("value")), "all"},
		{"no projection", scan, "all"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			shape, err := plan.Analyze(tc.root)
			if err != nil {
				t.Fatal(err)
			}
			read := readColumns(shape)
			got := "all"
			if read != nil {
				var names []string
				for i, r := range read {
					if r {
						names = append(names, scan.Out.Field(i).Name)
					}
				}
				got = fmt.Sprint(names)
			}
			if got != tc.want {
				t.Errorf("columns read: %s, want %s", got, tc.want)
			}
		})
	}
}
