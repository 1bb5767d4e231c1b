package functions

import (
	"crypto/md5"
	"crypto/sha1"
	"crypto/sha256"
	"crypto/sha512"
	"encoding/hex"
	"fmt"
	"hash/crc32"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// hashDefs defines the hash group: md5, sha, sha1, sha2, crc32, hash (Murmur3) and xxhash64.
func hashDefs() []*Def {
	digest := func(name string, sum func([]byte) []byte, aliases ...string) *Def {
		return row(name, "hash", 1, 1, &rowImpl{resolve: sig(tString, tBinary), eval: func(v []any) (any, error) {
			return hex.EncodeToString(sum(v[0].([]byte))), nil
		}}, aliases...)
	}
	return []*Def{
		digest("md5", func(b []byte) []byte { s := md5.Sum(b); return s[:] }),
		digest("sha1", func(b []byte) []byte { s := sha1.Sum(b); return s[:] }, "sha"),
		row("sha2", "hash", 2, 2, &rowImpl{resolve: sig(tString, tBinary, tInt), mayBeNull: true, eval: func(v []any) (any, error) {
			return sha2(v[0].([]byte), v[1].(int64)), nil
		}}),
		row("crc32", "hash", 1, 1, &rowImpl{resolve: sig(tLong, tBinary), eval: func(v []any) (any, error) {
			return int64(crc32.ChecksumIEEE(v[0].([]byte))), nil
		}}),
		seededHash("hash", murmur3Func, tInt),
		seededHash("xxhash64", xxhash64Func, tLong),
	}
}

// sha2 is Spark's sha2: the hex SHA-2 digest of bitLength 224, 256 (or
// 0), 384 or 512, NULL for any other length.
func sha2(b []byte, bitLength int64) any {
	var sum []byte
	switch bitLength {
	case 224:
		s := sha256.Sum224(b)
		sum = s[:]
	case 0, 256:
		s := sha256.Sum256(b)
		sum = s[:]
	case 384:
		s := sha512.Sum384(b)
		sum = s[:]
	case 512:
		s := sha512.Sum512(b)
		sum = s[:]
	default:
		return nil
	}
	return hex.EncodeToString(sum)
}

// sparkHashSeed is the seed of Spark's hash and xxhash64.
const sparkHashSeed = 42

// seededHash defines hash or xxhash64: every argument hashed in turn,
// each result the seed of the next, from 42.
func seededHash(name string, f hashFunc, out arrow.DataType) *Def {
	return &Def{Name: name, Group: "hash", MinArgs: 1, MaxArgs: -1, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
		return &hashCall{name: called, args: a, f: f, out: out}, nil
	}}
}

// hashCall is a call of hash or xxhash64.
type hashCall struct {
	name string
	args []expr.Expr
	f    hashFunc
	out  arrow.DataType
}

func (c *hashCall) String() string {
	names := make([]string, len(c.args))
	for i, a := range c.args {
		names[i] = a.String()
	}
	n, _ := ColumnName(c.name, names)
	return n
}

// Bind binds the arguments; Spark refuses maps (their hash depends on
// the order of their entries).
func (c *hashCall) Bind(s *arrow.Schema) (expr.Bound, error) {
	args := make([]expr.Bound, len(c.args))
	for i, a := range c.args {
		b, err := a.Bind(s)
		if err != nil {
			return nil, err
		}
		if hasMap(b.Type()) {
			return nil, fmt.Errorf("[DATATYPE_MISMATCH.HASH_MAP_TYPE] Cannot resolve \"%s\" due to data type mismatch: Input to the function `%s` cannot contain elements of the \"MAP\" type. In Spark, same maps may have different hashcode, thus hash expressions are prohibited on \"MAP\" elements. To restore previous behavior set \"spark.sql.legacy.allowHashOnMapType\" to \"true\". SQLSTATE: 42K09", c, c.name)
		}
		args[i] = b
	}
	return &hashBound{call: c, args: args}, nil
}

func hasMap(t arrow.DataType) bool {
	switch t := t.(type) {
	case *arrow.MapType:
		return true
	case arrow.ListLikeType:
		return hasMap(t.Elem())
	case *arrow.StructType:
		for _, f := range t.Fields() {
			if hasMap(f.Type) {
				return true
			}
		}
	}
	return false
}

type hashBound struct {
	call *hashCall
	args []expr.Bound
}

func (b *hashBound) Type() arrow.DataType { return b.call.out }

// Nullable is false: NULL arguments are skipped, so the hash is never NULL.
func (b *hashBound) Nullable() bool { return false }

// Eval hashes every row's arguments.
func (b *hashBound) Eval(c *expr.Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, len(b.args))
	defer func() {
		for _, a := range cols {
			if a != nil {
				a.Release()
			}
		}
	}()
	for i, a := range b.args {
		arr, err := a.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		cols[i] = arr
	}
	mem := c.Mem
	if mem == nil {
		mem = memory.DefaultAllocator
	}
	bld := array.NewBuilder(mem, b.call.out)
	defer bld.Release()
	for r := 0; r < int(rec.NumRows()); r++ {
		h := uint64(sparkHashSeed)
		for _, col := range cols {
			var err error
			if h, err = b.call.f.value(col, r, h); err != nil {
				return nil, fmt.Errorf("%s: %w", b.call, err)
			}
		}
		switch bb := bld.(type) {
		case *array.Int32Builder:
			bb.Append(int32(uint32(h)))
		case *array.Int64Builder:
			bb.Append(int64(h))
		}
	}
	return bld.NewArray(), nil
}
