package expr

import (
	"fmt"
	"regexp"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"

	"github.com/atlas-lakehouse/atlas/atlas/internal/javaregex"
)

// StrToMap is Spark's str_to_map(text, pairDelim, keyValueDelim): text
// split into pairs at pairDelim, each pair into a key and a value at the
// first keyValueDelim (a NULL value when there is none). Both delimiters
// are Java regular expressions, as in Spark (String.split). A NULL
// argument gives NULL.
type StrToMap struct{ Text, PairDelim, KeyValueDelim Expr }

func (e *StrToMap) String() string {
	return "str_to_map(" + joinExprs([]Expr{e.Text, e.PairDelim, e.KeyValueDelim}) + ")"
}

// Bind resolves the three arguments as strings.
func (e *StrToMap) Bind(s *arrow.Schema) (Bound, error) {
	args, err := bindStrings([]Expr{e.Text, e.PairDelim, e.KeyValueDelim}, s, "str_to_map")
	if err != nil {
		return nil, err
	}
	return &strToMapBound{args: args}, nil
}

var strMapType = arrow.MapOf(arrow.BinaryTypes.String, arrow.BinaryTypes.String)

type strToMapBound struct{ args []Bound }

func (b *strToMapBound) Type() arrow.DataType { return strMapType }
func (b *strToMapBound) Nullable() bool       { return true }
func (b *strToMapBound) Eval(c *Ctx, rec arrow.RecordBatch) (arrow.Array, error) {
	cols := make([]arrow.Array, 0, 3)
	defer func() {
		for _, a := range cols {
			a.Release()
		}
	}()
	for _, a := range b.args {
		v, err := a.Eval(c, rec)
		if err != nil {
			return nil, err
		}
		cols = append(cols, v)
	}
	text, pd, kd := cols[0].(*array.String), cols[1].(*array.String), cols[2].(*array.String)
	res := map[string]*regexp.Regexp{}
	compile := func(p string) (*regexp.Regexp, error) {
		if re, ok := res[p]; ok {
			return re, nil
		}
		re, err := javaregex.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("str_to_map: delimiter %q: %w", p, err)
		}
		res[p] = re
		return re, nil
	}
	n := text.Len()
	keys, vals := array.NewStringBuilder(c.Mem), array.NewStringBuilder(c.Mem)
	defer keys.Release()
	defer vals.Release()
	offsets, valid := make([]int32, n+1), make([]bool, n)
	for i := 0; i < n; i++ {
		offsets[i+1] = offsets[i]
		if text.IsNull(i) || pd.IsNull(i) || kd.IsNull(i) {
			continue
		}
		pairRE, err := compile(pd.Value(i))
		if err != nil {
			return nil, err
		}
		kvRE, err := compile(kd.Value(i))
		if err != nil {
			return nil, err
		}
		valid[i] = true
		for _, pair := range javaSplit(pairRE, text.Value(i), -1) {
			kv := javaSplit(kvRE, pair, 2)
			keys.Append(kv[0])
			if len(kv) == 2 {
				vals.Append(kv[1])
			} else {
				vals.AppendNull()
			}
			offsets[i+1]++
		}
	}
	k, v := keys.NewArray(), vals.NewArray()
	defer k.Release()
	defer v.Release()
	return newMap(c, strMapType, offsets, valid, k, v)
}

// javaSplit is Java's String.split(regex, limit) for limit -1 or > 0: a
// zero-width match at the start makes no leading empty string, and the
// whole string is one part when nothing matches.
func javaSplit(re *regexp.Regexp, s string, limit int) []string {
	var out []string
	last := 0
	for _, m := range re.FindAllStringIndex(s, -1) {
		if limit > 0 && len(out) == limit-1 {
			break
		}
		if m[1] == 0 {
			continue
		}
		out = append(out, s[last:m[0]])
		last = m[1]
	}
	return append(out, s[last:])
}
