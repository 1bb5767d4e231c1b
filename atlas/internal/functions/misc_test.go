package functions_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/atlas-lakehouse/atlas/atlas/internal/exec"
	"github.com/atlas-lakehouse/atlas/atlas/internal/plan"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql"
	sqlparser "github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// column runs a query and returns its first column's name, type and
// values (NULL for null).
func column(t *testing.T, query string) (name, typ string, vals []string, err error) {
	t.Helper()
	st, err := sqlparser.Parse(query)
	if err != nil {
		return "", "", nil, err
	}
	n, err := sql.PlanSelect(st.(*sqlparser.Select), func(*sqlparser.Name) (plan.Node, error) { return nil, nil })
	if err != nil {
		return "", "", nil, err
	}
	schema, recs, err := exec.Collect(context.Background(), n)
	if err != nil {
		return "", "", nil, err
	}
	for _, r := range recs {
		for i := 0; i < int(r.NumRows()); i++ {
			if c := r.Column(0); c.IsNull(i) || c.DataType().ID() == 0 {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, c.ValueStr(i))
			}
		}
		r.Release()
	}
	f := schema.Field(0)
	return f.Name, strings.ToLower(types.SQL(f.Type)), vals, nil
}

// TestMiscConstants checks the session functions against Spark's
// documented values and column names (current_database() is named
// current_schema(); spark_partition_id() upper case), with Atlas's one
// partition and no input files.
func TestMiscConstants(t *testing.T) {
	t.Setenv("SPARK_USER", "alice")
	for q, want := range map[string][3]string{
		"SELECT current_catalog()":         {"current_catalog()", "string", "spark_catalog"},
		"SELECT current_database()":        {"current_schema()", "string", "default"},
		"SELECT current_schema()":          {"current_schema()", "string", "default"},
		"SELECT current_path()":            {"current_path()", "string", "system.builtin,system.session,spark_catalog.default"},
		"SELECT spark_partition_id()":      {"SPARK_PARTITION_ID()", "int", "0"},
		"SELECT input_file_name()":         {"input_file_name()", "string", ""},
		"SELECT input_file_block_start()":  {"input_file_block_start()", "bigint", "-1"},
		"SELECT input_file_block_length()": {"input_file_block_length()", "bigint", "-1"},
		"SELECT current_user()":            {"current_user()", "string", "alice"},
		"SELECT session_user()":            {"session_user()", "string", "alice"},
		"SELECT user()":                    {"user()", "string", "alice"},
	} {
		name, typ, vals, err := column(t, q)
		if err != nil || name != want[0] || typ != want[1] || len(vals) != 1 || vals[0] != want[2] {
			t.Errorf("%s: %s %s %v, %v; want %v", q, name, typ, vals, err, want)
		}
	}
	if _, _, vals, err := column(t, "SELECT version()"); err != nil || !strings.HasPrefix(vals[0], "4.0.0 ") {
		t.Errorf("version() = %v, %v; want 4.0.0 and a revision", vals, err)
	}
}

// TestMonotonicAndUUID checks monotonically_increasing_id numbers rows
// from 0 in one partition, and uuid()/reflect's randomUUID give distinct
// version-4 UUIDs.
func TestMonotonicAndUUID(t *testing.T) {
	name, typ, vals, err := column(t, "SELECT monotonically_increasing_id() FROM VALUES (1), (2), (3) AS t(a)")
	if err != nil || name != "monotonically_increasing_id()" || typ != "bigint" || strings.Join(vals, ",") != "0,1,2" {
		t.Errorf("monotonically_increasing_id: %s %s %v, %v", name, typ, vals, err)
	}
	v4 := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)
	for _, q := range []string{"SELECT uuid() FROM VALUES (1), (2) AS t(a)", "SELECT reflect('java.util.UUID', 'randomUUID') FROM VALUES (1), (2) AS t(a)"} {
		_, _, vals, err := column(t, q)
		if err != nil || len(vals) != 2 || vals[0] == vals[1] || !v4.MatchString(vals[0]) || !v4.MatchString(vals[1]) {
			t.Errorf("%s: %v, %v; want two distinct random UUIDs", q, vals, err)
		}
	}
}

// TestBitmapFunctions checks Spark's documented examples and the
// bucket edges of BitmapExpressionUtils (32,768 bits a bucket: value v
// > 0 is bit (v-1) % 32768 of bucket 1 + (v-1) / 32768; v <= 0 is bit
// -v % 32768 of bucket v / 32768).
func TestBitmapFunctions(t *testing.T) {
	for e, want := range map[string]string{
		"bitmap_bit_position(1)":               "0",
		"bitmap_bit_position(123)":             "122",
		"bitmap_bit_position(32768)":           "32767",
		"bitmap_bit_position(32769)":           "0",
		"bitmap_bit_position(0)":               "0",
		"bitmap_bit_position(-1)":              "1",
		"bitmap_bit_position(-32768)":          "0",
		"bitmap_bit_position(NULL)":            "NULL",
		"bitmap_bucket_number(0)":              "0",
		"bitmap_bucket_number(123)":            "1",
		"bitmap_bucket_number(32768)":          "1",
		"bitmap_bucket_number(32769)":          "2",
		"bitmap_bucket_number(-1)":             "0",
		"bitmap_bucket_number(-32768)":         "-1",
		"bitmap_bucket_number(1099511627776L)": "33554432",
		"bitmap_count(X '0')":                  "0",
		"bitmap_count(X '1010')":               "2",
		"bitmap_count(X 'FFFF')":               "16",
		"bitmap_count(NULL)":                   "NULL",
	} {
		if got, err := one(t, e); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %s", e, got, err, want)
		}
	}
	for _, e := range []string{"bitmap_count('a')", "bitmap_bit_position(1.5)"} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), "DATATYPE_MISMATCH") {
			t.Errorf("%s: want DATATYPE_MISMATCH, got %v", e, err)
		}
	}
}

// TestAES checks aes_encrypt/aes_decrypt on Spark's documented examples
// (fixed ciphertexts for GCM, CBC and ECB), round trips with random IVs
// and their lengths (GCM: 12-byte IV + data + 16-byte tag; CBC: 16-byte
// IV + padded data), and Spark's errors; try_aes_decrypt's NULLs.
func TestAES(t *testing.T) {
	for e, want := range map[string]string{
		"aes_decrypt(unhex('83F16B2AA704794132802D248E6BFD4E380078182D1544813898AC97E709B28A94'), '0000111122223333')":                                                       "Spark",
		"aes_decrypt(unhex('6E7CA17BBB468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210'), '0000111122223333', 'GCM')":                                        "Spark SQL",
		"aes_decrypt(unbase64('3lmwu+Mw0H3fi5NDvcu9lg=='), '1234567890abcdef', 'ECB', 'PKCS')":                                                                               "Spark SQL",
		"aes_decrypt(unbase64('2NYmDCjgXTbbxGA3/SnJEfFC/JQ7olk2VQWReIAAFKo='), '1234567890abcdef', 'CBC')":                                                                   "Apache Spark",
		"aes_decrypt(unbase64('AAAAAAAAAAAAAAAAQiYi+sTLm7KD9UcZ2nlRdYDe/PX4'), 'abcdefghijklmnop12345678ABCDEFGH', 'GCM', 'DEFAULT', 'This is an AAD mixed into the input')": "Spark",
		"base64(aes_encrypt('Spark SQL', '1234567890abcdef', 'ECB', 'PKCS'))":                                                                                                "3lmwu+Mw0H3fi5NDvcu9lg==",
		"base64(aes_encrypt('Spark', 'abcdefghijklmnop12345678ABCDEFGH', 'CBC', 'DEFAULT', unhex('00000000000000000000000000000000')))":                                      "AAAAAAAAAAAAAAAAAAAAAPSd4mWyMZ5mhvjiAPQJnfg=",
		"base64(aes_encrypt('Spark', 'abcdefghijklmnop12345678ABCDEFGH', 'GCM', 'DEFAULT', unhex('000000000000000000000000'), 'This is an AAD mixed into the input'))":       "AAAAAAAAAAAAAAAAQiYi+sTLm7KD9UcZ2nlRdYDe/PX4",
		"aes_decrypt(aes_encrypt('round trip', 'abcdefghijklmnop12345678'), 'abcdefghijklmnop12345678')":                                                                     "round trip",
		"aes_decrypt(aes_encrypt('round trip', '1234567890abcdef', 'cbc'), '1234567890abcdef', 'cbc')":                                                                       "round trip",
		"length(aes_encrypt('Spark', '0000111122223333'))":                                                                                                                   "33",
		"length(aes_encrypt('Spark', '0000111122223333', 'CBC'))":                                                                                                            "32",
		"length(aes_encrypt('0123456789abcdef', '0000111122223333', 'ECB'))":                                                                                                 "32",
		"aes_encrypt(NULL, '0000111122223333')":                                                                                                                              "NULL",
		"try_aes_decrypt(unhex('83F16B2AA704794132802D248E6BFD4E380078182D1544813898AC97E709B28A94'), '0000111122223334')":                                                   "NULL",
		"try_aes_decrypt(unhex('----------468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210'), '0000111122223333', 'GCM')":                                    "NULL",
		"try_aes_decrypt(unhex('6E7CA17BBB468D3084B5744BCA729FB7B2B7BCB8E4472847D02670489D95FA97DBBA7D3210'), '0000111122223333', 'GCM')":                                    "Spark SQL",
		"try_aes_decrypt(X'00', 'short')": "NULL",
	} {
		if got, err := one(t, e); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", e, got, err, want)
		}
	}
	for e, want := range map[string]string{
		"aes_encrypt('Spark', 'short')":                                                                                "[INVALID_PARAMETER_VALUE.AES_KEY_LENGTH] The value of parameter(s) `key` in `aes_encrypt` is invalid: expects a binary value with 16, 24 or 32 bytes, but got 5 bytes. SQLSTATE: 22023",
		"aes_encrypt('Spark', '0000111122223333', 'CTR')":                                                              "[UNSUPPORTED_FEATURE.AES_MODE] The feature is not supported: AES-CTR with the padding DEFAULT by the `aes_encrypt` function. SQLSTATE: 0A000",
		"aes_encrypt('Spark', '0000111122223333', 'GCM', 'PKCS')":                                                      "[UNSUPPORTED_FEATURE.AES_MODE]",
		"aes_encrypt('Spark', '0000111122223333', 'ECB', 'PKCS', X'00')":                                               "[UNSUPPORTED_FEATURE.AES_MODE_IV]",
		"aes_encrypt('Spark', '0000111122223333', 'CBC', 'PKCS', '', 'aad')":                                           "[UNSUPPORTED_FEATURE.AES_MODE_AAD]",
		"aes_encrypt('Spark', '0000111122223333', 'CBC', 'PKCS', X'00')":                                               "[INVALID_PARAMETER_VALUE.AES_IV_LENGTH]",
		"aes_decrypt(unhex('83F16B2AA704794132802D248E6BFD4E380078182D1544813898AC97E709B28A94'), '0000111122223334')": "[INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR]",
		"aes_decrypt(unbase64('3lmwu+Mw0H3fi5NDvcu9lg=='), '1234567890abcdeX', 'ECB')":                                 "[INVALID_PARAMETER_VALUE.AES_CRYPTO_ERROR]",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %s, got %v", e, want, err)
		}
	}
}

// TestAssertAndRaise checks assert_true's NULL result and column name,
// and the USER_RAISED_EXCEPTION of a false or NULL condition and of
// raise_error, as Spark 4 words them.
func TestAssertAndRaise(t *testing.T) {
	name, typ, vals, err := column(t, "SELECT assert_true(0 < 1)")
	if err != nil || name != "assert_true((0 < 1), '(0 < 1)' is not true!)" || typ != "void" || len(vals) != 1 || vals[0] != "NULL" {
		t.Errorf("assert_true(0 < 1): %s %s %v, %v", name, typ, vals, err)
	}
	for e, want := range map[string]string{
		"assert_true(1 > 2)":                  "[USER_RAISED_EXCEPTION] '(1 > 2)' is not true! SQLSTATE: P0001",
		"assert_true(NULL)":                   "[USER_RAISED_EXCEPTION] 'NULL' is not true! SQLSTATE: P0001",
		"assert_true(false, 'custom')":        "[USER_RAISED_EXCEPTION] custom SQLSTATE: P0001",
		"raise_error('custom error message')": "[USER_RAISED_EXCEPTION] custom error message SQLSTATE: P0001",
	} {
		if _, err := one(t, e); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: want %s, got %v", e, want, err)
		}
	}
	if _, err := one(t, "assert_true(1)"); err == nil || !strings.Contains(err.Error(), "DATATYPE_MISMATCH") {
		t.Errorf("assert_true(1): want DATATYPE_MISMATCH, got %v", err)
	}
}

// TestReflect checks the emulated static methods against Java's
// behaviour (UUID.fromString canonicalises short fields: 1-1-1-1-1;
// URLDecoder throws on a bare %, so try_reflect is NULL) and the refusal
// of any other method, which names it.
func TestReflect(t *testing.T) {
	for e, want := range map[string]string{
		"reflect('java.util.UUID', 'fromString', 'a5cf6c42-0c85-418f-af6c-3e4e5b1328f2')":     "a5cf6c42-0c85-418f-af6c-3e4e5b1328f2",
		"java_method('java.util.UUID', 'fromString', 'A5CF6C42-0C85-418F-AF6C-3E4E5B1328F2')": "a5cf6c42-0c85-418f-af6c-3e4e5b1328f2",
		"reflect('java.util.UUID', 'fromString', '1-1-1-1-1')":                                "00000001-0001-0001-0001-000000000001",
		"try_reflect('java.net.URLDecoder', 'decode', '%')":                                   "NULL",
		"try_reflect('java.util.UUID', 'fromString', 'nope')":                                 "NULL",
		"reflect('java.net.URLDecoder', 'decode', 'a%20b+c')":                                 "a b c",
		"reflect('java.util.UUID', 'fromString', NULL)":                                       "NULL",
	} {
		if got, err := one(t, e); err != nil || got != want {
			t.Errorf("%s = %q, %v; want %q", e, got, err, want)
		}
	}
	_, err := one(t, "reflect('java.lang.Math', 'abs', 1)")
	if err == nil || !strings.Contains(err.Error(), "[UNSUPPORTED_FEATURE]") || !strings.Contains(err.Error(), "java.lang.Math.abs") || !strings.Contains(err.Error(), "SQLSTATE: 0A000") {
		t.Errorf("reflect of an unknown method: got %v", err)
	}
	if _, err := one(t, "reflect('java.util.UUID', 'fromString', 'nope')"); err == nil || !strings.Contains(err.Error(), "Invalid UUID string") {
		t.Errorf("reflect of a throwing method: got %v", err)
	}
}
