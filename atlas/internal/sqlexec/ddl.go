package sqlexec

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

func createTable(ctx context.Context, s Session, st *parser.CreateTable) (plan.Node, error) {
	if st.Provider != "" && !strings.EqualFold(st.Provider, "iceberg") {
		return nil, errAtNode(st, "USING %s is not supported: Atlas tables are Apache Iceberg tables; write USING iceberg or leave USING out", st.Provider)
	}
	name := sql.TableName(st.Name)
	var schema *arrow.Schema
	var rows []arrow.RecordBatch
	if st.AsSelect != nil {
		n, err := sql.PlanSelect(st.AsSelect, relations(ctx, s))
		if err != nil {
			return nil, err
		}
		if schema, rows, err = exec.Collect(ctx, n); err != nil {
			return nil, fmt.Errorf("create table %s as select: %w", name, err)
		}
		defer releaseAll(rows)
	} else {
		var err error
		if schema, err = sql.TableSchema(st.Columns); err != nil {
			return nil, err
		}
	}
	parts, err := sql.PartitionBy(st.Partitioning, schema)
	if err != nil {
		return nil, err
	}
	props := map[string]string{}
	for _, p := range st.Properties {
		props[p.Key] = p.Value
	}
	if st.Comment != "" {
		props["comment"] = st.Comment
	}
	if err := s.CheckPath(st.Location); err != nil {
		return nil, errAtNode(st.Name, "LOCATION: %v", err)
	}
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	if st.OrReplace {
		if err := lh.DropTable(ctx, name, false); err != nil && !errors.Is(err, lakehouse.ErrNoSuchTable) {
			return nil, err
		}
	}
	opts := lakehouse.CreateOptions{IfNotExists: st.IfNotExists, PartitionBy: parts, Properties: props, Location: st.Location}
	tbl, err := lh.CreateTable(ctx, name, schema, opts)
	if err != nil {
		if errors.Is(err, lakehouse.ErrTableExists) {
			return nil, errAtNode(st.Name, "table %s already exists; write CREATE TABLE IF NOT EXISTS to keep it, or CREATE OR REPLACE TABLE to replace it", name)
		}
		return nil, atName(st.Name, name, err)
	}
	if st.AsSelect != nil && len(rows) > 0 {
		if _, err := tbl.AppendBatch(ctx, rows, s.NextWrite("create table as select")); err != nil {
			return nil, err
		}
	}
	return emptyScan("create table"), nil
}

func dropTable(ctx context.Context, s Session, st *parser.DropTable) (plan.Node, error) {
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	name := sql.TableName(st.Name)
	if err := lh.DropTable(ctx, name, st.Purge); err != nil {
		if errors.Is(err, lakehouse.ErrNoSuchTable) {
			if st.IfExists {
				return emptyScan("drop table"), nil
			}
			return nil, errAtNode(st.Name, "table %s does not exist (write DROP TABLE IF EXISTS to ignore that)", name)
		}
		return nil, atName(st.Name, name, err)
	}
	return emptyScan("drop table"), nil
}

// namespaceOf returns the namespace a parsed name designates, without the
// catalog name when it leads (lakehouse.silver -> silver).
func namespaceOf(lh *lakehouse.Lakehouse, n *parser.Name) string {
	parts := n.Parts
	if len(parts) > 1 && strings.EqualFold(parts[0], lh.Config().Name) {
		parts = parts[1:]
	}
	return strings.Join(parts, ".")
}

// lookupNamespace returns the session's lakehouse, the namespace name
// designates and whether it exists.
func lookupNamespace(ctx context.Context, s Session, name *parser.Name) (lh *lakehouse.Lakehouse, ns string, exists bool, err error) {
	if lh, err = s.Lakehouse(ctx); err != nil {
		return nil, "", false, err
	}
	ns = namespaceOf(lh, name)
	existing, err := lh.ListNamespaces(ctx)
	if err != nil {
		return nil, "", false, err
	}
	return lh, ns, slices.Contains(existing, ns), nil
}

func createNamespace(ctx context.Context, s Session, st *parser.CreateNamespace) (plan.Node, error) {
	lh, ns, exists, err := lookupNamespace(ctx, s, st.Name)
	if err != nil {
		return nil, err
	}
	if exists && !st.IfNotExists {
		return nil, errAtNode(st.Name, "namespace %s already exists (write CREATE NAMESPACE IF NOT EXISTS to ignore that)", ns)
	}
	if err := lh.EnsureNamespaces(ctx, ns); err != nil {
		return nil, err
	}
	return emptyScan("create namespace"), nil
}

func dropNamespace(ctx context.Context, s Session, st *parser.DropNamespace) (plan.Node, error) {
	lh, ns, exists, err := lookupNamespace(ctx, s, st.Name)
	if err != nil {
		return nil, err
	}
	if !exists {
		if st.IfExists {
			return emptyScan("drop namespace"), nil
		}
		return nil, errAtNode(st.Name, "namespace %s does not exist", ns)
	}
	tables, err := lh.ListTables(ctx, ns)
	if err != nil {
		return nil, err
	}
	if len(tables) > 0 && !st.Cascade {
		return nil, errAtNode(st.Name, "namespace %s holds %d tables (%s); drop them first or write DROP NAMESPACE %s CASCADE", ns, len(tables), strings.Join(tables, ", "), ns)
	}
	for _, t := range tables {
		if err := lh.DropTable(ctx, t, false); err != nil {
			return nil, err
		}
	}
	if err := lh.Catalog().DropNamespace(ctx, table.Identifier(strings.Split(ns, "."))); err != nil {
		return nil, fmt.Errorf("drop namespace %s: %w", ns, err)
	}
	return emptyScan("drop namespace"), nil
}

// likePattern compiles Spark's SHOW ... LIKE pattern: * matches anything,
// | separates alternatives, case-insensitive.
func likePattern(p string) *regexp.Regexp {
	if p == "" {
		return nil
	}
	alts := strings.Split(p, "|")
	for i, a := range alts {
		alts[i] = strings.ReplaceAll(regexp.QuoteMeta(strings.TrimSpace(a)), `\*`, ".*")
	}
	return regexp.MustCompile("(?i)^(" + strings.Join(alts, "|") + ")$")
}

func showTables(ctx context.Context, s Session, st *parser.ShowTables) (plan.Node, error) {
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	var namespaces []string
	if st.Namespace != nil {
		namespaces = []string{namespaceOf(lh, st.Namespace)}
	} else if namespaces, err = lh.ListNamespaces(ctx); err != nil {
		return nil, err
	}
	like := likePattern(st.Pattern)
	var rows [][]any
	for _, ns := range namespaces {
		tables, err := lh.ListTables(ctx, ns)
		if err != nil {
			if errors.Is(err, catalog.ErrNoSuchNamespace) {
				return nil, errAtNode(st, "%v", err)
			}
			return nil, fmt.Errorf("namespace %s: %w", ns, err)
		}
		for _, t := range tables {
			name := t[strings.LastIndexByte(t, '.')+1:]
			if like == nil || like.MatchString(name) {
				rows = append(rows, []any{ns, name, false})
			}
		}
	}
	views := s.TempViews()
	slices.Sort(views)
	for _, v := range views {
		if like == nil || like.MatchString(v) {
			rows = append(rows, []any{"", v, true})
		}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "namespace", Type: arrow.BinaryTypes.String},
		{Name: "tableName", Type: arrow.BinaryTypes.String},
		{Name: "isTemporary", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	return rowsScan("show tables", schema, rows)
}

func showNamespaces(ctx context.Context, s Session, st *parser.ShowNamespaces) (plan.Node, error) {
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	all, err := lh.ListNamespaces(ctx)
	if err != nil {
		return nil, err
	}
	like := likePattern(st.Pattern)
	var rows [][]any
	for _, ns := range all {
		if like == nil || like.MatchString(ns) {
			rows = append(rows, []any{ns})
		}
	}
	schema := arrow.NewSchema([]arrow.Field{{Name: "namespace", Type: arrow.BinaryTypes.String}}, nil)
	return rowsScan("show namespaces", schema, rows)
}

func describe(ctx context.Context, s Session, st *parser.Describe) (plan.Node, error) {
	name := sql.TableName(st.Name)
	if st.Kind == parser.DescribeHistory {
		return describeHistory(ctx, s, st, name)
	}
	n, err := s.Table(ctx, name)
	if err != nil {
		return nil, atName(st.Name, name, err)
	}
	var rows [][]any
	for _, f := range n.Schema().Fields() {
		var comment any
		if f.HasMetadata() {
			if i := f.Metadata.FindKey("comment"); i >= 0 {
				comment = f.Metadata.Values()[i]
			}
		}
		rows = append(rows, []any{f.Name, types.SQLName(f.Type), comment})
	}
	if strings.Contains(name, ".") {
		if lh, err := s.Lakehouse(ctx); err == nil {
			if tbl, err := lh.LoadTable(ctx, name); err == nil {
				spec := tbl.Iceberg().Spec()
				if spec.NumFields() > 0 {
					rows = append(rows, []any{"", "", nil}, []any{"# Partitioning", "", nil})
					for i := range spec.NumFields() {
						f := spec.Field(i)
						col := f.Name
						if sc, ok := tbl.Iceberg().Schema().FindColumnName(f.SourceID()); ok {
							col = sc
						}
						rows = append(rows, []any{fmt.Sprintf("Part %d", i), partitionText(f.Transform.String(), col), nil})
					}
				}
			}
		}
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "col_name", Type: arrow.BinaryTypes.String},
		{Name: "data_type", Type: arrow.BinaryTypes.String},
		{Name: "comment", Type: arrow.BinaryTypes.String, Nullable: true},
	}, nil)
	return rowsScan("describe", schema, rows)
}

func describeHistory(ctx context.Context, s Session, st *parser.Describe, name string) (plan.Node, error) {
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	tbl, err := lh.LoadTable(ctx, name)
	if err != nil {
		return nil, atName(st.Name, name, err)
	}
	var rows [][]any
	for _, sn := range tbl.Snapshots() {
		var parent, batch any
		if sn.ParentID != 0 {
			parent = sn.ParentID
		}
		if b, ok := sn.BatchID(); ok {
			batch = b
		}
		var q any
		if sn.QueryID() != "" {
			q = sn.QueryID()
		}
		rows = append(rows, []any{sn.ID, parent, time.UnixMilli(sn.TimestampMs).UTC(), sn.Operation, q, batch, sn.Current})
	}
	schema := arrow.NewSchema([]arrow.Field{
		{Name: "snapshot_id", Type: arrow.PrimitiveTypes.Int64},
		{Name: "parent_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "committed_at", Type: types.Timestamp},
		{Name: "operation", Type: arrow.BinaryTypes.String},
		{Name: "query_id", Type: arrow.BinaryTypes.String, Nullable: true},
		{Name: "batch_id", Type: arrow.PrimitiveTypes.Int64, Nullable: true},
		{Name: "is_current", Type: arrow.FixedWidthTypes.Boolean},
	}, nil)
	return rowsScan("describe history", schema, rows)
}

// partitionText renders a partition field as Spark's DESCRIBE does:
// col for identity, days(col), bucket(16, col).
func partitionText(transform, col string) string {
	switch {
	case transform == "identity":
		return col
	case strings.HasPrefix(transform, "bucket[") || strings.HasPrefix(transform, "truncate["):
		open := strings.IndexByte(transform, '[')
		return transform[:open] + "(" + strings.TrimSuffix(transform[open+1:], "]") + ", " + col + ")"
	}
	return transform + "(" + col + ")"
}
