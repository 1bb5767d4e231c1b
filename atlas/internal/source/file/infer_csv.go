package file

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// inferred is a step of Spark's CSV type inference (CSVInferSchema), in
// the order it tries them.
type inferred int

const (
	infNull inferred = iota
	infInt
	infLong
	infDouble
	infDate
	infTimestamp
	infBool
	infString
)

// InferCSVSchema is the schema Spark's spark.read.csv gives with
// inferSchema=true: the columns of the first line of the first file (named
// by it when header is set), each of the narrowest type every value of
// every file parses as, tried in Spark's order (CSVInferSchema) int,
// bigint, double, date (yyyy-MM-dd, Spark's preferDate default), timestamp
// (as CAST(s AS TIMESTAMP) reads it), boolean, else string. Numbers widen
// to the wider number; dates and timestamps mixed, or any other mix, are
// strings. Values equal to nullValue ("" by default) do not count; a
// column of none is a string. One departure: an integer beyond bigint is
// a double, where Spark infers decimal(p, 0) (Atlas's inference does not make decimals yet).
func InferCSVSchema(paths []string, opts map[string]string) (*arrow.Schema, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("csv source: inferSchema found no file to infer from: give the schema with Schema(\"a int, b string\")")
	}
	schema, err := CSVStringSchema(paths[0], opts)
	if err != nil {
		return nil, err
	}
	ro, err := parseReadOptions("csv", opts, false)
	if err != nil {
		return nil, err
	}
	seen := make([]inferred, schema.NumFields())
	for _, p := range paths {
		if err := inferCSVFile(p, ro, seen); err != nil {
			return nil, err
		}
	}
	fields := schema.Fields()
	for i := range fields {
		fields[i].Type = seen[i].arrow()
	}
	return arrow.NewSchema(fields, nil), nil
}

func inferCSVFile(path string, ro readOptions, seen []inferred) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("csv source: %w", err)
	}
	defer f.Close()
	cr := csv.NewReader(f)
	cr.Comma, cr.Comment, cr.FieldsPerRecord, cr.LazyQuotes = ro.sep, ro.comment, -1, true
	for first := true; ; first = false {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("csv source: %s: %w", path, err)
		}
		if first && ro.header {
			continue
		}
		for i, v := range rec {
			if i < len(seen) && v != ro.nullValue {
				seen[i] = mergeCSV(seen[i], inferCSVField(seen[i], v, ro))
			}
		}
	}
}

// inferCSVField is Spark's inferField: the type of v, tried from the type
// so far onwards.
func inferCSVField(sofar inferred, v string, ro readOptions) inferred {
	for t := max(sofar, infInt); t < infString; t++ {
		if csvParses(t, v, ro) {
			return t
		}
	}
	return infString
}

func csvParses(t inferred, v string, ro readOptions) bool {
	switch t {
	case infInt:
		_, err := strconv.ParseInt(v, 10, 32)
		return err == nil
	case infLong:
		_, err := strconv.ParseInt(v, 10, 64)
		return err == nil
	case infDouble:
		if v == ro.nanValue || v == ro.posInf || v == ro.negInf {
			return true
		}
		return javaDouble(v)
	case infDate:
		_, err := time.Parse("2006-01-02", v)
		return err == nil
	case infTimestamp:
		_, ok := expr.ParseSparkTimestamp(v)
		return ok
	case infBool:
		return strings.EqualFold(v, "true") || strings.EqualFold(v, "false")
	}
	return false
}

// mergeCSV is Spark's compatibleType for CSV: numbers widen to the wider
// number, a type meets itself, anything else is a string.
func mergeCSV(a, b inferred) inferred {
	switch {
	case a == b || a == infNull:
		return b
	case b == infNull:
		return a
	case a <= infDouble && b <= infDouble:
		return max(a, b)
	}
	return infString
}

func (t inferred) arrow() arrow.DataType {
	switch t {
	case infInt:
		return arrow.PrimitiveTypes.Int32
	case infLong:
		return arrow.PrimitiveTypes.Int64
	case infDouble:
		return arrow.PrimitiveTypes.Float64
	case infDate:
		return arrow.FixedWidthTypes.Date32
	case infTimestamp:
		return types.Timestamp
	case infBool:
		return arrow.FixedWidthTypes.Boolean
	}
	return arrow.BinaryTypes.String
}

// javaDouble reports whether Java's Double.parseDouble reads v: Go's
// syntax, with surrounding spaces, a trailing d or f, and NaN and
// Infinity spelled as Java spells them.
func javaDouble(v string) bool {
	s := strings.TrimSpace(v)
	if n := len(s); n > 1 && strings.ContainsRune("dDfF", rune(s[n-1])) {
		s = s[:n-1]
	}
	switch strings.TrimLeft(s, "+-") {
	case "NaN", "Infinity":
		return true
	}
	if l := strings.ToLower(s); strings.Contains(l, "inf") || strings.Contains(l, "nan") {
		return false
	}
	_, err := strconv.ParseFloat(s, 64)
	return err == nil || errors.Is(err, strconv.ErrRange)
}
