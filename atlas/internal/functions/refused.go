package functions

import (
	"errors"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// refusedGroup is a group of Spark functions Atlas does not implement,
// with why.
type refusedGroup struct {
	group, label, reason string
	names                []string
}

// refusedGroups are Spark 4's variant, XML, Avro, Protobuf, spatial and
// vector functions (the function groups of Spark's SQL reference and
// the examples of its documentation).
var refusedGroups = []refusedGroup{
	{"variant", "variant", "Atlas has no VARIANT type", []string{
		"is_valid_variant", "is_variant_null", "parse_json", "schema_of_variant", "schema_of_variant_agg", "to_variant_object",
		"try_parse_json", "try_variant_get", "variant_explode", "variant_explode_outer", "variant_get"}},
	{"xml", "XML", "Atlas has no XML parser or XPath engine", []string{
		"from_xml", "schema_of_xml", "to_xml", "xpath", "xpath_boolean", "xpath_double", "xpath_float", "xpath_int",
		"xpath_long", "xpath_number", "xpath_short", "xpath_string"}},
	{"avro", "Avro", "in SQL; the DataFrame API's from_avro and to_avro over Spark Connect are supported", []string{
		"from_avro", "schema_of_avro", "to_avro"}},
	{"protobuf", "Protobuf", "Atlas reads no Protobuf descriptors", []string{"from_protobuf", "to_protobuf"}},
	{"st", "spatial (ST)", "Atlas has no GEOMETRY or GEOGRAPHY type", []string{
		"st_asbinary", "st_geogfromwkb", "st_geomfromwkb", "st_setsrid", "st_srid"}},
	{"vector", "vector", "not implemented yet", []string{
		"vector_avg", "vector_cosine_similarity", "vector_inner_product", "vector_l2_distance", "vector_norm",
		"vector_normalize", "vector_sum"}},
}

// refusedDefs defines the function groups Atlas refuses by name (variant, xml, avro, protobuf, spatial, vector), each with a message naming the function and its group.
func refusedDefs() []*Def {
	var out []*Def
	for _, g := range refusedGroups {
		for _, n := range g.names {
			err := &RefusedError{Name: n, Group: g.label, Reason: g.reason}
			out = append(out, &Def{Name: n, Group: g.group, MaxArgs: -1,
				Build: func(string, []expr.Expr) (expr.Expr, error) { return nil, err }})
		}
	}
	return out
}

// RefusedError is Spark's UNSUPPORTED_FEATURE for a built-in function of
// a group Atlas does not implement.
type RefusedError struct {
	// Name is the function, Group its group, Reason why Atlas lacks it.
	Name, Group, Reason string
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("[UNSUPPORTED_FEATURE] Atlas does not implement Spark's %s functions: %s (%s). SQLSTATE: 0A000", e.Group, e.Name, e.Reason)
}

// IsRefused tells whether err is (or wraps) a RefusedError.
func IsRefused(err error) bool {
	_, ok := errors.AsType[*RefusedError](err)
	return ok
}
