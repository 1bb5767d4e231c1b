package sparkpb

import (
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
}
