package sql

import (
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// TableSchema converts the column list of CREATE TABLE to an Arrow schema:
// types by their Spark names (types.FromName), NOT NULL as a non-nullable
// field, COMMENT kept as the field metadata key "comment". Errors point at
// the offending column.
func TableSchema(cols []*parser.ColumnDef) (*arrow.Schema, error) {
	fields := make([]arrow.Field, 0, len(cols))
	seen := map[string]bool{}
	for _, c := range cols {
		t, err := types.FromName(c.Type)
		if err != nil {
			return nil, errAt(c, "column %s: %v", c.Name, err)
		}
		key := strings.ToLower(c.Name)
		if seen[key] {
			return nil, errAt(c, "column %s is defined twice", c.Name)
		}
		seen[key] = true
		f := arrow.Field{Name: c.Name, Type: t, Nullable: !c.NotNull}
		if c.Comment != "" {
			f.Metadata = arrow.NewMetadata([]string{"comment"}, []string{c.Comment})
		}
		fields = append(fields, f)
	}
	return arrow.NewSchema(fields, nil), nil
}

// PartitionBy renders PARTITIONED BY fields as the partition expressions
// lakehouse.CreateOptions takes (col, days(col), bucket(16, col), ...),
// checking that each names a column of schema.
func PartitionBy(fields []*parser.PartitionField, schema *arrow.Schema) ([]string, error) {
	out := make([]string, len(fields))
	for i, f := range fields {
		found := false
		for _, c := range schema.Fields() {
			if strings.EqualFold(c.Name, f.Column) {
				found = true
				break
			}
		}
		if !found {
			return nil, errAt(f, "PARTITIONED BY: no column %s in the table", f.Column)
		}
		out[i] = f.String()
	}
	return out, nil
}

// TableName renders a parsed table name for the lakehouse package
// (lakehouse.silver.orders), backticks kept where a part needs them.
func TableName(n *parser.Name) string { return n.String() }
