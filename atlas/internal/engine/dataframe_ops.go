package engine

import (
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// ToDF renames every column, by position, as DataFrame.toDF(*cols); the
// official clients send it after every createDataFrame.
func (df *DataFrame) ToDF(names ...string) *DataFrame {
	if df.failed() {
		return df
	}
	fields := df.node.Schema().Fields()
	if len(names) != len(fields) {
		old := make([]string, len(fields))
		for i, f := range fields {
			old[i] = f.Name
		}
		return df.with(nil, &sparkerr.Error{Class: "NUM_COLUMNS_MISMATCH", Message: fmt.Sprintf(
			"toDF: the number of columns doesn't match: old column names (%d): %s; new column names (%d): %s",
			len(fields), strings.Join(old, ", "), len(names), strings.Join(names, ", "))})
	}
	items := make([]any, len(fields))
	for i, f := range fields {
		items[i] = colAt(f.Name, i).Alias(names[i])
	}
	return df.Select(items...)
}

// UnionByName is DataFrame.unionByName(other, allowMissingColumns): the
// rows of df, then those of other, matched by column name (compared
// case-insensitively, as Spark does by default). Without
// allowMissingColumns both must have the same set of columns; with it, a
// column one side lacks is null there, and the other's extra columns come
// last.
func (df *DataFrame) UnionByName(other *DataFrame, allowMissingColumns bool) *DataFrame {
	if df.failed() {
		return df
	}
	if other.failed() {
		return df.with(nil, fmt.Errorf("unionByName: %w", other.Err()))
	}
	left, right := df.node.Schema().Fields(), other.node.Schema().Fields()
	rightAt := map[string]int{}
	for i, f := range right {
		rightAt[strings.ToLower(f.Name)] = i
	}
	leftAt := map[string]int{}
	for i, f := range left {
		leftAt[strings.ToLower(f.Name)] = i
	}
	if !allowMissingColumns && len(left) != len(right) {
		return df.with(nil, &sparkerr.Error{Class: "NUM_COLUMNS_MISMATCH", Message: fmt.Sprintf(
			"unionByName can only be performed on inputs with the same number of columns, but the first input has %d columns and the second input has %d columns", len(left), len(right))})
	}
	var lcols, rcols []any
	for i, f := range left {
		lcols = append(lcols, colAt(f.Name, i))
		j, ok := rightAt[strings.ToLower(f.Name)]
		switch {
		case ok:
			rcols = append(rcols, colAt(right[j].Name, j))
		case allowMissingColumns:
			rcols = append(rcols, nullOf(f.Type).Alias(f.Name))
		default:
			return df.with(nil, unresolvedColumn(f.Name, fieldNames(right)))
		}
	}
	if allowMissingColumns {
		for j, f := range right {
			if _, ok := leftAt[strings.ToLower(f.Name)]; ok {
				continue
			}
			lcols = append(lcols, nullOf(f.Type).Alias(f.Name))
			rcols = append(rcols, colAt(f.Name, j))
		}
	}
	return df.Select(lcols...).Union(other.Select(rcols...))
}

// Repartition is accepted and changes nothing: Atlas runs on one machine,
// and the partitioning of a batch DataFrame is not visible in its rows.
func (df *DataFrame) Repartition(int) *DataFrame { return df }

// Coalesce is Repartition.
func (df *DataFrame) Coalesce(n int) *DataFrame { return df.Repartition(n) }

// nullOf is a null of type t.
func nullOf(t arrow.DataType) Column {
	return newCol(&expr.Cast{X: expr.Lit(nil), TypeName: types.SQLName(t)})
}

// unresolvedColumn is Spark's UNRESOLVED_COLUMN.WITH_SUGGESTION for a name
// that is none of the columns have.
func unresolvedColumn(name string, have []string) error {
	quoted := make([]string, len(have))
	for i, h := range have {
		quoted[i] = "`" + h + "`"
	}
	proposal := strings.Join(quoted, ", ")
	return sparkerr.WithParams("UNRESOLVED_COLUMN.WITH_SUGGESTION",
		map[string]string{"objectName": "`" + name + "`", "proposal": proposal},
		"A column, variable, or function parameter with name `%s` cannot be resolved. Did you mean one of the following? [%s].", name, proposal)
}

// fieldNames lists the names of fields.
func fieldNames(fields []arrow.Field) []string {
	out := make([]string, len(fields))
	for i, f := range fields {
		out[i] = f.Name
	}
	return out
}
