package server

import (
	"context"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// AnalyzePlan answers questions about a plan without running it: its
// schema (df.schema, df.columns), explain, printSchema's tree string,
// isStreaming, the Spark version and DDL parsing. Persist and unpersist
// are accepted and do nothing (Atlas does not cache DataFrames).
func (s *service) AnalyzePlan(ctx context.Context, req *pb.AnalyzePlanRequest) (*pb.AnalyzePlanResponse, error) {
	if err := s.limits.checkPlan(req.ProtoReflect()); err != nil {
		return nil, err
	}
	sess, err := s.session(ctx, req.GetUserContext(), req.GetSessionId(), req.ClientObservedServerSideSessionId)
	if err != nil {
		return nil, err
	}
	resp, err := s.analyze(ctx, sess, req)
	if err != nil {
		return nil, sess.withErrorID(err)
	}
	return resp, nil
}

// analyze answers AnalyzePlan for sess.
func (s *service) analyze(ctx context.Context, sess *session, req *pb.AnalyzePlanRequest) (*pb.AnalyzePlanResponse, error) {
	resp := &pb.AnalyzePlanResponse{SessionId: sess.key.id, ServerSideSessionId: sess.serverSideID}
	df := func(p *pb.Plan) (*engine.DataFrame, error) {
		root := p.GetRoot()
		if root == nil {
			return nil, fmt.Errorf("analyze: the plan has no root relation (commands cannot be analyzed)")
		}
		return sess.planner.Relation(ctx, root)
	}
	switch a := req.GetAnalyze().(type) {
	case *pb.AnalyzePlanRequest_Schema_:
		d, err := df(a.Schema.GetPlan())
		if err != nil {
			return nil, toStatus(err)
		}
		t, err := planner.Schema(d.Schema())
		if err != nil {
			return nil, toStatus(err)
		}
		resp.Result = &pb.AnalyzePlanResponse_Schema_{Schema: &pb.AnalyzePlanResponse_Schema{Schema: t}}
	case *pb.AnalyzePlanRequest_Explain_:
		d, err := df(a.Explain.GetPlan())
		if err != nil {
			return nil, toStatus(err)
		}
		resp.Result = &pb.AnalyzePlanResponse_Explain_{Explain: &pb.AnalyzePlanResponse_Explain{ExplainString: d.ExplainString()}}
	case *pb.AnalyzePlanRequest_TreeString_:
		d, err := df(a.TreeString.GetPlan())
		if err != nil {
			return nil, toStatus(err)
		}
		resp.Result = &pb.AnalyzePlanResponse_TreeString_{TreeString: &pb.AnalyzePlanResponse_TreeString{TreeString: d.SchemaString()}}
	case *pb.AnalyzePlanRequest_IsStreaming_:
		d, err := df(a.IsStreaming.GetPlan())
		if err != nil {
			return nil, toStatus(err)
		}
		resp.Result = &pb.AnalyzePlanResponse_IsStreaming_{IsStreaming: &pb.AnalyzePlanResponse_IsStreaming{IsStreaming: d.IsStreaming()}}
	case *pb.AnalyzePlanRequest_IsLocal_:
		resp.Result = &pb.AnalyzePlanResponse_IsLocal_{IsLocal: &pb.AnalyzePlanResponse_IsLocal{IsLocal: a.IsLocal.GetPlan().GetRoot().GetLocalRelation() != nil}}
	case *pb.AnalyzePlanRequest_InputFiles_:
		resp.Result = &pb.AnalyzePlanResponse_InputFiles_{InputFiles: &pb.AnalyzePlanResponse_InputFiles{}}
	case *pb.AnalyzePlanRequest_SparkVersion_:
		resp.Result = &pb.AnalyzePlanResponse_SparkVersion_{SparkVersion: &pb.AnalyzePlanResponse_SparkVersion{Version: SparkVersion}}
	case *pb.AnalyzePlanRequest_DdlParse:
		t, err := planner.ParseDDL(a.DdlParse.GetDdlString())
		if err != nil {
			return nil, toStatus(err)
		}
		resp.Result = &pb.AnalyzePlanResponse_DdlParse{DdlParse: &pb.AnalyzePlanResponse_DDLParse{Parsed: t}}
	case *pb.AnalyzePlanRequest_Persist_:
		resp.Result = &pb.AnalyzePlanResponse_Persist_{Persist: &pb.AnalyzePlanResponse_Persist{}}
	case *pb.AnalyzePlanRequest_Unpersist_:
		resp.Result = &pb.AnalyzePlanResponse_Unpersist_{Unpersist: &pb.AnalyzePlanResponse_Unpersist{}}
	default:
		return nil, toStatus(&planner.UnsupportedError{What: "AnalyzePlan " + planner.OneofName(req.ProtoReflect(), "analyze")})
	}
	return resp, nil
}
