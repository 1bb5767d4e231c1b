package functions

import (
	"fmt"
	"math/bits"
	"os"
	"os/user"
	"runtime/debug"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// SparkVersion is the Spark version Atlas implements and reports (to
// Spark Connect clients and as version()).
const SparkVersion = "4.0.0"

// bitmapBits is the number of bits in one of Spark's bitmaps (4 KiB).
const bitmapBits = 32768

// miscDefs defines the misc group: session constants, bitmap positions, aes_* and the like.
func miscDefs() []*Def {
	named := func(col string) func(string, []string) string { return func(string, []string) string { return col } }
	return append([]*Def{
		constDef("current_catalog", "spark_catalog", named("current_catalog()")),
		constDef("current_database", "default", named("current_schema()"), "current_schema"),
		constDef("current_path", "system.builtin,system.session,spark_catalog.default", named("current_path()")),
		constDef("input_file_name", "", named("input_file_name()")),
		constDef("input_file_block_start", int64(-1), named("input_file_block_start()")),
		constDef("input_file_block_length", int64(-1), named("input_file_block_length()")),
		constDef("spark_partition_id", int32(0), named("SPARK_PARTITION_ID()")),
		constDef("version", SparkVersion+" "+atlasRevision(), named("version()")),
		{Name: "current_user", Aliases: []string{"user", "session_user"}, Group: "misc", ColumnName: func(n string, _ []string) string { return n + "()" },
			Build: func(string, []expr.Expr) (expr.Expr, error) { return expr.Lit(sparkUser()), nil }},
		row("uuid", "misc", 0, 0, &rowImpl{resolve: sig(tString), eval: func([]any) (any, error) { return uuid.NewString(), nil }}),
		{Name: "monotonically_increasing_id", Group: "misc", Build: func(string, []expr.Expr) (expr.Expr, error) { return &monotonicID{}, nil }},
		row("bitmap_bit_position", "misc", 1, 1, &rowImpl{resolve: integral(tLong), eval: func(v []any) (any, error) {
			n := v[0].(int64)
			if n > 0 {
				return (n - 1) % bitmapBits, nil
			}
			return (-n) % bitmapBits, nil
		}}),
		row("bitmap_bucket_number", "misc", 1, 1, &rowImpl{resolve: integral(tLong), eval: func(v []any) (any, error) {
			n := v[0].(int64)
			if n > 0 {
				return 1 + (n-1)/bitmapBits, nil
			}
			return n / bitmapBits, nil
		}}),
		row("bitmap_count", "misc", 1, 1, &rowImpl{resolve: binaryOnly(tLong), eval: func(v []any) (any, error) {
			n := 0
			for _, b := range v[0].([]byte) {
				n += bits.OnesCount8(b)
			}
			return int64(n), nil
		}}),
		reflectDef("reflect", false, "java_method"),
		reflectDef("try_reflect", true),
	}, append(aesDefs(), assertDefs()...)...)
}

// constDef is a function of no arguments with a constant value.
func constDef(name string, v any, col func(string, []string) string, aliases ...string) *Def {
	return &Def{Name: name, Aliases: aliases, Group: "misc", ColumnName: col,
		Build: func(string, []expr.Expr) (expr.Expr, error) { return expr.Lit(v), nil }}
}

// sparkUser is Spark's Utils.getCurrentUserName: SPARK_USER, else the
// user the server runs as.
func sparkUser() string {
	if u := os.Getenv("SPARK_USER"); u != "" {
		return u
	}
	if u, err := user.Current(); err == nil {
		return u.Username
	}
	return ""
}

// atlasRevision is the VCS revision Atlas was built from (Spark's
// version() gives its git revision after the version number).
func atlasRevision() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return "unknown"
}

// integral casts an integral argument (or NULL) to BIGINT and refuses
// any other type, as Spark's bitmap functions do.
func integral(out arrow.DataType) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if !isIntegral(in[0]) && in[0].ID() != arrow.NULL {
			return nil, nil, fmt.Errorf("requires an integral argument, got %s", in[0])
		}
		return []arrow.DataType{tLong}, out, nil
	}
}

// binaryOnly takes a BINARY argument (or NULL) and nothing else.
func binaryOnly(out arrow.DataType) func([]arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
	return func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
		if in[0].ID() != arrow.BINARY && in[0].ID() != arrow.NULL {
			return nil, nil, fmt.Errorf("requires a BINARY argument, got %s", in[0])
		}
		return []arrow.DataType{tBinary}, out, nil
	}
}
