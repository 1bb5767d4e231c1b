package parser

// Expr is a scalar expression. String renders it the way Spark names an
// unaliased result column (sum(x), (a + 1), count(1) for count(*), column
// references without qualifiers, string literals without quotes); SQL
// renders it as SQL text that parses back to the same tree.
type Expr interface {
	Node
	String() string
	SQL() string
	exprNode()
}

// ColumnRef names a column, possibly qualified (t.a) or reaching into a
// struct (window.start): Parts as written, backticks removed. Telling a
// qualifier from a struct field is the planner's job.
type ColumnRef struct {
	Parts []string
	At    Position
}

// LiteralKind is the SQL type of a literal.
type LiteralKind int

// The literal kinds and the Go type of their Value.
const (
	NullLiteral              LiteralKind = iota // NULL; Value nil
	BoolLiteral                                 // TRUE, FALSE; Value bool
	IntLiteral                                  // 42 (fits 32 bits); Value int64
	BigIntLiteral                               // 10L, or an integer too big for 32 bits; Value int64
	SmallIntLiteral                             // 10S; Value int64
	TinyIntLiteral                              // 10Y; Value int64
	DecimalLiteral                              // 1.5, 2BD, or an integer too big for 64 bits; Value float64, Text exact
	DoubleLiteral                               // 1e3, 1.5D; Value float64
	FloatLiteral                                // 1.5F; Value float64
	StringLiteral                               // 'abc' or "abc"; Value string
	TimestampLiteral                            // TIMESTAMP '2026-11-30 10:00:00'; Value time.Time in UTC
	DateLiteral                                 // DATE '2026-11-30'; Value time.Time at midnight UTC
	IntervalLiteral                             // INTERVAL '5' MINUTES; Value time.Duration
	BinaryLiteral                               // X'0AFF'; Value []byte
	TimestampNTZLiteral                         // TIMESTAMP_NTZ '2026-11-30 10:00:00'; Value time.Time, the wall clock in UTC
	YearMonthIntervalLiteral                    // INTERVAL '1-2' YEAR TO MONTH; Value int64 months, Text its fields: YEAR, MONTH or YEAR TO MONTH
	TimeLiteral                                 // TIME '09:08:01.000001' (Spark 4.1's TIME type, which Atlas refuses); Value string, as written
)

var literalKindNames = [...]string{
	NullLiteral: "void", BoolLiteral: "boolean", IntLiteral: "int", BigIntLiteral: "bigint",
	SmallIntLiteral: "smallint", TinyIntLiteral: "tinyint", DecimalLiteral: "decimal",
	DoubleLiteral: "double", FloatLiteral: "float", StringLiteral: "string",
	TimestampLiteral: "timestamp", DateLiteral: "date", IntervalLiteral: "interval", BinaryLiteral: "binary",
	TimestampNTZLiteral: "timestamp_ntz", YearMonthIntervalLiteral: "interval year to month",
	TimeLiteral: "time",
}

// String returns the Spark type name of the kind (int, bigint, string, ...).
func (k LiteralKind) String() string {
	if k >= 0 && int(k) < len(literalKindNames) {
		return literalKindNames[k]
	}
	return "unknown"
}

// Literal is a constant. Value holds a Go value whose type follows Kind.
// Text keeps the source spelling of a numeric literal (with its sign when a
// minus was folded in), so a decimal keeps all its digits; it is empty for
// other kinds.
type Literal struct {
	Kind  LiteralKind
	Value any
	Text  string
	At    Position
}

// Binary is a binary operation. Op is one of OR, AND, = (also written ==),
// <> (also written !=), <, <=, >, >=, <=>, ||, +, -, *, /, %, &, |, ^.
type Binary struct {
	Op   string
	L, R Expr
	// OpAt is the position of the operator; At is that of L.
	OpAt Position
	At   Position
}

// Unary is a prefix operation: Op is NOT, - , + or ~. A minus directly
// before a number is folded into the number's Literal instead.
type Unary struct {
	Op string
	X  Expr
	At Position
}

// IsNull is X IS NULL, or X IS NOT NULL when Not is set.
type IsNull struct {
	X   Expr
	Not bool
	At  Position
}

// In is X IN (List...), or X NOT IN (...) when Not is set.
type In struct {
	X    Expr
	List []Expr
	Not  bool
	At   Position
}

// Between is X BETWEEN Low AND High (inclusive), or NOT BETWEEN.
type Between struct {
	X         Expr
	Low, High Expr
	Not       bool
	At        Position
}

// Like is X LIKE Pattern [ESCAPE 'c']; Op is LIKE, ILIKE
// (case-insensitive) or RLIKE (regular expression, also spelt REGEXP).
// Not negates it.
type Like struct {
	Op      string
	X       Expr
	Pattern Expr
	// Escape is the ESCAPE clause's character (a string literal), or nil.
	Escape Expr
	Not    bool
	At     Position
}

// Cast is CAST(X AS Type), or TRY_CAST when Try is set. Type is the type as
// written, in lower case with blanks removed: int, bigint, decimal(10,2),
// array<string>, map<string,int>, struct<a:int,b:string>.
type Cast struct {
	X    Expr
	Type string
	Try  bool
	At   Position
}

// Case is CASE [Operand] WHEN ... THEN ... [ELSE Else] END. Operand is nil
// for the searched form (CASE WHEN cond THEN ...); Else is nil when absent.
type Case struct {
	Operand Expr
	Whens   []*When
	Else    Expr
	At      Position
}

// When is one WHEN Cond THEN Result arm of a CASE.
type When struct {
	Cond   Expr
	Result Expr
	At     Position
}

// Call is a function call. Name is as written (function names are
// case-insensitive). Star marks count(*) (Args empty); Distinct marks
// count(DISTINCT x).
type Call struct {
	Name string
	Args []Expr
	// ArgNames name the arguments written as name => value: ArgNames[i]
	// is the name of Args[i], "" for a positional one; nil when every
	// argument is positional.
	ArgNames []string
	Distinct bool
	Star     bool
	// IgnoreNulls is IGNORE NULLS written after the call of a window
	// function (lag(x) IGNORE NULLS OVER ...).
	IgnoreNulls bool
	// Over is the window of a window function call, nil otherwise.
	Over *WindowSpec
	// WithinGroup is the ordering of an ordered-set aggregate:
	// percentile_cont(0.5) WITHIN GROUP (ORDER BY x), nil otherwise.
	WithinGroup []*OrderItem
	At          Position
}

// Star is * or qualifier.* in a select list.
type Star struct {
	Qualifier []string
	At        Position
}

// Pos returns where the expression starts.
func (e *ColumnRef) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Literal) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Binary) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Unary) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *IsNull) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *In) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Between) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Like) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Cast) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Case) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *When) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Call) Pos() Position { return e.At }

// Pos returns where the expression starts.
func (e *Star) Pos() Position { return e.At }

func (*ColumnRef) exprNode() {}
func (*Literal) exprNode()   {}
func (*Binary) exprNode()    {}
func (*Unary) exprNode()     {}
func (*IsNull) exprNode()    {}
func (*In) exprNode()        {}
func (*Between) exprNode()   {}
func (*Like) exprNode()      {}
func (*Cast) exprNode()      {}
func (*Case) exprNode()      {}
func (*Call) exprNode()      {}
func (*Star) exprNode()      {}
