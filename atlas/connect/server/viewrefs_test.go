package server

import (
	"strings"
	"testing"

	"google.golang.org/protobuf/proto"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

func sqlRel(q string) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Sql{Sql: &pb.SQL{Query: q}}}
}

func joinRel(l, r *pb.Relation) *pb.Relation {
	return &pb.Relation{RelType: &pb.Relation_Join{Join: &pb.Join{Left: l, Right: r, JoinType: pb.Join_JOIN_TYPE_INNER, UsingColumns: []string{"word"}}}}
}

// TestViewsForAQueryRecord: a record carries the definitions of the temp
// views the plan reads (by spark.table or in SQL text), each after the
// views it reads; a plan that reads a name the server has no definition
// of (a memory-sink table) is not resumable, with the name.
func TestViewsForAQueryRecord(t *testing.T) {
	stream := wordCounts("clicks")
	sess := &session{}
	sess.setViewDef("base", table("lakehouse.shop.groups"))
	sess.setViewDef("Groups", &pb.Relation{RelType: &pb.Relation_Filter{Filter: &pb.Filter{Input: table("base"), Condition: col("keep")}}})
	sess.setViewDef("unused", table("lakehouse.shop.other"))
	sess.setViewDef("dims", sqlRel("SELECT word FROM lakehouse.shop.dims"))

	names := func(vs []viewRecord) string {
		var out []string
		for _, v := range vs {
			out = append(out, v.Name)
		}
		return strings.Join(out, ",")
	}
	cases := []struct {
		plan      *pb.Relation
		views     string
		notResume string
	}{
		{stream, "", ""},
		{joinRel(stream, table("lakehouse.shop.groups")), "", ""},
		{joinRel(stream, table("GROUPS")), "base,groups", ""},
		{joinRel(stream, sqlRel("SELECT * FROM dims JOIN groups USING (word)")), "dims,base,groups", ""},
		// lakehouse.shop.dims is a table, not the view dims.
		{joinRel(stream, sqlRel("SELECT * FROM lakehouse.shop.dims")), "", ""},
		{joinRel(stream, table("counts")), "", `reads "counts", a memory-sink table`},
	}
	for i, c := range cases {
		vs, why, err := sess.viewsFor(c.plan)
		if err != nil {
			t.Fatalf("case %d: %v", i, err)
		}
		if names(vs) != c.views || (c.notResume == "") != (why == "") || !strings.Contains(why, c.notResume) {
			t.Errorf("case %d: views %q, not resumable %q; want %q, %q", i, names(vs), why, c.views, c.notResume)
		}
		for _, v := range vs {
			rel := &pb.Relation{}
			if err := proto.Unmarshal(v.Relation, rel); err != nil || !proto.Equal(rel, sess.viewDefs[v.Name]) {
				t.Errorf("case %d: view %s's recorded definition does not decode to the one given (%v)", i, v.Name, err)
			}
		}
	}
}
