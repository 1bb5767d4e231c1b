package functions_test

import (
	"strings"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/functions"
)

// TestHashFunctions checks the hash group against published values:
// the digests' standard test vectors (RFC 1321, FIPS 180), CRC-32 of
// 'ABC' as Spark's HashExpressionsSuite has it, and Murmur3/XXH64 values
// Spark returns (its documentation for hash('Spark', array(123), 2);
// for the rest, the values Velox's Spark-compatibility tests record from
// spark-sql). NULL arguments: NULL for the digests, skipped by the
// seeded hashes (so hash(NULL) is the seed, 42).
func TestHashFunctions(t *testing.T) {
	for e, want := range map[string]string{
		"md5('')":                                "d41d8cd98f00b204e9800998ecf8427e",
		"md5('abc')":                             "900150983cd24fb0d6963f7d28e17f72",
		"md5(NULL)":                              "NULL",
		"sha1('abc')":                            "a9993e364706816aba3e25717850c26c9cd0d89d",
		"sha('abc')":                             "a9993e364706816aba3e25717850c26c9cd0d89d",
		"sha2('abc', 224)":                       "23097d223405d8228642a477bda255b32aadbce4bda0b3f7e36c9da7",
		"sha2('abc', 0)":                         "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"sha2('abc', 256)":                       "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
		"sha2('abc', 384)":                       "cb00753f45a35e8bb5a03d699ac65007272c32ab0eded1631a8b605a43ff5bed8086072ba1e7cc2358baeca134c825a7",
		"sha2('abc', 512)":                       "ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f",
		"sha2('abc', 1)":                         "NULL",
		"sha2('abc', NULL)":                      "NULL",
		"crc32('ABC')":                           "2743272264",
		"crc32('')":                              "0",
		"crc32(NULL)":                            "NULL",
		"hash('Spark', array(123), 2)":           "-1321691492",
		"xxhash64('Spark', array(123), 2)":       "5602566077635097486",
		"hash('Spark')":                          "228093765",
		"hash('')":                               "142593372",
		"hash('abcdefghijklmnopqrstuvwxyz')":     "-1990933474",
		"hash('12345678')":                       "2036199019",
		"hash(NULL)":                             "42",
		"hash(NULL, 0)":                          "933211791",
		"hash('', 0)":                            "1143746540",
		"hash(1)":                                "-559580957",
		"hash(0)":                                "933211791",
		"hash(-1)":                               "-1604776387",
		"hash(CAST(1 AS TINYINT))":               "-559580957",
		"hash(CAST(-1 AS SMALLINT))":             "-1604776387",
		"hash(true)":                             "-559580957",
		"hash(false)":                            "933211791",
		"hash(1L)":                               "-1712319331",
		"hash(0L)":                               "-1670924195",
		"hash(-1L)":                              "-939490007",
		"hash(9223372036854775807L)":             "-1604625029",
		"hash(CAST(0.0 AS DOUBLE))":              "-1670924195",
		"hash(CAST(-0.0 AS DOUBLE))":             "-1670924195",
		"hash(CAST(1 AS DOUBLE))":                "-460888942",
		"hash(CAST('NaN' AS DOUBLE))":            "-1281358385",
		"hash(CAST('Infinity' AS DOUBLE))":       "833680482",
		"hash(CAST(1 AS FLOAT))":                 "-466301895",
		"hash(CAST(-0.0 AS FLOAT))":              "933211791",
		"hash(CAST('NaN' AS FLOAT))":             "-349261430",
		"xxhash64('Spark')":                      "-4294468057691064905",
		"xxhash64('')":                           "-7444071767201028348",
		"xxhash64('abcdefghijklmnopqrstuvwxyz')": "-3265757659154784300",
		"xxhash64('12345678')":                   "6863040065134489090",
		"xxhash64('12345678djdejidecjjeijcneknceincne')": "-633855189410948723",
		"xxhash64(NULL)":                  "42",
		"xxhash64(1L)":                    "-7001672635703045582",
		"xxhash64(0L)":                    "-5252525462095825812",
		"xxhash64(-1L)":                   "3858142552250413010",
		"xxhash64(-9223372036854775808L)": "-8619748838626508300",
		"xxhash64(CAST(12345678 AS DECIMAL(38, 0)))":  "4541350547708072824",
		"xxhash64(CAST(-12345678 AS DECIMAL(38, 0)))": "-7692719129258511951",
		"xxhash64(CAST(0 AS DECIMAL(38, 0)))":         "-8959994473701255385",
	} {
		got, err := one(t, e)
		if err != nil {
			t.Errorf("%s: %v", e, err)
			continue
		}
		if got != want {
			t.Errorf("%s = %s, want %s", e, got, want)
		}
	}
}

// TestHashRefusesMaps checks Spark's HASH_MAP_TYPE refusal, for a map
// column and a map inside an array.
func TestHashRefusesMaps(t *testing.T) {
	m := arrow.MapOf(arrow.PrimitiveTypes.Int32, arrow.PrimitiveTypes.Int32)
	schema := arrow.NewSchema([]arrow.Field{{Name: "m", Type: m}, {Name: "am", Type: arrow.ListOf(m)}}, nil)
	for _, c := range []struct{ fn, col string }{{"hash", "m"}, {"xxhash64", "am"}} {
		e, err := functions.Call(c.fn, []expr.Expr{expr.Col(c.col)})
		if err == nil {
			_, err = e.Bind(schema)
		}
		if err == nil || !strings.Contains(err.Error(), "[DATATYPE_MISMATCH.HASH_MAP_TYPE]") || !strings.Contains(err.Error(), "SQLSTATE: 42K09") {
			t.Errorf("%s(%s): want HASH_MAP_TYPE, got %v", c.fn, c.col, err)
		}
	}
}
