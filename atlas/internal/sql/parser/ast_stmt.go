package parser

// Statement is one SQL statement. String renders it as SQL text that parses
// back to the same tree.
type Statement interface {
	Node
	String() string
	stmtNode()
}

// Name is a dotted multi-part name of a table or namespace, such as
// lakehouse.silver.orders: Parts as written, backticks removed.
type Name struct {
	Parts []string
	At    Position
}

// Pos returns where the name starts.
func (n *Name) Pos() Position { return n.At }

// String renders the name as SQL, quoting parts that need backticks.
func (n *Name) String() string { return quoteParts(n.Parts) }

// Property is one 'key' = 'value' pair of TBLPROPERTIES or DBPROPERTIES.
// Value is the text of a string literal, or the spelling of a number or
// boolean.
type Property struct {
	Key, Value string
	At         Position
}

// Pos returns where the property's key starts.
func (p *Property) Pos() Position { return p.At }

// ColumnDef is one column of CREATE TABLE: Name Type [NOT NULL] [COMMENT].
// Type is written as for Cast.Type.
type ColumnDef struct {
	Name    string
	Type    string
	NotNull bool
	Comment string
	At      Position
}

// Pos returns where the column definition starts.
func (c *ColumnDef) Pos() Position { return c.At }

// PartitionField is one entry of PARTITIONED BY: a column (Transform
// "identity") or a transform of one, Transform being the function name in
// lower case as written: years/year, months/month, days/day/date,
// hours/hour/date_hour, bucket or truncate. Width is the bucket count or
// truncation width (0 for the others).
type PartitionField struct {
	Transform string
	Column    string
	Width     int
	At        Position
}

// Pos returns where the partition field starts.
func (f *PartitionField) Pos() Position { return f.At }

// String renders the field the way Spark and the lakehouse package write
// it: col, days(col), bucket(16, col), truncate(4, col).
func (f *PartitionField) String() string {
	switch f.Transform {
	case "identity":
		return quoteIdent(f.Column)
	case "bucket", "truncate":
		return f.Transform + "(" + itoa(f.Width) + ", " + quoteIdent(f.Column) + ")"
	}
	return f.Transform + "(" + quoteIdent(f.Column) + ")"
}

// CreateTable is CREATE [OR REPLACE] TABLE [IF NOT EXISTS] Name (columns)
// [USING Provider] [PARTITIONED BY (...)] [COMMENT] [LOCATION]
// [TBLPROPERTIES (...)] [AS query]. Columns is empty for CREATE TABLE AS
// SELECT without a column list; Provider keeps the case it was written in
// and is empty when USING is absent.
type CreateTable struct {
	OrReplace    bool
	IfNotExists  bool
	Name         *Name
	Columns      []*ColumnDef
	Provider     string
	Partitioning []*PartitionField
	Comment      string
	Location     string
	Properties   []*Property
	AsSelect     *Select
	At           Position
}

// DropTable is DROP TABLE [IF EXISTS] Name [PURGE].
type DropTable struct {
	IfExists bool
	Name     *Name
	Purge    bool
	At       Position
}

// CreateNamespace is CREATE NAMESPACE|SCHEMA|DATABASE [IF NOT EXISTS] Name
// [COMMENT] [LOCATION] [WITH DBPROPERTIES (...)].
type CreateNamespace struct {
	IfNotExists bool
	Name        *Name
	Comment     string
	Location    string
	Properties  []*Property
	At          Position
}

// DropNamespace is DROP NAMESPACE|SCHEMA|DATABASE [IF EXISTS] Name
// [RESTRICT|CASCADE].
type DropNamespace struct {
	IfExists bool
	Name     *Name
	Cascade  bool
	At       Position
}

// Relation is a source of rows in FROM, MERGE USING, UPDATE and DELETE:
// *TableRef, *SubqueryRef or *Join.
type Relation interface {
	Node
	String() string
	relationNode()
}

// TableRef is a table or temporary view by name, with an optional alias
// ("" when none). In a FROM clause it may carry Iceberg time travel:
// VERSION AS OF v (a snapshot id or a tag/branch name) sets Version,
// TIMESTAMP AS OF ts sets Timestamp; both are nil otherwise.
type TableRef struct {
	Name      *Name
	Version   Expr
	Timestamp Expr
	Alias     string
	At        Position
}

// SubqueryRef is a parenthesised query used as a relation, with an optional
// alias ("" when none).
type SubqueryRef struct {
	Query *Select
	Alias string
	At    Position
}

// JoinType is the kind of a join.
type JoinType string

// The join kinds.
const (
	InnerJoin JoinType = "INNER"
	LeftJoin  JoinType = "LEFT"
	RightJoin JoinType = "RIGHT"
	FullJoin  JoinType = "FULL"
	CrossJoin JoinType = "CROSS"
	SemiJoin  JoinType = "LEFT SEMI"
	AntiJoin  JoinType = "LEFT ANTI"
)

// Join is Left [Type] JOIN Right [ON On | USING (Using)]. A comma between
// relations in FROM is a CROSS join. On and Using are both empty for CROSS
// joins.
type Join struct {
	Type  JoinType
	Left  Relation
	Right Relation
	On    Expr
	Using []string
	// Comma tells a cross join written as a comma of the FROM list
	// (FROM a, b), which binds more loosely than JOIN.
	Comma bool
	At    Position
}

// SelectItem is one entry of a select list: an expression (a *Star for *
// and t.*) and its alias ("" when none).
type SelectItem struct {
	Expr  Expr
	Alias string
	At    Position
}

// Pos returns where the item starts.
func (s *SelectItem) Pos() Position { return s.At }

// NullOrder says where ORDER BY puts nulls.
type NullOrder int

// The null orderings. NullsDefault is Spark's default: first when
// ascending, last when descending.
const (
	NullsDefault NullOrder = iota
	NullsFirst
	NullsLast
)

// OrderItem is one ORDER BY key.
type OrderItem struct {
	Expr  Expr
	Desc  bool
	Nulls NullOrder
	At    Position
}

// Pos returns where the key starts.
func (o *OrderItem) Pos() Position { return o.At }

// Select is a query: [WITH With] SELECT [DISTINCT] Items [FROM From]
// [WHERE Where] [GROUP BY GroupBy] [HAVING Having] [UNION [ALL] ...]
// [ORDER BY OrderBy] [LIMIT Limit]. Absent clauses are nil or empty; From
// is nil for SELECT without FROM. With SetOps, the query is this SELECT's
// rows combined with each further query's in turn, and OrderBy and Limit
// apply to the combined rows, as in Spark.
type Select struct {
	With     []*CTE
	Distinct bool
	Items    []*SelectItem
	From     Relation
	Where    Expr
	GroupBy  []Expr
	Having   Expr
	SetOps   []*SetOp
	OrderBy  []*OrderItem
	Limit    Expr
	At       Position
}

// CTE is one common table expression of WITH: Name AS (Query).
type CTE struct {
	Name  string
	Query *Select
	At    Position
}

// Pos returns where the CTE's name starts.
func (c *CTE) Pos() Position { return c.At }

// SetOp is one UNION [ALL | DISTINCT] Query of a compound query. All is
// false for UNION and UNION DISTINCT, which keep distinct rows.
type SetOp struct {
	All   bool
	Query *Select
	At    Position
}

// Pos returns where the UNION keyword is.
func (o *SetOp) Pos() Position { return o.At }

// MergeMatch says which rows a WHEN clause of MERGE applies to.
type MergeMatch int

// The WHEN clause kinds.
const (
	// WhenMatched is WHEN MATCHED: a target row with a matching source row.
	WhenMatched MergeMatch = iota
	// WhenNotMatched is WHEN NOT MATCHED [BY TARGET]: a source row with no
	// matching target row.
	WhenNotMatched
	// WhenNotMatchedBySource is WHEN NOT MATCHED BY SOURCE: a target row
	// with no matching source row.
	WhenNotMatchedBySource
)

// String renders the clause head: WHEN MATCHED, WHEN NOT MATCHED or WHEN
// NOT MATCHED BY SOURCE.
func (m MergeMatch) String() string {
	switch m {
	case WhenMatched:
		return "WHEN MATCHED"
	case WhenNotMatched:
		return "WHEN NOT MATCHED"
	case WhenNotMatchedBySource:
		return "WHEN NOT MATCHED BY SOURCE"
	}
	return "WHEN ?"
}

// MergeAction is what a WHEN clause does.
type MergeAction int

// The actions of a WHEN clause.
const (
	// UpdateAll is UPDATE SET *: every target column from the source
	// column of the same name.
	UpdateAll MergeAction = iota
	// UpdateSet is UPDATE SET col = expr, ...
	UpdateSet
	// DeleteRow is DELETE.
	DeleteRow
	// InsertAll is INSERT *: a new row from the source columns.
	InsertAll
	// InsertValues is INSERT (cols) VALUES (exprs).
	InsertValues
)

// Assignment is Column = Value in UPDATE SET.
type Assignment struct {
	Column *ColumnRef
	Value  Expr
	At     Position
}

// Pos returns where the assignment starts.
func (a *Assignment) Pos() Position { return a.At }

// MergeClause is one WHEN clause of MERGE: Match [AND Cond] THEN Action.
// Set holds the assignments of UpdateSet; Columns and Values (of equal
// length) those of InsertValues.
type MergeClause struct {
	Match   MergeMatch
	Cond    Expr
	Action  MergeAction
	Set     []*Assignment
	Columns []*ColumnRef
	Values  []Expr
	At      Position
}

// Pos returns where the clause's WHEN starts.
func (c *MergeClause) Pos() Position { return c.At }

// Merge is MERGE INTO Target USING Source ON On followed by its WHEN
// clauses in the order written (the first clause whose condition holds
// applies). Source is a *TableRef or a *SubqueryRef. The parser checks
// Spark's rules: at least one clause, every clause but the last of each
// kind has a condition, and each kind only takes its allowed actions.
type Merge struct {
	Target  *TableRef
	Source  Relation
	On      Expr
	Clauses []*MergeClause
	At      Position
}

// ShowTables is SHOW TABLES [IN|FROM Namespace] [LIKE 'Pattern'].
// Namespace is nil and Pattern "" when absent.
type ShowTables struct {
	Namespace *Name
	Pattern   string
	At        Position
}

// ShowNamespaces is SHOW NAMESPACES|DATABASES|SCHEMAS [IN|FROM Parent]
// [LIKE 'Pattern'].
type ShowNamespaces struct {
	Parent  *Name
	Pattern string
	At      Position
}

// DescribeKind says what DESCRIBE shows.
type DescribeKind int

// The kinds of DESCRIBE.
const (
	// DescribeTable is DESCRIBE [TABLE] name: the columns.
	DescribeTable DescribeKind = iota
	// DescribeHistory is DESCRIBE HISTORY name: the table's snapshots.
	DescribeHistory
)

// Describe is DESCRIBE [TABLE] [EXTENDED] Name or DESCRIBE HISTORY Name.
// Extended also covers FORMATTED.
type Describe struct {
	Kind     DescribeKind
	Extended bool
	Name     *Name
	At       Position
}

// Insert is INSERT INTO|OVERWRITE [TABLE] Table [(Columns)] followed by
// VALUES Rows or a Query (exactly one of the two is set). Columns is empty
// when no column list is written.
type Insert struct {
	Table     *Name
	Overwrite bool
	Columns   []*ColumnRef
	Rows      [][]Expr
	Query     *Select
	At        Position
}

// Delete is DELETE FROM Table [WHERE Where].
type Delete struct {
	Table *TableRef
	Where Expr
	At    Position
}

// Update is UPDATE Table SET Set [WHERE Where].
type Update struct {
	Table *TableRef
	Set   []*Assignment
	Where Expr
	At    Position
}

// Pos returns where the statement starts.
func (s *CreateTable) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *DropTable) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *CreateNamespace) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *DropNamespace) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *Merge) Pos() Position { return s.At }

// Pos returns where the SELECT keyword is.
func (s *Select) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *ShowTables) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *ShowNamespaces) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *Describe) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *Insert) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *Delete) Pos() Position { return s.At }

// Pos returns where the statement starts.
func (s *Update) Pos() Position { return s.At }

// Pos returns where the relation starts.
func (r *TableRef) Pos() Position { return r.At }

// Pos returns where the relation's opening parenthesis is.
func (r *SubqueryRef) Pos() Position { return r.At }

// Pos returns where the join's left relation starts.
func (r *Join) Pos() Position { return r.At }

func (*CreateTable) stmtNode()     {}
func (*DropTable) stmtNode()       {}
func (*CreateNamespace) stmtNode() {}
func (*DropNamespace) stmtNode()   {}
func (*Merge) stmtNode()           {}
func (*Select) stmtNode()          {}
func (*ShowTables) stmtNode()      {}
func (*ShowNamespaces) stmtNode()  {}
func (*Describe) stmtNode()        {}
func (*Insert) stmtNode()          {}
func (*Delete) stmtNode()          {}
func (*Update) stmtNode()          {}
func (*CallProcedure) stmtNode()   {}

func (*TableRef) relationNode()    {}
func (*SubqueryRef) relationNode() {}
func (*Join) relationNode()        {}

// CallProcedure is CALL catalog.system.procedure(args), Iceberg's stored
// procedures in Spark SQL (rewrite_data_files, expire_snapshots). An
// argument is named (name => value) or positional.
type CallProcedure struct {
	Procedure *Name
	Args      []ProcedureArg
	At        Position
}

// ProcedureArg is one argument of CALL; Name is "" for a positional one.
type ProcedureArg struct {
	Name  string
	Value Expr
	At    Position
}

// Pos returns where the statement starts.
func (s *CallProcedure) Pos() Position { return s.At }

// ValuesRef is an inline table: VALUES (1, 'a'), (2, 'b') [[AS] t(a, b)],
// in FROM or as a query of its own. Rows all have the same number of
// expressions; Columns is empty when no column list was written (Spark
// names them col1, col2, ...).
type ValuesRef struct {
	Rows    [][]Expr
	Alias   string
	Columns []string
	At      Position
}

// Pos returns where VALUES starts.
func (r *ValuesRef) Pos() Position { return r.At }

func (*ValuesRef) relationNode() {}
