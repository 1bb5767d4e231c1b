package planner

import (
	"fmt"

	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// sparkField is a field of Apache Spark 4.0's spark/connect/*.proto that
// Atlas's trimmed protos leave out. A client that sets one sends it as usual;
// Go's protobuf keeps it as an unknown field, and the server names it from
// this table when it refuses the message.
type sparkField struct {
	message string // Spark's message, without the spark.connect package
	number  protowire.Number
	name    string // the field's name in Spark's .proto
	typ     string // the field's message (or scalar) type in Spark's .proto
}

// sparkFieldsLeftOut lists every field of a message Atlas keeps that Atlas's
// protos leave out, with Spark 4.0's numbers (TestSparkFieldsLeftOut checks
// them against sparkpb/testdata/spark40-fields.txt).
var sparkFieldsLeftOut = []sparkField{
	{"DataType", 17, "calendar_interval", "DataType.CalendarInterval"},
	{"DataType", 18, "year_month_interval", "DataType.YearMonthInterval"},
	{"DataType", 25, "variant", "DataType.Variant"},
	{"DataType", 23, "udt", "DataType.UDT"},
	{"Expression", 8, "unresolved_regex", "Expression.UnresolvedRegex"},
	{"Expression", 11, "window", "Expression.Window"},
	{"Expression", 13, "update_fields", "Expression.UpdateFields"},
	{"Expression", 15, "common_inline_user_defined_function", "CommonInlineUserDefinedFunction"},
	{"Expression", 16, "call_function", "CallFunction"},
	{"Expression", 17, "named_argument_expression", "NamedArgumentExpression"},
	{"Expression", 19, "merge_action", "MergeAction"},
	{"Expression", 20, "typed_aggregate_expression", "TypedAggregateExpression"},
	{"Expression", 21, "subquery_expression", "SubqueryExpression"},
	{"Expression", 999, "extension", "google.protobuf.Any"},
	{"Expression.Literal", 12, "decimal", "Expression.Literal.Decimal"},
	{"Expression.Literal", 19, "calendar_interval", "Expression.Literal.CalendarInterval"},
	{"Expression.Literal", 20, "year_month_interval", "int32"},
	{"Expression.Literal", 23, "map", "Expression.Literal.Map"},
	{"Expression.Literal", 25, "specialized_array", "Expression.Literal.SpecializedArray"},
	{"ExpressionCommon", 1, "origin", "Origin"},
	{"Relation", 25, "unpivot", "Unpivot"},
	{"Relation", 26, "to_schema", "ToSchema"},
	{"Relation", 28, "map_partitions", "MapPartitions"},
	{"Relation", 29, "collect_metrics", "CollectMetrics"},
	{"Relation", 30, "parse", "Parse"},
	{"Relation", 31, "group_map", "GroupMap"},
	{"Relation", 32, "co_group_map", "CoGroupMap"},
	{"Relation", 34, "apply_in_pandas_with_state", "ApplyInPandasWithState"},
	{"Relation", 36, "cached_local_relation", "CachedLocalRelation"},
	{"Relation", 37, "cached_remote_relation", "CachedRemoteRelation"},
	{"Relation", 38, "common_inline_user_defined_table_function", "CommonInlineUserDefinedTableFunction"},
	{"Relation", 39, "as_of_join", "AsOfJoin"},
	{"Relation", 40, "common_inline_user_defined_data_source", "CommonInlineUserDefinedDataSource"},
	{"Relation", 41, "with_relations", "WithRelations"},
	{"Relation", 42, "transpose", "Transpose"},
	{"Relation", 43, "unresolved_table_valued_function", "UnresolvedTableValuedFunction"},
	{"Relation", 44, "lateral_join", "LateralJoin"},
	{"Relation", 300, "ml_relation", "MlRelation"},
	{"Catalog", 13, "create_external_table", "CreateExternalTable"},
	{"Catalog", 14, "create_table", "CreateTable"},
	{"Catalog", 19, "cache_table", "CacheTable"},
	{"Relation", 999, "unknown", "Unknown"},
	{"RelationCommon", 3, "origin", "Origin"},
	{"Aggregate", 5, "pivot", "Aggregate.Pivot"},
	{"Aggregate", 6, "grouping_sets", "Aggregate.GroupingSets"},
	{"Hint", 3, "parameters", "Expression"},
	{"Command", 1, "register_function", "CommonInlineUserDefinedFunction"},
	{"Command", 8, "get_resources_command", "GetResourcesCommand"},
	{"Command", 10, "register_table_function", "CommonInlineUserDefinedTableFunction"},
	{"Command", 12, "register_data_source", "CommonInlineUserDefinedDataSource"},
	{"Command", 13, "create_resource_profile_command", "CreateResourceProfileCommand"},
	{"Command", 14, "checkpoint_command", "CheckpointCommand"},
	{"Command", 15, "remove_cached_remote_relation_command", "RemoveCachedRemoteRelationCommand"},
	{"Command", 16, "merge_into_table_command", "MergeIntoTableCommand"},
	{"Command", 17, "ml_command", "MlCommand"},
	{"Command", 18, "execute_external_command", "ExecuteExternalCommand"},
	{"StreamingForeachFunction", 1, "python_function", "PythonUDF"},
	{"StreamingForeachFunction", 2, "scala_function", "ScalarScalaUDF"},
	{"StreamingQueryManagerCommand.StreamingQueryListenerCommand", 2, "python_listener_payload", "PythonUDF"},
	{"StreamingQueryManagerCommandResult", 5, "add_listener", "bool"},
	{"StreamingQueryManagerCommandResult", 6, "remove_listener", "bool"},
	{"StreamingQueryManagerCommandResult", 7, "list_listeners", "StreamingQueryManagerCommandResult.ListStreamingQueryListenerResult"},
	{"UserContext", 999, "extensions", "google.protobuf.Any"},
	{"AnalyzePlanRequest", 12, "same_semantics", "AnalyzePlanRequest.SameSemantics"},
	{"AnalyzePlanRequest", 13, "semantic_hash", "AnalyzePlanRequest.SemanticHash"},
	{"AnalyzePlanRequest", 16, "get_storage_level", "AnalyzePlanRequest.GetStorageLevel"},
	{"AnalyzePlanRequest", 18, "json_to_ddl", "AnalyzePlanRequest.JsonToDDL"},
	{"AnalyzePlanRequest.Persist", 2, "storage_level", "StorageLevel"},
	{"AnalyzePlanResponse", 10, "same_semantics", "AnalyzePlanResponse.SameSemantics"},
	{"AnalyzePlanResponse", 11, "semantic_hash", "AnalyzePlanResponse.SemanticHash"},
	{"AnalyzePlanResponse", 14, "get_storage_level", "AnalyzePlanResponse.GetStorageLevel"},
	{"AnalyzePlanResponse", 16, "json_to_ddl", "AnalyzePlanResponse.JsonToDDL"},
	{"ExecutePlanRequest", 5, "request_options", "ExecutePlanRequest.RequestOption"},
	{"ExecutePlanResponse", 10, "get_resources_command_result", "GetResourcesCommandResult"},
	{"ExecutePlanResponse", 17, "create_resource_profile_command_result", "CreateResourceProfileCommandResult"},
	{"ExecutePlanResponse", 18, "execution_progress", "ExecutePlanResponse.ExecutionProgress"},
	{"ExecutePlanResponse", 19, "checkpoint_command_result", "CheckpointCommandResult"},
	{"ExecutePlanResponse", 20, "ml_command_result", "MlCommandResult"},
	{"ExecutePlanResponse.Metrics.MetricObject", 4, "execution_metrics", "map"},
	{"ReleaseExecuteRequest", 5, "release_all", "ReleaseExecuteRequest.ReleaseAll"},
	{"ReleaseExecuteRequest", 6, "release_until", "ReleaseExecuteRequest.ReleaseUntil"},
}

// sparkFieldName names a field of Spark's message m that Atlas leaves out:
// "to_df (ToDF, field 18)", or "unknown field 77" when Spark 4.0 has no such
// field either.
func sparkFieldName(m protoreflect.FullName, n protowire.Number) string {
	for _, f := range sparkFieldsLeftOut {
		if "spark.connect."+f.message == string(m) && f.number == n {
			return fmt.Sprintf("%s (%s, field %d)", f.name, f.typ, n)
		}
	}
	return fmt.Sprintf("unknown field %d", n)
}

// unknownFieldNames names the fields of m the trimmed protos do not know, in
// the order they arrived.
func unknownFieldNames(m protoreflect.Message) []string {
	var names []string
	b := m.GetUnknown()
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			break
		}
		b = b[n:]
		n = protowire.ConsumeFieldValue(num, typ, b)
		if n < 0 {
			break
		}
		b = b[n:]
		names = append(names, sparkFieldName(m.Descriptor().FullName(), num))
	}
	return names
}

// OneofName names the member of m's oneof that is set, e.g. "filter". When
// none is, because the client set a member Atlas's trimmed protos leave out,
// it names that one from Spark's numbers, e.g. "to_df (ToDF, field 18)";
// "(none)" when nothing at all is set.
func OneofName(m protoreflect.Message, oneof protoreflect.Name) string {
	if od := m.Descriptor().Oneofs().ByName(oneof); od != nil {
		if fd := m.WhichOneof(od); fd != nil {
			return string(fd.Name())
		}
	}
	if names := unknownFieldNames(m); len(names) > 0 {
		return names[0]
	}
	return "(none)"
}
