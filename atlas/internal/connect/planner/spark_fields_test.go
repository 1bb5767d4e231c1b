package planner

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// sparkMessage encodes a message the way a Spark 4.0 client does: known is
// what Atlas's protos carry, then field number n holding an empty message
// (a member Atlas's trimmed protos leave out), and unmarshals it into m.
func sparkMessage(t *testing.T, known proto.Message, n protowire.Number, m proto.Message) {
	t.Helper()
	b, err := proto.Marshal(known)
	if err != nil {
		t.Fatal(err)
	}
	b = protowire.AppendTag(b, n, protowire.BytesType)
	b = protowire.AppendBytes(b, nil)
	if err := proto.Unmarshal(b, m); err != nil {
		t.Fatal(err)
	}
}

// TestUnsupportedNamesLeftOutFields: relations and expressions Spark 4.0
// has and Atlas's protos leave out arrive as unknown fields; the refusal
// still names them, with Spark's message and field number (from Spark's
// relations.proto and expressions.proto: unpivot = 25, to_schema = 26,
// as_of_join = 39, call_function = 16, update_fields = 13).
func TestUnsupportedNamesLeftOutFields(t *testing.T) {
	s := engine.Builder().Config(engine.ConfHome, t.TempDir()).GetOrCreate()
	defer s.Stop()
	p := &Planner{Session: s}
	for _, tc := range []struct {
		n    protowire.Number
		want string
	}{
		{25, "Atlas Connect does not support relation unpivot (Unpivot, field 25)"},
		{26, "Atlas Connect does not support relation to_schema (ToSchema, field 26)"},
		{39, "Atlas Connect does not support relation as_of_join (AsOfJoin, field 39)"},
		{4242, "Atlas Connect does not support relation unknown field 4242"},
	} {
		rel := &pb.Relation{}
		sparkMessage(t, &pb.Relation{Common: &pb.RelationCommon{PlanId: proto.Int64(7)}}, tc.n, rel)
		_, err := p.Relation(context.Background(), rel)
		if !IsUnsupported(err) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("relation field %d: %v, want an UnsupportedError starting %q", tc.n, err, tc.want)
		}
	}
	in := events(t, []string{"a"}, []time.Time{time.Unix(0, 0)}, []int64{1})
	for _, tc := range []struct {
		n    protowire.Number
		want string
	}{
		{16, "Atlas Connect does not support expression call_function (CallFunction, field 16)"},
		{13, "Atlas Connect does not support expression update_fields (Expression.UpdateFields, field 13)"},
	} {
		e := &pb.Expression{}
		sparkMessage(t, &pb.Expression{}, tc.n, e)
		_, err := p.Relation(context.Background(), &pb.Relation{RelType: &pb.Relation_Project{Project: &pb.Project{Input: in, Expressions: []*pb.Expression{e}}}})
		if !IsUnsupported(err) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("expression field %d: %v, want an UnsupportedError starting %q", tc.n, err, tc.want)
		}
	}
}

// TestSparkFieldsLeftOut checks the table of fields Atlas leaves out against
// every field of Spark 4.0 (sparkpb/testdata/spark40-fields.txt): the number,
// name and type are Spark's, and Atlas's protos really leave the field out
// (a field they carry would be decoded, never named from the table).
func TestSparkFieldsLeftOut(t *testing.T) {
	f, err := os.Open("../sparkpb/testdata/spark40-fields.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	type field struct {
		number int
		typ    string
	}
	spark := map[string]field{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		p := strings.Fields(sc.Text())
		if len(p) != 4 || strings.HasPrefix(p[0], "#") {
			continue
		}
		n, err := strconv.Atoi(p[1])
		if err != nil {
			t.Fatal(err)
		}
		spark[p[0]] = field{n, strings.TrimPrefix(p[3], "spark.connect.")}
	}
	if len(spark) < 1000 {
		t.Fatalf("read %d Spark fields, want 1000+", len(spark))
	}
	for _, lf := range sparkFieldsLeftOut {
		full := "spark.connect." + lf.message + "." + lf.name
		want, ok := spark[full]
		if !ok {
			t.Errorf("%s is not a field of Spark 4.0", full)
			continue
		}
		if int(lf.number) != want.number || (lf.typ != want.typ && !strings.HasPrefix(want.typ, "map<")) {
			t.Errorf("%s: table has %d %s, Spark 4.0 has %d %s", full, lf.number, lf.typ, want.number, want.typ)
		}
		md, err := findMessage(lf.message)
		if err != nil {
			t.Errorf("%s: %v", full, err)
			continue
		}
		if md.Fields().ByNumber(lf.number) != nil {
			t.Errorf("%s: Atlas's protos carry field %d, drop it from the table", full, lf.number)
		}
	}
}

func findMessage(name string) (protoreflect.MessageDescriptor, error) {
	d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName("spark.connect." + name))
	if err != nil {
		return nil, err
	}
	md, ok := d.(protoreflect.MessageDescriptor)
	if !ok {
		return nil, fmt.Errorf("%s is a %T", name, d)
	}
	return md, nil
}
