package server

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// writeOperation is df.write...save(path) / saveAsTable / insertInto
// (Spark Connect's WriteOperation).
func (s *service) writeOperation(ctx context.Context, sess *session, w *pb.WriteOperation) error {
	if len(w.GetPartitioningColumns()) > 0 || w.GetBucketBy() != nil || len(w.GetSortColumnNames()) > 0 || len(w.GetClusteringColumns()) > 0 {
		return &planner.UnsupportedError{What: "partitionBy, bucketBy, sortBy and clusterBy on a batch write", Hint: "write without them; Atlas's tables are unpartitioned"}
	}
	df, err := sess.planner.Relation(ctx, w.GetInput())
	if err != nil {
		return err
	}
	wr := df.Write().Format(w.GetSource()).Mode(saveMode(w.GetMode())).Options(w.GetOptions())
	switch t := w.GetSaveType().(type) {
	case *pb.WriteOperation_Path:
		return wr.Save(ctx, t.Path)
	case *pb.WriteOperation_Table:
		switch t.Table.GetSaveMethod() {
		case pb.WriteOperation_SaveTable_TABLE_SAVE_METHOD_INSERT_INTO:
			return wr.InsertInto(ctx, t.Table.GetTableName())
		default:
			return wr.SaveAsTable(ctx, t.Table.GetTableName())
		}
	}
	if p := w.GetOptions()["path"]; p != "" {
		return wr.Save(ctx, p)
	}
	return invalidArgument(fmt.Errorf("write: neither a path nor a table is set"))
}

func saveMode(m pb.WriteOperation_SaveMode) string {
	switch m {
	case pb.WriteOperation_SAVE_MODE_APPEND:
		return "append"
	case pb.WriteOperation_SAVE_MODE_OVERWRITE:
		return "overwrite"
	case pb.WriteOperation_SAVE_MODE_IGNORE:
		return "ignore"
	}
	return "errorifexists"
}

// writeOperationV2 is df.writeTo(table).create/append/replace/
// createOrReplace/overwrite (Spark Connect's WriteOperationV2).
func (s *service) writeOperationV2(ctx context.Context, sess *session, w *pb.WriteOperationV2) error {
	if len(w.GetPartitioningColumns()) > 0 || len(w.GetClusteringColumns()) > 0 || len(w.GetTableProperties()) > 0 {
		return &planner.UnsupportedError{What: "partitionedBy, clusterBy and tableProperty on writeTo", Hint: "create the table with SQL, then append to it"}
	}
	if p := w.GetProvider(); p != "" && p != "iceberg" {
		return &planner.UnsupportedError{What: "writeTo using " + p, Hint: "lakehouse tables are Iceberg tables"}
	}
	df, err := sess.planner.Relation(ctx, w.GetInput())
	if err != nil {
		return err
	}
	name := w.GetTableName()
	wr := df.Write().Options(w.GetOptions())
	switch w.GetMode() {
	case pb.WriteOperationV2_MODE_CREATE:
		return wr.Mode("errorifexists").SaveAsTable(ctx, name)
	case pb.WriteOperationV2_MODE_APPEND:
		return wr.Mode("append").InsertInto(ctx, name)
	case pb.WriteOperationV2_MODE_CREATE_OR_REPLACE:
		return wr.Mode("overwrite").SaveAsTable(ctx, name)
	case pb.WriteOperationV2_MODE_REPLACE:
		if ok, err := sess.engine.Catalog().TableExists(ctx, name, ""); err != nil || !ok {
			return firstErr(err, tableNotFound(name))
		}
		return wr.Mode("overwrite").SaveAsTable(ctx, name)
	case pb.WriteOperationV2_MODE_OVERWRITE:
		if c := w.GetOverwriteCondition(); c != nil && !isTrue(c) {
			return &planner.UnsupportedError{What: "overwrite(condition)", Hint: "delete the rows with DELETE FROM, then append; or overwrite the whole table"}
		}
		return wr.Mode("overwrite").InsertInto(ctx, name)
	case pb.WriteOperationV2_MODE_OVERWRITE_PARTITIONS:
		return wr.Mode("overwrite").InsertInto(ctx, name) // an unpartitioned table is one partition
	}
	return invalidArgument(fmt.Errorf("writeTo: mode %s", w.GetMode()))
}

func isTrue(e *pb.Expression) bool {
	l := e.GetLiteral()
	return l != nil && l.GetBoolean()
}

func firstErr(errs ...error) error {
	for _, e := range errs {
		if e != nil {
			return e
		}
	}
	return nil
}

// tableNotFound is Spark's TABLE_OR_VIEW_NOT_FOUND.
func tableNotFound(name string) error {
	return engine.TableNotFound(name)
}
