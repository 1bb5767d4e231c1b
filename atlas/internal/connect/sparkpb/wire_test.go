package sparkpb

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
)

// TestWireNumbers pins the field numbers Atlas relies on to the values in
// Apache Spark 4.0's spark/connect/*.proto, copied by hand from Spark's
// sources: a regenerated or edited .proto that renumbers them fails here.
func TestWireNumbers(t *testing.T) {
	want := map[string]protoreflect.FieldNumber{
		"spark.connect.Plan.root":                                                  1,
		"spark.connect.Plan.command":                                               2,
		"spark.connect.ExecutePlanRequest.session_id":                              1,
		"spark.connect.ExecutePlanRequest.plan":                                    3,
		"spark.connect.ExecutePlanRequest.operation_id":                            6,
		"spark.connect.ExecutePlanResponse.arrow_batch":                            2,
		"spark.connect.ExecutePlanResponse.sql_command_result":                     5,
		"spark.connect.ExecutePlanResponse.schema":                                 7,
		"spark.connect.ExecutePlanResponse.write_stream_operation_start_result":    8,
		"spark.connect.ExecutePlanResponse.streaming_query_command_result":         9,
		"spark.connect.ExecutePlanResponse.streaming_query_manager_command_result": 11,
		"spark.connect.ExecutePlanResponse.result_complete":                        14,
		"spark.connect.ExecutePlanResponse.ArrowBatch.row_count":                   1,
		"spark.connect.ExecutePlanResponse.ArrowBatch.data":                        2,
		"spark.connect.AnalyzePlanRequest.schema":                                  4,
		"spark.connect.AnalyzePlanResponse.schema":                                 2,
		"spark.connect.Relation.common":                                            1,
		"spark.connect.Relation.read":                                              2,
		"spark.connect.Relation.project":                                           3,
		"spark.connect.Relation.filter":                                            4,
		"spark.connect.Relation.sort":                                              7,
		"spark.connect.Relation.limit":                                             8,
		"spark.connect.Relation.aggregate":                                         9,
		"spark.connect.Relation.sql":                                               10,
		"spark.connect.Relation.local_relation":                                    11,
		"spark.connect.Relation.subquery_alias":                                    16,
		"spark.connect.Relation.show_string":                                       20,
		"spark.connect.Command.sql_command":                                        5,
		"spark.connect.Command.write_stream_operation_start":                       6,
		"spark.connect.Command.streaming_query_command":                            7,
		"spark.connect.Command.streaming_query_manager_command":                    9,
		"spark.connect.Expression.literal":                                         1,
		"spark.connect.Expression.unresolved_attribute":                            2,
		"spark.connect.Expression.unresolved_function":                             3,
		"spark.connect.Expression.expression_string":                               4,
		"spark.connect.Expression.unresolved_star":                                 5,
		"spark.connect.Expression.alias":                                           6,
		"spark.connect.Expression.cast":                                            7,
	}
	for name, num := range want {
		d, err := protoregistry.GlobalFiles.FindDescriptorByName(protoreflect.FullName(name))
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		fd, ok := d.(protoreflect.FieldDescriptor)
		if !ok {
			t.Errorf("%s is a %T, not a field", name, d)
			continue
		}
		if fd.Number() != num {
			t.Errorf("%s = %d, Spark 4.0 has %d", name, fd.Number(), num)
		}
	}
	t.Run("trimmed set", testTrimmedSet)
}

// spark40Field is one line of testdata/spark40-fields.txt.
type spark40Field struct {
	number      protoreflect.FieldNumber
	cardinality string
	typ         string
}

// readSpark40Fields reads every field of Spark 4.0's spark.connect package.
func readSpark40Fields(t *testing.T) map[protoreflect.FullName]spark40Field {
	t.Helper()
	f, err := os.Open("testdata/spark40-fields.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fields := map[protoreflect.FullName]spark40Field{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p := strings.Fields(line)
		if len(p) != 4 {
			t.Fatalf("testdata/spark40-fields.txt: bad line %q", line)
		}
		n, err := strconv.Atoi(p[1])
		if err != nil {
			t.Fatalf("testdata/spark40-fields.txt: %q: %v", line, err)
		}
		fields[protoreflect.FullName(p[0])] = spark40Field{protoreflect.FieldNumber(n), p[2], p[3]}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return fields
}

// typeName names a field's type the way testdata/spark40-fields.txt does.
func typeName(fd protoreflect.FieldDescriptor) string {
	switch {
	case fd.IsMap():
		return "map<" + typeName(fd.MapKey()) + "," + typeName(fd.MapValue()) + ">"
	case fd.Message() != nil:
		return string(fd.Message().FullName())
	case fd.Enum() != nil:
		return string(fd.Enum().FullName())
	}
	return fd.Kind().String()
}

// testTrimmedSet checks every field the trimmed protos keep against Spark
// 4.0's: same full name (so same message names and nesting), number,
// cardinality and type. Leaving a field out is wire-compatible (it arrives as
// an unknown field); renumbering or retyping one is not.
func testTrimmedSet(t *testing.T) {
	spark := readSpark40Fields(t)
	if len(spark) < 1000 {
		t.Fatalf("testdata/spark40-fields.txt has %d fields, want Spark 4.0's 1000+", len(spark))
	}
	checked := 0
	var walk func(ms protoreflect.MessageDescriptors)
	walk = func(ms protoreflect.MessageDescriptors) {
		for i := 0; i < ms.Len(); i++ {
			m := ms.Get(i)
			if m.IsMapEntry() {
				continue
			}
			for j := 0; j < m.Fields().Len(); j++ {
				fd := m.Fields().Get(j)
				want, ok := spark[fd.FullName()]
				switch {
				case !ok:
					t.Errorf("%s is not a field of Spark 4.0", fd.FullName())
				case fd.Number() != want.number || fd.Cardinality().String() != want.cardinality || typeName(fd) != want.typ:
					t.Errorf("%s = %d %s %s, Spark 4.0 has %d %s %s", fd.FullName(),
						fd.Number(), fd.Cardinality(), typeName(fd), want.number, want.cardinality, want.typ)
				}
				checked++
			}
			walk(m.Messages())
		}
	}
	protoregistry.GlobalFiles.RangeFilesByPackage("spark.connect", func(f protoreflect.FileDescriptor) bool {
		walk(f.Messages())
		return true
	})
	if checked < 300 {
		t.Errorf("checked %d fields, want the 300+ Atlas keeps", checked)
	}
}
