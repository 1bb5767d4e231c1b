package functions

import (
	"fmt"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// assertDefs are assert_true and raise_error. Spark rewrites
// assert_true(c, msg) into if(c, NULL, raise_error(msg)), so a false or
// NULL condition raises USER_RAISED_EXCEPTION; the default message is
// '<condition>' is not true!, which also names the result column. Both
// return NULL of Spark's void type.
func assertDefs() []*Def {
	return []*Def{
		{Name: "assert_true", Group: "misc", MinArgs: 1, MaxArgs: 2,
			ColumnName: func(n string, a []string) string {
				if len(a) == 1 {
					a = append(a, "'"+a[0]+"' is not true!")
				}
				return n + "(" + a[0] + ", " + a[1] + ")"
			},
			Build: func(called string, a []expr.Expr) (expr.Expr, error) {
				msg := "'" + a[0].String() + "' is not true!"
				return &rowCall{name: called, args: a, impl: &rowImpl{nullSafe: true, mayBeNull: true,
					resolve: func(in []arrow.DataType) ([]arrow.DataType, arrow.DataType, error) {
						if id := in[0].ID(); id != arrow.BOOL && id != arrow.NULL {
							return nil, nil, fmt.Errorf("[DATATYPE_MISMATCH.UNEXPECTED_INPUT_TYPE] the first parameter requires the \"BOOLEAN\" type, got %s", in[0])
						}
						want := []arrow.DataType{tBool}
						if len(in) == 2 {
							want = append(want, tString)
						}
						return want, arrow.Null, nil
					},
					eval: func(v []any) (any, error) {
						if v[0] == true {
							return nil, nil
						}
						m := msg
						if len(v) == 2 {
							m = fmt.Sprint(v[1])
						}
						return nil, userRaised(m)
					}}}, nil
			}},
		{Name: "raise_error", Group: "misc", MinArgs: 1, MaxArgs: 1,
			ColumnName: func(n string, a []string) string {
				return n + "(USER_RAISED_EXCEPTION, map(errorMessage, " + a[0] + "))"
			},
			Build: rowBuild(&rowImpl{nullSafe: true, mayBeNull: true, resolve: sig(arrow.Null, tString), eval: func(v []any) (any, error) {
				if v[0] == nil {
					return nil, userRaised("null")
				}
				return nil, userRaised(v[0].(string))
			}})},
	}
}

// userRaised is Spark's USER_RAISED_EXCEPTION.
func userRaised(msg string) error {
	return fmt.Errorf("[USER_RAISED_EXCEPTION] %s SQLSTATE: P0001", msg)
}
