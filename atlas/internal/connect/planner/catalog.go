package planner

import (
	"context"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// catalog plans spark.catalog.*: each answer is a DataFrame, as Spark
// Connect's server sends it (one row, one column for a single value).
func (p *Planner) catalog(ctx context.Context, c *pb.Catalog) (*engine.DataFrame, error) {
	cat := p.Session.Catalog()
	one := func(v any, err error) (*engine.DataFrame, error) {
		if err != nil {
			return nil, err
		}
		return cat.Answer(v), nil
	}
	switch x := c.GetCatType().(type) {
	case *pb.Catalog_CurrentCatalog:
		return cat.Answer(cat.CurrentCatalog()), nil
	case *pb.Catalog_CurrentDatabase:
		return cat.Answer(cat.CurrentDatabase()), nil
	case *pb.Catalog_ListCatalogs:
		return p.Session.SQLContext(ctx, "SELECT '"+cat.CurrentCatalog()+"' AS name, CAST(NULL AS STRING) AS description")
	case *pb.Catalog_ListDatabases:
		return cat.ListDatabases(ctx, x.ListDatabases.GetPattern()), nil
	case *pb.Catalog_DatabaseExists:
		return one(cat.DatabaseExists(ctx, x.DatabaseExists.GetDbName()))
	case *pb.Catalog_ListTables:
		return cat.ListTables(ctx, x.ListTables.GetDbName(), x.ListTables.GetPattern()), nil
	case *pb.Catalog_TableExists:
		return one(cat.TableExists(ctx, x.TableExists.GetTableName(), x.TableExists.GetDbName()))
	case *pb.Catalog_ListColumns:
		return cat.ListColumns(ctx, x.ListColumns.GetTableName(), x.ListColumns.GetDbName()), nil
	case *pb.Catalog_DropTempView:
		return cat.Answer(p.Session.DropTempView(x.DropTempView.GetViewName())), nil
	case *pb.Catalog_DropGlobalTempView:
		return cat.Answer(p.Session.DropGlobalTempView(x.DropGlobalTempView.GetViewName())), nil
	case *pb.Catalog_IsCached:
		return cat.Answer(false), nil
	case *pb.Catalog_ClearCache, *pb.Catalog_RefreshTable, *pb.Catalog_RefreshByPath, *pb.Catalog_UncacheTable:
		return cat.Answer(nil), nil // nothing is cached: tables are read at their current snapshot
	}
	return nil, unsupported("catalog."+OneofName(c.ProtoReflect(), "cat_type"), "list and look up tables and databases, or use SQL")
}
