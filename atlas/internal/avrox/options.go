package avrox

import (
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Metric names: values from_avro could not read, counted in PERMISSIVE
// mode and reported among a batch's observed metrics.
const (
	// MetricMalformed counts values whose payload is not a valid Avro
	// encoding of the schema (or whose frame header is not the expected
	// one).
	MetricMalformed = "numMalformedAvroRecords"
	// MetricUnknownSchema counts framed values whose schema fingerprint
	// (single-object encoding) or schema id (Confluent) is not the reader
	// schema's: records of another contract, never projected.
	MetricUnknownSchema = "numUnknownAvroSchemaRecords"
)

// Framing is how a value carries its writer schema.
type Framing int

const (
	// Bare values are Avro binary alone, as Spark's from_avro reads.
	Bare Framing = iota
	// SingleObject values start with C3 01 and the 8-byte little-endian
	// CRC-64-AVRO fingerprint of the writer schema.
	SingleObject
	// Confluent values start with a 0 byte and a 4-byte big-endian schema
	// registry id.
	Confluent
)

// Options are from_avro's options.
type Options struct {
	// Permissive makes values that cannot be read null (and counted)
	// instead of failing the query (Spark's mode PERMISSIVE; FAILFAST is
	// the default, as in Spark).
	Permissive bool
	Framing    Framing
	// SchemaID is the Confluent schema id values must carry.
	SchemaID uint32
}

// ValidOptions lists the option names ParseOptions accepts.
var ValidOptions = []string{"mode", "framing", "schemaId"}

// ParseOptions reads from_avro's options map: mode (FAILFAST or
// PERMISSIVE), and the Atlas options framing ("none", "single-object",
// "confluent") and schemaId (with framing "confluent"). Names match
// case-insensitively.
func ParseOptions(opts map[string]string) (Options, error) {
	var o Options
	keys := make([]string, 0, len(opts))
	for k := range opts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	idSet := false
	for _, k := range keys {
		v := strings.TrimSpace(opts[k])
		switch strings.ToLower(k) {
		case "mode":
			switch strings.ToUpper(v) {
			case "FAILFAST":
				o.Permissive = false
			case "PERMISSIVE":
				o.Permissive = true
			default:
				return o, fmt.Errorf("from_avro: option mode must be FAILFAST or PERMISSIVE, got %q", v)
			}
		case "framing":
			switch strings.ToLower(v) {
			case "none", "":
				o.Framing = Bare
			case "single-object", "single_object", "singleobject":
				o.Framing = SingleObject
			case "confluent":
				o.Framing = Confluent
			default:
				return o, fmt.Errorf("from_avro: option framing must be none, single-object or confluent, got %q", v)
			}
		case "schemaid":
			n, err := strconv.ParseUint(v, 10, 32)
			if err != nil {
				return o, fmt.Errorf("from_avro: option schemaId must be a schema registry id (a non-negative 32-bit number), got %q", v)
			}
			o.SchemaID, idSet = uint32(n), true
		default:
			return o, fmt.Errorf("from_avro: unknown option %q; valid options: %s", k, strings.Join(ValidOptions, ", "))
		}
	}
	if o.Framing == Confluent && !idSet {
		return o, fmt.Errorf("from_avro: framing confluent needs the option schemaId, the registry id of the schema given")
	}
	if o.Framing != Confluent && idSet {
		return o, fmt.Errorf("from_avro: option schemaId applies only with framing confluent")
	}
	return o, nil
}
