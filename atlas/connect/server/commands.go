package server

import (
	"context"
	"fmt"
	"strings"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// executeCommand runs a Command plan.
func (s *service) executeCommand(ctx context.Context, sess *session, out *responder, cmd *pb.Command) error {
	switch c := cmd.GetCommandType().(type) {
	case *pb.Command_SqlCommand:
		return s.sqlCommand(ctx, sess, out, c.SqlCommand)
	case *pb.Command_CreateDataframeView:
		return s.createView(ctx, sess, c.CreateDataframeView)
	case *pb.Command_Extension:
		return s.commandExtension(ctx, sess, out, c.Extension)
	case *pb.Command_WriteOperation:
		return s.writeOperation(ctx, sess, c.WriteOperation)
	case *pb.Command_WriteOperationV2:
		return s.writeOperationV2(ctx, sess, c.WriteOperationV2)
	}
	return s.streamingCommand(ctx, sess, out, cmd)
}

// sqlCommand answers spark.sql(query) with the relation to run.
func (s *service) sqlCommand(ctx context.Context, sess *session, out *responder, c *pb.SqlCommand) error {
	query := c.GetSql()
	if in := c.GetInput(); in != nil {
		q := in.GetSql()
		if q == nil {
			return fmt.Errorf("sql command: the input is not a SQL relation")
		}
		if len(q.GetArgs()) > 0 || len(q.GetPosArgs()) > 0 || len(q.GetNamedArguments()) > 0 || len(q.GetPosArguments()) > 0 {
			return &planner.UnsupportedError{What: "SQL parameters (args)", Hint: "put the values in the query text"}
		}
		query = q.GetQuery()
	}
	if len(c.GetArgs()) > 0 || len(c.GetPosArgs()) > 0 || len(c.GetNamedArguments()) > 0 || len(c.GetPosArguments()) > 0 {
		return &planner.UnsupportedError{What: "SQL parameters (args)", Hint: "put the values in the query text"}
	}
	rel, err := s.sqlRelation(ctx, sess, query)
	if err != nil {
		return err
	}
	return out.send(&pb.ExecutePlanResponse{ResponseType: &pb.ExecutePlanResponse_SqlCommandResult_{
		SqlCommandResult: &pb.ExecutePlanResponse_SqlCommandResult{Relation: rel},
	}})
}

// sqlRelation runs a statement of spark.sql: SET and RESET on the
// session's settings here, any other through the planner.
func (s *service) sqlRelation(ctx context.Context, sess *session, query string) (*pb.Relation, error) {
	if stmt, err := sess.engine.ParserOptions().Parse(query); err == nil {
		if rel, ok, err := confStatement(sess, stmt); ok {
			return rel, err
		}
	}
	return sess.planner.SQLCommand(ctx, query)
}

// createView is df.createTempView / createOrReplaceTempView.
func (s *service) createView(ctx context.Context, sess *session, c *pb.CreateDataFrameViewCommand) error {
	name := c.GetName()
	if c.GetIsGlobal() {
		df, err := sess.planner.Relation(ctx, c.GetInput())
		if err != nil {
			return err
		}
		return df.CreateGlobalTempView(name, c.GetReplace())
	}
	if name == "" || strings.Contains(name, ".") {
		return fmt.Errorf("temp view name %q: a view name is one identifier", name)
	}
	if !c.GetReplace() && sess.engine.Table(name).Err() == nil {
		return fmt.Errorf("[TEMP_TABLE_OR_VIEW_ALREADY_EXISTS] cannot create the temporary view %s because it already exists; use createOrReplaceTempView", name)
	}
	df, err := sess.planner.Relation(ctx, c.GetInput())
	if err != nil {
		return err
	}
	if err := df.CreateOrReplaceTempView(name); err != nil {
		return err
	}
	sess.setViewDef(name, c.GetInput())
	return nil
}
