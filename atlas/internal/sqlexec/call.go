package sqlexec

import (
	"context"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// procedure is one of Iceberg's Spark procedures Atlas runs through CALL:
// its parameters in positional order and what it does with their values.
type procedure struct {
	params []string
	run    func(ctx context.Context, s Session, st *parser.CallProcedure, args map[string]*parser.Literal) (plan.Node, error)
}

// procedures are the CALL <catalog>.system.<name> procedures.
var procedures = map[string]procedure{
	// rewrite_data_files bin-packs small files (lakehouse.Table.Compact).
	// target_rows is Atlas's own: rows per written file.
	"rewrite_data_files": {params: []string{"table", "target_rows"}, run: callRewriteDataFiles},
	// expire_snapshots removes old snapshots (lakehouse.Table.ExpireSnapshots).
	"expire_snapshots": {params: []string{"table", "older_than", "retain_last"}, run: callExpireSnapshots},
	// remove_orphan_files deletes files no snapshot references
	// (lakehouse.Table.RemoveOrphanFiles).
	"remove_orphan_files": {params: []string{"table", "older_than", "location", "dry_run"}, run: callRemoveOrphanFiles},
}

// call runs CALL [catalog.]system.procedure(args), as Iceberg's
// procedures in Spark SQL do.
func call(ctx context.Context, s Session, st *parser.CallProcedure) (plan.Node, error) {
	parts := st.Procedure.Parts
	names := make([]string, 0, len(procedures))
	for n := range procedures {
		names = append(names, n)
	}
	sort.Strings(names)
	name := strings.ToLower(parts[len(parts)-1])
	p, ok := procedures[name]
	if !ok || len(parts) < 2 || !strings.EqualFold(parts[len(parts)-2], "system") || len(parts) > 3 {
		return nil, errAtNode(st, "unknown procedure %s: Atlas runs CALL lakehouse.system.<procedure> with %s", st.Procedure, strings.Join(names, ", "))
	}
	args := map[string]*parser.Literal{}
	for i, a := range st.Args {
		key := strings.ToLower(a.Name)
		if key == "" {
			if i >= len(p.params) {
				return nil, errAtNode(st, "%s takes at most %d arguments (%s)", name, len(p.params), strings.Join(p.params, ", "))
			}
			key = p.params[i]
		}
		if !slices.Contains(p.params, key) {
			return nil, errAtNode(st, "%s has no argument %q; its arguments: %s", name, a.Name, strings.Join(p.params, ", "))
		}
		lit, ok := a.Value.(*parser.Literal)
		if !ok {
			return nil, errAtNode(st, "argument %s of %s must be a literal, got %s", key, name, a.Value.SQL())
		}
		args[key] = lit
	}
	if args["table"] == nil || args["table"].Kind != parser.StringLiteral {
		return nil, errAtNode(st, "%s needs the table as a string: CALL lakehouse.system.%s(table => 'gold.event_windows')", name, name)
	}
	return p.run(ctx, s, st, args)
}

// callTable loads the table named by the table argument (relative to the
// catalog, as in Spark, or fully qualified).
func callTable(ctx context.Context, s Session, table string) (*lakehouse.Table, error) {
	lh, err := s.Lakehouse(ctx)
	if err != nil {
		return nil, err
	}
	name := table
	if !strings.HasPrefix(strings.ToLower(name), lakehouse.DefaultCatalogName+".") {
		name = lakehouse.DefaultCatalogName + "." + name
	}
	return lh.LoadTable(ctx, name)
}

// intArg returns an integer argument, or def when absent.
func intArg(st *parser.CallProcedure, args map[string]*parser.Literal, key string, def int64) (int64, error) {
	lit := args[key]
	if lit == nil {
		return def, nil
	}
	if v, ok := lit.Value.(int64); ok {
		return v, nil
	}
	return 0, errAtNode(st, "argument %s must be an integer, got %s", key, lit.SQL())
}

func callRewriteDataFiles(ctx context.Context, s Session, st *parser.CallProcedure, args map[string]*parser.Literal) (plan.Node, error) {
	target, err := intArg(st, args, "target_rows", lakehouse.DefaultCompactRows)
	if err != nil {
		return nil, err
	}
	tbl, err := callTable(ctx, s, args["table"].Value.(string))
	if err != nil {
		return nil, err
	}
	res, err := tbl.Compact(ctx, target)
	if err != nil {
		return nil, err
	}
	return int64Scan("rewrite_data_files",
		[]string{"rewritten_data_files_count", "added_data_files_count", "rewritten_bytes_count", "failed_data_files_count"},
		[]int64{int64(res.FilesRemoved), int64(res.FilesAdded), res.Bytes, 0}, nil), nil
}

func callExpireSnapshots(ctx context.Context, s Session, st *parser.CallProcedure, args map[string]*parser.Literal) (plan.Node, error) {
	olderThan := 5 * 24 * time.Hour // Iceberg's default: 5 days
	if lit := args["older_than"]; lit != nil {
		t, ok := lit.Value.(time.Time)
		if !ok || lit.Kind != parser.TimestampLiteral {
			return nil, errAtNode(st, "older_than must be a timestamp: older_than => TIMESTAMP '2026-11-30 00:00:00'")
		}
		olderThan = max(0, time.Since(t))
	}
	retain, err := intArg(st, args, "retain_last", 1)
	if err != nil {
		return nil, err
	}
	tbl, err := callTable(ctx, s, args["table"].Value.(string))
	if err != nil {
		return nil, err
	}
	n, err := tbl.ExpireSnapshots(ctx, olderThan, int(retain))
	if err != nil {
		return nil, err
	}
	return int64Scan("expire_snapshots", []string{"expired_snapshots_count"}, []int64{int64(n)}, nil), nil
}

// defaultOrphanAge is remove_orphan_files' default bound, Iceberg's: files
// younger than 3 days are kept.
const defaultOrphanAge = 3 * 24 * time.Hour

func callRemoveOrphanFiles(ctx context.Context, s Session, st *parser.CallProcedure, args map[string]*parser.Literal) (plan.Node, error) {
	olderThan := time.Now().Add(-defaultOrphanAge)
	if lit := args["older_than"]; lit != nil {
		t, ok := lit.Value.(time.Time)
		if !ok || lit.Kind != parser.TimestampLiteral {
			return nil, errAtNode(st, "older_than must be a timestamp: older_than => TIMESTAMP '2026-11-30 00:00:00'")
		}
		olderThan = t
	}
	if args["location"] != nil {
		return nil, errAtNode(st, "remove_orphan_files: location is not supported; Atlas lists the whole table location")
	}
	dryRun := false
	if lit := args["dry_run"]; lit != nil {
		b, ok := lit.Value.(bool)
		if !ok || lit.Kind != parser.BoolLiteral {
			return nil, errAtNode(st, "dry_run must be true or false, got %s", lit.SQL())
		}
		dryRun = b
	}
	tbl, err := callTable(ctx, s, args["table"].Value.(string))
	if err != nil {
		return nil, err
	}
	res, err := tbl.RemoveOrphanFiles(ctx, olderThan, dryRun)
	if err != nil {
		return nil, err
	}
	return stringScan("remove_orphan_files", "orphan_file_location", res.Locations), nil
}

// stringScan is a batch of one string column.
func stringScan(name, column string, vals []string) plan.Node {
	b := array.NewStringBuilder(expr.NewCtx(nil).Mem)
	defer b.Release()
	b.AppendValues(vals, nil)
	col := b.NewArray()
	defer col.Release()
	schema := arrow.NewSchema([]arrow.Field{{Name: column, Type: arrow.BinaryTypes.String}}, nil)
	rec := array.NewRecordBatch(schema, []arrow.Array{col}, int64(len(vals)))
	return &plan.LocalScan{Name: name, Out: schema, Records: []arrow.RecordBatch{rec}}
}
