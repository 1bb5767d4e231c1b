package parser

import (
	"encoding/hex"
	"strconv"
	"strings"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/numfmt"
)

// String returns Spark's name for the column: its last part.
func (e *ColumnRef) String() string { return render(e, true) }

// SQL returns the reference with every part, quoted as needed.
func (e *ColumnRef) SQL() string { return render(e, false) }

// String returns the literal as Spark names it: strings without quotes.
func (e *Literal) String() string { return render(e, true) }

// SQL returns the literal as SQL text.
func (e *Literal) SQL() string { return render(e, false) }

// String returns Spark's name, such as (a + 1) or concat(a, b) for a || b.
func (e *Binary) String() string { return render(e, true) }

// SQL returns the operation as parenthesised SQL text.
func (e *Binary) SQL() string { return render(e, false) }

// String returns Spark's name, such as (- x) or (NOT x).
func (e *Unary) String() string { return render(e, true) }

// SQL returns the operation as parenthesised SQL text.
func (e *Unary) SQL() string { return render(e, false) }

// String returns Spark's name, such as (x IS NOT NULL).
func (e *IsNull) String() string { return render(e, true) }

// SQL returns the predicate as parenthesised SQL text.
func (e *IsNull) SQL() string { return render(e, false) }

// String returns Spark's name, such as (x IN (1, 2)).
func (e *In) String() string { return render(e, true) }

// SQL returns the predicate as parenthesised SQL text.
func (e *In) SQL() string { return render(e, false) }

// String returns Spark's name: ((x >= low) AND (x <= high)).
func (e *Between) String() string { return render(e, true) }

// SQL returns the predicate as parenthesised SQL text.
func (e *Between) SQL() string { return render(e, false) }

// String returns Spark's name, such as x LIKE a%.
func (e *Like) String() string { return render(e, true) }

// SQL returns the predicate as parenthesised SQL text.
func (e *Like) SQL() string { return render(e, false) }

// String returns Spark's name, such as CAST(x AS INT).
func (e *Cast) String() string { return render(e, true) }

// SQL returns the cast as SQL text.
func (e *Cast) SQL() string { return render(e, false) }

// String returns Spark's name: CASE WHEN ... THEN ... ELSE ... END, with
// CASE x WHEN v written as CASE WHEN (x = v).
func (e *Case) String() string { return render(e, true) }

// SQL returns the CASE as SQL text.
func (e *Case) SQL() string { return render(e, false) }

// String returns Spark's name of the arm: WHEN cond THEN result.
func (e *When) String() string {
	var b strings.Builder
	(&printer{b: &b, pretty: true}).when(e, nil)
	return b.String()
}

// String returns Spark's name: the function name in lower case and its
// arguments, count(1) for count(*).
func (e *Call) String() string { return render(e, true) }

// SQL returns the call as SQL text.
func (e *Call) SQL() string { return render(e, false) }

// String returns * or qualifier.*.
func (e *Star) String() string { return render(e, true) }

// SQL returns * or qualifier.* with the qualifier quoted as needed.
func (e *Star) SQL() string { return render(e, false) }

func render(e Expr, pretty bool) string {
	var b strings.Builder
	(&printer{b: &b, pretty: pretty}).expr(e)
	return b.String()
}

// CallNamer names a function call's result column from the call's name
// (lower case) and its arguments' names, or returns ok=false to keep the
// default name(arg, ...).
type CallNamer func(name string, args []string) (string, bool)

// NameWith is e.String() with namer consulted on every function call, so
// that the planner's function registry decides the names of the calls it
// defines (split(s, re, -1), (IF(c, a, b))) wherever they are nested.
func NameWith(e Expr, namer CallNamer) string {
	var b strings.Builder
	(&printer{b: &b, pretty: true, namer: namer}).expr(e)
	return b.String()
}

// printer writes expressions either as Spark's column names (pretty) or as
// SQL text that parses back to the same tree. Both parenthesise every
// operation, as Spark's names do.
type printer struct {
	b      *strings.Builder
	pretty bool
	namer  CallNamer
	// lambdaVars are the parameters of the lambdas being written.
	lambdaVars []string
}

func (p *printer) w(ss ...string) {
	for _, s := range ss {
		p.b.WriteString(s)
	}
}

func (p *printer) list(es []Expr) {
	for i, e := range es {
		if i > 0 {
			p.w(", ")
		}
		p.expr(e)
	}
}

func (p *printer) expr(e Expr) {
	switch e := e.(type) {
	case nil:
		p.w("<nil>")
	case *ColumnRef:
		if p.pretty && p.isLambdaVar(e) {
			p.w("namedlambdavariable()")
			return
		}
		if p.pretty {
			if len(e.Parts) > 0 {
				p.w(e.Parts[len(e.Parts)-1])
			}
			return
		}
		p.w(quoteParts(e.Parts))
	case *Literal:
		p.literal(e)
	case *Binary:
		p.binary(e)
	case *Unary:
		switch e.Op {
		case "NOT":
			p.w("(NOT ")
		case "~":
			if p.pretty {
				// Spark names BitwiseNot without parentheses: ~0.
				p.w("~")
				p.expr(e.X)
				return
			}
			p.w("(~")
		default:
			// A space keeps "- -5" from reading as a comment; parentheses
			// keep "-(5)" from folding into the literal -5.
			p.w("(", e.Op, " ")
			if lit, ok := e.X.(*Literal); ok && !p.pretty && lit.Text != "" {
				p.w("(")
				p.expr(e.X)
				p.w("))")
				return
			}
		}
		p.expr(e.X)
		p.w(")")
	case *IsNull:
		p.w("(")
		p.expr(e.X)
		if e.Not {
			p.w(" IS NOT NULL)")
		} else {
			p.w(" IS NULL)")
		}
	case *In:
		p.w("(")
		if e.Not && p.pretty {
			p.w("NOT (")
		}
		p.expr(e.X)
		if e.Not && !p.pretty {
			p.w(" NOT")
		}
		p.w(" IN (")
		p.list(e.List)
		p.w("))")
		if e.Not && p.pretty {
			p.w(")")
		}
	case *Between:
		p.between(e)
	case *Like:
		p.like(e)
	case *Cast:
		if e.Try {
			p.w("TRY_CAST(")
		} else {
			p.w("CAST(")
		}
		p.expr(e.X)
		p.w(" AS ", p.typeName(e.Type), ")")
	case *Case:
		p.caseExpr(e)
	case *Call:
		p.call(e)
	case *Lambda:
		p.lambda(e)
	case *Star:
		if len(e.Qualifier) > 0 {
			p.w(quoteParts(e.Qualifier), ".")
		}
		p.w("*")
	default:
		p.w("<?>")
	}
}

func (p *printer) binary(e *Binary) {
	if p.pretty {
		switch e.Op {
		case "||":
			p.w("concat(")
			p.expr(e.L)
			p.w(", ")
			p.expr(e.R)
			p.w(")")
			return
		case "<>":
			p.w("(NOT (")
			p.expr(e.L)
			p.w(" = ")
			p.expr(e.R)
			p.w("))")
			return
		}
	}
	p.w("(")
	p.expr(e.L)
	p.w(" ", e.Op, " ")
	p.expr(e.R)
	p.w(")")
}

func (p *printer) between(e *Between) {
	if p.pretty {
		// Spark 4 names it after its Between expression: between(x, low, high).
		if e.Not {
			p.w("(NOT ")
		}
		p.w("between(")
		p.expr(e.X)
		p.w(", ")
		p.expr(e.Low)
		p.w(", ")
		p.expr(e.High)
		p.w(")")
		if e.Not {
			p.w(")")
		}
		return
	}
	p.w("(")
	p.expr(e.X)
	if e.Not {
		p.w(" NOT")
	}
	p.w(" BETWEEN ")
	p.expr(e.Low)
	p.w(" AND ")
	p.expr(e.High)
	p.w(")")
}

func (p *printer) like(e *Like) {
	if p.pretty {
		if e.Not {
			p.w("(NOT ")
		}
		if p.namer != nil {
			// Named by the function the planner calls: x LIKE p,
			// ilike(x, p), RLIKE(x, p).
			p.call(e.Call())
		} else {
			p.expr(e.X)
			p.w(" ", e.Op, " ")
			p.expr(e.Pattern)
		}
		if e.Not {
			p.w(")")
		}
		return
	}
	p.w("(")
	p.expr(e.X)
	if e.Not {
		p.w(" NOT")
	}
	p.w(" ", e.Op, " ")
	p.expr(e.Pattern)
	if e.Escape != nil {
		p.w(" ESCAPE ")
		p.expr(e.Escape)
	}
	p.w(")")
}

// Call returns the function call evaluating the comparison, without its
// NOT: like(x, pattern[, escape]), ilike(...) or rlike(x, pattern).
func (e *Like) Call() *Call {
	args := []Expr{e.X, e.Pattern}
	if e.Escape != nil {
		args = append(args, e.Escape)
	}
	return &Call{Name: strings.ToLower(e.Op), Args: args, At: e.At}
}

func (p *printer) caseExpr(e *Case) {
	p.w("CASE")
	if e.Operand != nil && !p.pretty {
		p.w(" ")
		p.expr(e.Operand)
	}
	for _, wh := range e.Whens {
		p.w(" ")
		if p.pretty {
			p.when(wh, e.Operand)
		} else {
			p.when(wh, nil)
		}
	}
	if e.Else != nil {
		p.w(" ELSE ")
		p.expr(e.Else)
	}
	p.w(" END")
}

// when writes one arm; with an operand, the condition is written as
// (operand = cond), as Spark names the simple CASE form.
func (p *printer) when(wh *When, operand Expr) {
	p.w("WHEN ")
	if operand != nil {
		p.w("(")
		p.expr(operand)
		p.w(" = ")
		p.expr(wh.Cond)
		p.w(")")
	} else {
		p.expr(wh.Cond)
	}
	p.w(" THEN ")
	p.expr(wh.Result)
}

func (p *printer) call(e *Call) {
	if len(e.WithinGroup) > 0 && p.pretty && p.namer != nil && p.withinGroupName(e) {
		p.over(e)
		return
	}
	p.callHead(e)
	if len(e.WithinGroup) > 0 {
		p.w(" WITHIN GROUP (ORDER BY ")
		for i, o := range e.WithinGroup {
			if i > 0 {
				p.w(", ")
			}
			p.orderItem(o)
		}
		p.w(")")
	}
	p.over(e)
}

func (p *printer) callHead(e *Call) {
	if p.pretty && p.namer != nil && !e.Star {
		args := make([]string, len(e.Args))
		for i, a := range e.Args {
			var b strings.Builder
			(&printer{b: &b, pretty: true, namer: p.namer, lambdaVars: p.lambdaVars}).expr(a)
			args[i] = b.String()
		}
		lower := strings.ToLower(e.Name)
		if name, ok := p.namer(lower, args); ok {
			switch {
			case !e.Distinct:
				p.w(name)
				return
			case strings.HasPrefix(name, lower+"("):
				// f(DISTINCT x, ...): the namer's name with DISTINCT.
				p.w(lower, "(DISTINCT ", name[len(lower)+1:])
				return
			}
		}
	}
	if p.pretty {
		p.w(strings.ToLower(e.Name), "(")
	} else {
		p.w(quoteIdent(e.Name), "(")
	}
	if e.Distinct {
		p.w("DISTINCT ")
	}
	switch {
	case e.Star && p.pretty:
		p.w("1")
	case e.Star:
		p.w("*")
	case e.ArgNames != nil:
		p.namedArgs(e)
	default:
		p.list(e.Args)
		if p.pretty && len(e.Args) == 2 && isPercentileApprox(e.Name) {
			// Spark's name shows the default accuracy:
			// percentile_approx(x, 0.5, 10000).
			p.w(", 10000")
		}
	}
	p.w(")")
}

func isPercentileApprox(name string) bool {
	n := strings.ToLower(name)
	return n == "percentile_approx" || n == "approx_percentile"
}

// typeName renders a cast's type: upper case for Spark names, with a few
// synonyms mapped to Spark's spelling (integer → INT).
func (p *printer) typeName(t string) string {
	if !p.pretty {
		return t
	}
	switch t {
	case "integer":
		t = "int"
	case "long":
		t = "bigint"
	case "short":
		t = "smallint"
	case "byte":
		t = "tinyint"
	case "real":
		t = "float"
	}
	return strings.ToUpper(t)
}

func (p *printer) literal(e *Literal) {
	switch e.Kind {
	case NullLiteral:
		p.w("NULL")
	case BoolLiteral:
		if v, _ := e.Value.(bool); v {
			p.w("true")
		} else {
			p.w("false")
		}
	case StringLiteral:
		s, _ := e.Value.(string)
		if p.pretty {
			p.w(s)
		} else {
			p.w(quoteString(s))
		}
	case TimestampLiteral:
		t, _ := e.Value.(time.Time)
		if !p.pretty && t.Location() != time.UTC {
			// With its offset, so that a parser of another zone, or the
			// repeated hour of a change to winter time, reads it back.
			p.w("TIMESTAMP '", t.Format("2006-01-02 15:04:05.999999999Z07:00"), "'")
			break
		}
		p.w("TIMESTAMP '", formatTimestamp(t), "'")
	case TimestampNTZLiteral:
		t, _ := e.Value.(time.Time)
		p.w("TIMESTAMP_NTZ '", t.UTC().Format("2006-01-02 15:04:05.999999999"), "'")
	case DateLiteral:
		t, _ := e.Value.(time.Time)
		p.w("DATE '", t.Format("2006-01-02"), "'")
	case YearMonthIntervalLiteral:
		m, _ := e.Value.(int64)
		p.w(YearMonthText(m, e.Text))
	case IntervalLiteral:
		d, _ := e.Value.(time.Duration)
		p.w(formatInterval(d))
	case BinaryLiteral:
		b, _ := e.Value.([]byte)
		p.w("X'", strings.ToUpper(hex.EncodeToString(b)), "'")
	case TimeLiteral:
		s, _ := e.Value.(string)
		p.w("TIME ", quoteString(s))
	default:
		p.number(e)
	}
}

// number writes a numeric literal: its source text for SQL, and Spark's
// rendering of the value for names (no suffix, doubles with a fraction).
func (p *printer) number(e *Literal) {
	if !p.pretty && e.Text != "" {
		p.w(e.Text)
		return
	}
	switch v := e.Value.(type) {
	case int64:
		s := strconv.FormatInt(v, 10)
		if !p.pretty {
			s += map[LiteralKind]string{BigIntLiteral: "L", SmallIntLiteral: "S", TinyIntLiteral: "Y"}[e.Kind]
		}
		p.w(s)
	case float64:
		if e.Kind == DecimalLiteral && e.Text != "" {
			t := strings.TrimRight(strings.ToUpper(e.Text), "BD")
			for p.pretty && len(t) > 1 && t[0] == '0' && t[1] >= '0' && t[1] <= '9' {
				t = t[1:] // Spark names 01.5 as the decimal's digits: 1.5
			}
			if !p.pretty && !strings.Contains(t, ".") {
				t += "BD" // 2BD and DECIMAL '2' stay decimals when read back
			}
			p.w(t)
			return
		}
		s := strconv.FormatFloat(v, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eEIN") {
			s += ".0"
		}
		if p.pretty && (e.Kind == DoubleLiteral || e.Kind == FloatLiteral) {
			// Spark names a double by Java's Double.toString (1.0E10),
			// a float by Float.toString.
			bits := 64
			if e.Kind == FloatLiteral {
				bits = 32
			}
			s = numfmt.JavaFloat(v, bits)
		}
		if !p.pretty {
			s += map[LiteralKind]string{DoubleLiteral: "D", FloatLiteral: "F", DecimalLiteral: "BD"}[e.Kind]
		}
		p.w(s)
	default:
		p.w("NULL")
	}
}

// quoteString renders s as a single-quoted SQL string literal.
func quoteString(s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for _, r := range s {
		switch r {
		case '\'':
			b.WriteString("''")
		case '\\':
			b.WriteString(`\\`)
		case '\n':
			b.WriteString(`\n`)
		case '\r':
			b.WriteString(`\r`)
		case '\t':
			b.WriteString(`\t`)
		case 0:
			b.WriteString(`\0`)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

// formatTimestamp writes t as yyyy-MM-dd HH:mm:ss[.fraction] in its own
// location (the session time zone of the parser that read it).
func formatTimestamp(t time.Time) string {
	return t.Format("2006-01-02 15:04:05.999999999")
}

// intervalUnits are the units an interval is written in, largest first.
var intervalUnits = []struct {
	name string
	d    time.Duration
}{
	{"DAY", 24 * time.Hour}, {"HOUR", time.Hour}, {"MINUTE", time.Minute},
	{"SECOND", time.Second}, {"MILLISECOND", time.Millisecond}, {"MICROSECOND", time.Microsecond},
}

// formatInterval writes d as INTERVAL 'n' UNIT in the largest unit that
// divides it exactly.
func formatInterval(d time.Duration) string {
	for _, u := range intervalUnits {
		if d%u.d == 0 {
			return "INTERVAL '" + strconv.FormatInt(int64(d/u.d), 10) + "' " + u.name
		}
	}
	return "INTERVAL '" + strconv.FormatInt(int64(d), 10) + "' NANOSECOND"
}

func itoa(n int) string { return strconv.Itoa(n) }

// withinGroupName asks the namer to name an ordered-set aggregate: the
// name "<fn> within group", the arguments' names (the first prefixed by
// "DISTINCT " for f(DISTINCT ...)), then "WITHIN GROUP" and
// each key's name (with " DESC" when descending, then " NULLS FIRST" or
// " NULLS LAST" when written).
func (p *printer) withinGroupName(e *Call) bool {
	var args []string
	name := func(x Expr) string {
		var b strings.Builder
		(&printer{b: &b, pretty: true, namer: p.namer}).expr(x)
		return b.String()
	}
	for _, a := range e.Args {
		args = append(args, name(a))
	}
	if e.Distinct && len(args) > 0 {
		args[0] = "DISTINCT " + args[0]
	}
	args = append(args, "WITHIN GROUP")
	for _, o := range e.WithinGroup {
		k := name(o.Expr)
		if o.Desc {
			k += " DESC"
		}
		switch o.Nulls {
		case NullsFirst:
			k += " NULLS FIRST"
		case NullsLast:
			k += " NULLS LAST"
		}
		args = append(args, k)
	}
	n, ok := p.namer(strings.ToLower(e.Name)+" within group", args)
	if ok {
		p.w(n)
	}
	return ok
}

// orderItem writes one key of WITHIN GROUP (ORDER BY ...) as written.
func (p *printer) orderItem(o *OrderItem) {
	p.expr(o.Expr)
	if o.Desc {
		p.w(" DESC")
	}
	switch o.Nulls {
	case NullsFirst:
		p.w(" NULLS FIRST")
	case NullsLast:
		p.w(" NULLS LAST")
	}
}
