package functions

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/atlas-lakehouse/atlas/atlas/internal/expr"
)

// javaStatic is one static Java method Atlas emulates for reflect:
// arity string arguments, the result (nil for Java's null) or the
// exception Java throws.
type javaStatic struct {
	arity int
	call  func(args []string) (any, error)
}

// javaStatics are the static methods reflect, java_method and
// try_reflect can call without a JVM: pure functions of their string
// arguments whose Java behaviour Atlas reproduces exactly.
var javaStatics = map[string]javaStatic{
	"java.util.UUID.fromString": {1, func(a []string) (any, error) { return javaUUIDFromString(a[0]) }},
	"java.util.UUID.randomUUID": {0, func([]string) (any, error) { return uuid.NewString(), nil }},
	"java.net.URLDecoder.decode": {1, func(a []string) (any, error) {
		if s, ok := javaURLDecode(a[0]); ok {
			return s, nil
		}
		return nil, fmt.Errorf("java.lang.IllegalArgumentException: URLDecoder: Illegal hex characters in escape (%%) pattern or incomplete trailing escape")
	}},
	"java.net.URLEncoder.encode": {1, func(a []string) (any, error) { return javaURLEncode(a[0]), nil }},
}

// reflectDef is reflect (and java_method): call a static Java method by
// name. Atlas has no JVM, so it emulates the methods in javaStatics and
// refuses any other with a message naming it; try_reflect returns NULL
// where the method throws.
func reflectDef(name string, try bool, aliases ...string) *Def {
	return &Def{Name: name, Aliases: aliases, Group: "misc", MinArgs: 2, MaxArgs: -1, Build: func(called string, a []expr.Expr) (expr.Expr, error) {
		class, err := stringLit(called, a, 0, "the class")
		if err != nil {
			return nil, err
		}
		method, err := stringLit(called, a, 1, "the method")
		if err != nil {
			return nil, err
		}
		m, ok := javaStatics[class+"."+method]
		if !ok || m.arity != len(a)-2 {
			return nil, fmt.Errorf("[UNSUPPORTED_FEATURE] The feature is not supported: Atlas runs no JVM, so `%s` cannot call %s.%s with %d arguments; it emulates only %s. SQLSTATE: 0A000",
				called, class, method, len(a)-2, strings.Join(javaStaticNames(), ", "))
		}
		return &rowCall{name: called, args: a, impl: &rowImpl{resolve: sig(tString, tString), nullSafe: true, mayBeNull: true, eval: func(v []any) (any, error) {
			args := make([]string, 0, len(v)-2)
			for _, x := range v[2:] {
				if x == nil {
					return nil, nil // Spark passes null, and every emulated method then throws or returns null
				}
				args = append(args, x.(string))
			}
			out, err := m.call(args)
			if err != nil {
				if try {
					return nil, nil
				}
				return nil, fmt.Errorf("%s.%s threw %w", class, method, err)
			}
			return out, nil
		}}}, nil
	}}
}

func javaStaticNames() []string {
	out := make([]string, 0, len(javaStatics))
	for n, m := range javaStatics {
		out = append(out, fmt.Sprintf("%s/%d", n, m.arity))
	}
	slices.Sort(out)
	return out
}

// javaUUIDFromString is java.util.UUID.fromString: five dash-separated
// hex fields (each Long.parseLong, so a sign is accepted), masked to
// 32-16-16-16-48 bits; the canonical lower-case form.
func javaUUIDFromString(s string) (any, error) {
	if len(s) > 36 {
		return nil, fmt.Errorf("java.lang.IllegalArgumentException: UUID string too large")
	}
	f := strings.Split(s, "-")
	if len(f) != 5 {
		return nil, fmt.Errorf("java.lang.IllegalArgumentException: Invalid UUID string: %s", s)
	}
	var v [5]uint64
	for i, x := range f {
		n, err := strconv.ParseInt(x, 16, 64)
		if err != nil {
			return nil, fmt.Errorf("java.lang.NumberFormatException: For input string: \"%s\"", x)
		}
		v[i] = uint64(n)
	}
	return fmt.Sprintf("%08x-%04x-%04x-%04x-%012x", v[0]&0xffffffff, v[1]&0xffff, v[2]&0xffff, v[3]&0xffff, v[4]&0xffffffffffff), nil
}
