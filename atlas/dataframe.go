package atlas

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"

	atlaspb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaslite"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// DataFrame is an unresolved plan (a spark.connect.Relation) bound to a
// session. Transformations return new DataFrames and send nothing; a
// transformation with a bad argument returns a DataFrame whose Err says
// so, and every later step and action returns that error.
type DataFrame struct {
	s   *Session
	rel *pb.Relation
	err error

	once     sync.Once
	schema   *pb.DataType // the analyzed schema, set by analyze
	analyErr error
}

// newDF wraps a relation, numbering it as PySpark numbers plans.
func (s *Session) newDF(rel *pb.Relation) *DataFrame {
	if rel.Common == nil {
		rel.Common = &pb.RelationCommon{}
	}
	rel.Common.PlanId = ptr(s.nextPlanID())
	return &DataFrame{s: s, rel: rel}
}

func (s *Session) failedDF(err error) *DataFrame { return &DataFrame{s: s, err: err} }

// derive builds a new DataFrame on df's relation; a previous error sticks.
func (df *DataFrame) derive(build func(in *pb.Relation) (*pb.Relation, error)) *DataFrame {
	if df.err != nil {
		return df
	}
	rel, err := build(df.rel)
	if err != nil {
		return df.s.failedDF(err)
	}
	return df.s.newDF(rel)
}

// Relation returns the Spark Connect relation this DataFrame sends: a
// protobuf-go-lite message, whose MarshalVT is its wire encoding.
func (df *DataFrame) Relation() (*pb.Relation, error) { return df.rel, df.err }

// Session returns the session the DataFrame belongs to.
func (df *DataFrame) Session() *Session { return df.s }

// Err reports why this DataFrame cannot run: a bad argument while it was
// built, or the server's analysis error (an unknown column, a type
// mismatch), asked once with an AnalyzePlan round trip and cached.
func (df *DataFrame) Err() error {
	if df.err != nil {
		return df.err
	}
	df.analyze(context.Background())
	return df.analyErr
}

// analyze asks the server for the schema once.
func (df *DataFrame) analyze(ctx context.Context) {
	df.once.Do(func() {
		ctx, cancel := context.WithTimeout(ctx, rpcTimeout)
		defer cancel()
		resp, err := df.s.analyze(ctx, &pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_Schema_{
			Schema: &pb.AnalyzePlanRequest_Schema{Plan: df.plan()},
		}})
		if err != nil {
			df.analyErr = err
			return
		}
		df.schema = resp.GetSchema().GetSchema()
	})
}

func (df *DataFrame) plan() *pb.Plan { return &pb.Plan{OpType: &pb.Plan_Root{Root: df.rel}} }

// Schema returns the DataFrame's schema as Arrow types, or nil when Err
// is not nil.
func (df *DataFrame) Schema() *arrow.Schema {
	if df.Err() != nil {
		return nil
	}
	sch, err := arrowSchema(df.schema)
	if err != nil {
		return nil
	}
	return sch
}

// Columns returns the column names, or nil when Err is not nil.
func (df *DataFrame) Columns() []string {
	sch := df.Schema()
	if sch == nil {
		return nil
	}
	out := make([]string, sch.NumFields())
	for i, f := range sch.Fields() {
		out[i] = f.Name
	}
	return out
}

// DTypes returns each column's name and type as dtypes does: the type's
// simple string (bigint, string, timestamp, decimal(10,2), array<int>,
// struct<start:timestamp,end:timestamp>). It is nil when Err is not nil.
func (df *DataFrame) DTypes() [][2]string {
	sch := df.Schema()
	if sch == nil {
		return nil
	}
	out := make([][2]string, sch.NumFields())
	for i, f := range sch.Fields() {
		out[i] = [2]string{f.Name, types.SQLName(f.Type)}
	}
	return out
}

// IsStreaming reports whether the plan reads a streaming source, as
// isStreaming. It is false when the plan is invalid.
func (df *DataFrame) IsStreaming() bool {
	if df.err != nil {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	resp, err := df.s.analyze(ctx, &pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_IsStreaming_{
		IsStreaming: &pb.AnalyzePlanRequest_IsStreaming{Plan: df.plan()},
	}})
	return err == nil && resp.GetIsStreaming().GetIsStreaming()
}

// SchemaString returns the schema as a tree, as printSchema prints it.
func (df *DataFrame) SchemaString() string {
	if df.err != nil {
		return "error: " + df.err.Error() + "\n"
	}
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	resp, err := df.s.analyze(ctx, &pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_TreeString_{
		TreeString: &pb.AnalyzePlanRequest_TreeString{Plan: df.plan()},
	}})
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return resp.GetTreeString().GetTreeString()
}

// PrintSchema prints the schema as a tree.
func (df *DataFrame) PrintSchema() { fmt.Print(df.SchemaString()) }

// ExplainString returns the server's plan, as explain() prints it.
func (df *DataFrame) ExplainString() string {
	if df.err != nil {
		return "error: " + df.err.Error() + "\n"
	}
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	resp, err := df.s.analyze(ctx, &pb.AnalyzePlanRequest{Analyze: &pb.AnalyzePlanRequest_Explain_{
		Explain: &pb.AnalyzePlanRequest_Explain{Plan: df.plan(), ExplainMode: pb.AnalyzePlanRequest_Explain_EXPLAIN_MODE_SIMPLE},
	}})
	if err != nil {
		return "error: " + err.Error() + "\n"
	}
	return resp.GetExplain().GetExplainString()
}

// Explain prints the server's plan.
func (df *DataFrame) Explain() { fmt.Print(df.ExplainString()) }

// columns converts Select/GroupBy arguments.
func columns(what string, args []any) ([]*pb.Expression, error) {
	out := make([]*pb.Expression, 0, len(args))
	for i, a := range args {
		c, err := toColumn(a)
		if err != nil {
			return nil, fmt.Errorf("%s argument %d: %w", what, i+1, err)
		}
		out = append(out, c.e)
	}
	return out, nil
}

// Select projects columns: names ("a", "s.*") or Columns.
func (df *DataFrame) Select(cols ...any) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		exprs, err := columns("select", cols)
		if err != nil {
			return nil, err
		}
		return &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: in, Expressions: exprs}}}, nil
	})
}

// SelectExpr projects SQL expressions, as selectExpr("CAST(value AS STRING) AS json").
func (df *DataFrame) SelectExpr(exprs ...string) *DataFrame {
	cols := make([]any, len(exprs))
	for i, e := range exprs {
		cols[i] = Expr(e)
	}
	return df.Select(cols...)
}

// Where keeps the rows where cond holds: a Column or a SQL string.
func (df *DataFrame) Where(cond any) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		var c Column
		switch x := cond.(type) {
		case string:
			c = Expr(x)
		case Column:
			c = x
		default:
			return nil, fmt.Errorf("where: want a Column or a SQL condition string, got %T", cond)
		}
		if c.err != nil {
			return nil, fmt.Errorf("where: %w", c.err)
		}
		return &pb.Relation{RelType: &pb.Relation_Filter{Filter: &pb.Filter{Input: in, Condition: c.e}}}, nil
	})
}

// Filter is Where.
func (df *DataFrame) Filter(cond any) *DataFrame { return df.Where(cond) }

// WithColumn adds or replaces a column.
func (df *DataFrame) WithColumn(name string, c Column) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		if c.err != nil {
			return nil, fmt.Errorf("withColumn %s: %w", name, c.err)
		}
		return &pb.Relation{RelType: &pb.Relation_WithColumns{WithColumns: &pb.WithColumns{
			Input: in, Aliases: []*pb.Expression_Alias{{Expr: c.e, Name: []string{name}}},
		}}}, nil
	})
}

// WithColumnRenamed renames a column.
func (df *DataFrame) WithColumnRenamed(existing, name string) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		return &pb.Relation{RelType: &pb.Relation_WithColumnsRenamed{WithColumnsRenamed: &pb.WithColumnsRenamed{
			Input: in, Renames: []*pb.WithColumnsRenamed_Rename{{ColName: existing, NewColName: name}},
		}}}, nil
	})
}

// Drop removes columns by name.
func (df *DataFrame) Drop(names ...string) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		return &pb.Relation{RelType: &pb.Relation_Drop{Drop: &pb.Drop{Input: in, ColumnNames: names}}}, nil
	})
}

// WithWatermark declares eventTime's watermark: rows more than delay
// ("10 minutes" or a time.Duration) behind the latest event time seen are
// late, as withWatermark(eventTime, delayThreshold).
func (df *DataFrame) WithWatermark(eventTime string, delay any) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		d, err := intervalString(delay)
		if err != nil {
			return nil, fmt.Errorf("withWatermark delay: %w", err)
		}
		return &pb.Relation{RelType: &pb.Relation_WithWatermark{WithWatermark: &pb.WithWatermark{
			Input: in, EventTime: eventTime, DelayThreshold: d,
		}}}, nil
	})
}

// OrderBy sorts globally by columns: names or Columns (Desc() for descending).
func (df *DataFrame) OrderBy(cols ...any) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		exprs, err := columns("orderBy", cols)
		if err != nil {
			return nil, err
		}
		order := make([]*pb.Expression_SortOrder, len(exprs))
		for i, e := range exprs {
			if so := e.GetSortOrder(); so != nil {
				order[i] = so
			} else {
				order[i] = Column{e: e}.Asc().e.GetSortOrder()
			}
		}
		return &pb.Relation{RelType: &pb.Relation_Sort{Sort: &pb.Sort{Input: in, Order: order, IsGlobal: ptr(true)}}}, nil
	})
}

// Sort is OrderBy.
func (df *DataFrame) Sort(cols ...any) *DataFrame { return df.OrderBy(cols...) }

// Limit keeps the first n rows.
func (df *DataFrame) Limit(n int) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		if n < 0 || n > 1<<31-1 {
			return nil, fmt.Errorf("limit %d: want 0 to 2147483647", n)
		}
		return &pb.Relation{RelType: &pb.Relation_Limit{Limit: &pb.Limit{Input: in, Limit: int32(n)}}}, nil
	})
}

// LatestPerKey keeps, for each distinct value of keys, the row with the
// greatest orderBy: one change per key before a MERGE. It is an Atlas
// extension (atlas.connect.LatestPerKey in Relation.extension).
func (df *DataFrame) LatestPerKey(keys []string, orderBy string) *DataFrame {
	return df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		if len(keys) == 0 || orderBy == "" {
			return nil, errors.New("latestPerKey: name at least one key column and the ordering column")
		}
		msg := &atlaspb.LatestPerKey{Input: in, Keys: keys, OrderBy: orderBy}
		b, err := msg.MarshalVT()
		ext, err := packExtension(atlaspb.TypeURLLatestPerKey, b, err)
		if err != nil {
			return nil, fmt.Errorf("latestPerKey: %w", err)
		}
		return &pb.Relation{RelType: &pb.Relation_Extension{Extension: ext}}, nil
	})
}

// CreateOrReplaceTempView names the DataFrame for SQL in this session; the
// server keeps the view until the session ends.
func (df *DataFrame) CreateOrReplaceTempView(name string) error {
	if df.err != nil {
		return df.err
	}
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	_, err := df.s.command(ctx, &pb.Command{CommandType: &pb.Command_CreateDataframeView{
		CreateDataframeView: &pb.CreateDataFrameViewCommand{Input: df.rel, Name: name, Replace: true},
	}})
	if err != nil {
		return fmt.Errorf("createOrReplaceTempView %s: %w", name, err)
	}
	return nil
}

// GroupedData is the result of GroupBy: aggregate it with Count or Agg.
type GroupedData struct {
	df   *DataFrame
	keys []*pb.Expression
	err  error
}

// GroupBy groups rows by columns (names or Columns, such as Window(...)).
func (df *DataFrame) GroupBy(cols ...any) *GroupedData {
	keys, err := columns("groupBy", cols)
	return &GroupedData{df: df, keys: keys, err: err}
}

// Agg computes aggregate columns per group: Count, Sum, Avg, Min, Max...
func (g *GroupedData) Agg(aggs ...Column) *DataFrame {
	return g.df.derive(func(in *pb.Relation) (*pb.Relation, error) {
		if g.err != nil {
			return nil, g.err
		}
		exprs := make([]*pb.Expression, len(aggs))
		for i, a := range aggs {
			if a.err != nil {
				return nil, fmt.Errorf("agg argument %d: %w", i+1, a.err)
			}
			exprs[i] = a.e
		}
		return &pb.Relation{RelType: &pb.Relation_Aggregate{Aggregate: &pb.Aggregate{
			Input: in, GroupType: pb.Aggregate_GROUP_TYPE_GROUPBY,
			GroupingExpressions: g.keys, AggregateExpressions: exprs,
		}}}, nil
	})
}

// Count counts the rows of each group into a column named count, sent as
// PySpark sends it: count(1) AS count.
func (g *GroupedData) Count() *DataFrame { return g.Agg(Count(Lit(1)).Alias("count")) }

// Sum adds the named columns per group.
func (g *GroupedData) Sum(cols ...string) *DataFrame { return g.simple(Sum, cols) }

// Avg averages the named columns per group.
func (g *GroupedData) Avg(cols ...string) *DataFrame { return g.simple(Avg, cols) }

// Mean averages the named columns per group, as GroupedData.mean: the
// columns are named avg(x), as Spark's mean is Average.
func (g *GroupedData) Mean(cols ...string) *DataFrame { return g.simple(Avg, cols) }

// Min is the smallest value of the named columns per group.
func (g *GroupedData) Min(cols ...string) *DataFrame { return g.simple(Min, cols) }

// Max is the largest value of the named columns per group.
func (g *GroupedData) Max(cols ...string) *DataFrame { return g.simple(Max, cols) }

func (g *GroupedData) simple(f func(Column) Column, cols []string) *DataFrame {
	aggs := make([]Column, len(cols))
	for i, c := range cols {
		aggs[i] = f(Col(c))
	}
	return g.Agg(aggs...)
}

// Table reads a table or temp view by name, as spark.table(name).
func (s *Session) Table(name string) *DataFrame {
	return s.newDF(&pb.Relation{RelType: &pb.Relation_Read{Read: &pb.Read{
		ReadType: &pb.Read_NamedTable_{NamedTable: &pb.Read_NamedTable{UnparsedIdentifier: name}},
	}}})
}

// SQL runs a SQL statement, as spark.sql(query). Queries return a
// DataFrame to run; DDL, INSERT and MERGE run now, and their DataFrame
// holds their result (MERGE's counts).
func (s *Session) SQL(query string) (*DataFrame, error) {
	return s.SQLContext(context.Background(), query)
}

// SQLContext is SQL with a context.
func (s *Session) SQLContext(ctx context.Context, query string) (*DataFrame, error) {
	resps, err := s.command(ctx, &pb.Command{CommandType: &pb.Command_SqlCommand{SqlCommand: &pb.SqlCommand{
		Input: &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: query}}},
	}}})
	if err != nil {
		return nil, fmt.Errorf("sql: %w", err)
	}
	for _, r := range resps {
		if res := r.GetSqlCommandResult(); res != nil {
			return &DataFrame{s: s, rel: res.GetRelation()}, nil
		}
	}
	return nil, errors.New("sql: the server answered without a result relation")
}
