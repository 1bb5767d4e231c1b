// Package parser is the syntax front end of Atlas SQL: it turns the Spark SQL
// subset the notebooks use into an abstract syntax tree, and nothing more.
// Binding names to catalogs, tables and columns, checking types and building
// plans belong to the planner, which walks the tree this package returns.
//
// The dialect follows Spark SQL's default parser settings
// (spark.sql.ansi.enforceReservedKeywords off, also under Spark 4's ANSI mode):
// keywords are case-insensitive, identifiers keep the case they were written
// in, `backticks` quote identifiers, both '...' and "..." are string
// literals, and words that Spark does not reserve (count, window, start, end,
// event, timestamp, date, key, value, partition, offset, ...) may name
// columns and tables wherever that is unambiguous.
//
// Supported statements:
//
//	CREATE [OR REPLACE] TABLE [IF NOT EXISTS] name [(col type [NOT NULL] [COMMENT '...'], ...)]
//	    [USING provider] [PARTITIONED BY (col | days(col) | bucket(n, col) | ...)]
//	    [COMMENT '...'] [LOCATION '...'] [TBLPROPERTIES ('k' = 'v', ...)] [AS SELECT ...]
//	CREATE NAMESPACE|SCHEMA|DATABASE [IF NOT EXISTS] name [COMMENT '...'] [LOCATION '...']
//	    [WITH DBPROPERTIES|PROPERTIES ('k' = 'v', ...)]
//	DROP TABLE [IF EXISTS] name [PURGE]
//	DROP NAMESPACE|SCHEMA|DATABASE [IF EXISTS] name [RESTRICT|CASCADE]
//	MERGE INTO target [AS] t USING source [AS] s ON cond
//	    WHEN MATCHED [AND cond] THEN UPDATE SET * | UPDATE SET col = expr, ... | DELETE
//	    WHEN NOT MATCHED [BY TARGET] [AND cond] THEN INSERT * | INSERT (cols) VALUES (exprs)
//	    WHEN NOT MATCHED BY SOURCE [AND cond] THEN UPDATE SET col = expr, ... | DELETE
//	SELECT [DISTINCT] items [FROM relation [joins]] [WHERE cond] [GROUP BY exprs]
//	    [HAVING cond] [WINDOW name AS (spec), ...]
//	    [ORDER BY expr [ASC|DESC] [NULLS FIRST|LAST], ...] [LIMIT n]
//	    where relation is name [VERSION AS OF v | TIMESTAMP AS OF ts] [[AS] alias]
//	    or (query) [[AS] alias], and joins are [INNER|LEFT|RIGHT|FULL [OUTER]|CROSS|
//	    LEFT SEMI|LEFT ANTI] JOIN relation [ON cond | USING (cols)], or a comma
//	INSERT INTO|OVERWRITE [TABLE] name [(cols)] VALUES (...), ... | SELECT ...
//	DELETE FROM name [[AS] alias] [WHERE cond]
//	UPDATE name [[AS] alias] SET col = expr, ... [WHERE cond]
//	SHOW TABLES [IN|FROM namespace] [LIKE 'pattern']
//	SHOW NAMESPACES|DATABASES|SCHEMAS [IN|FROM namespace] [LIKE 'pattern']
//	DESCRIBE|DESC [TABLE] [EXTENDED|FORMATTED] name
//	DESCRIBE|DESC HISTORY name
//
// A function call in an expression may carry a window (WindowSpec):
//
//	f(args) [IGNORE NULLS | RESPECT NULLS] OVER (spec) | OVER name
//	    spec: [PARTITION BY exprs] [ORDER BY expr [ASC|DESC] [NULLS FIRST|LAST], ...]
//	          [ROWS|RANGE BETWEEN bound AND bound | ROWS|RANGE bound]
//	    bound: UNBOUNDED PRECEDING | UNBOUNDED FOLLOWING | CURRENT ROW | expr PRECEDING|FOLLOWING
//
// OVER name refers to the query's WINDOW clause, whose definition the
// parser substitutes; a name no WINDOW clause defines is an error
// (MISSING_WINDOW_SPECIFICATION).
//
// Parse reads one statement, ParseScript several separated by semicolons,
// ParseExpr a lone expression (DataFrame.Where) and ParseSelectItem an
// expression with an optional alias (DataFrame.SelectExpr); Inspect walks
// an expression tree.
//
// Every node records the Position where its text starts. Syntax errors are
// *Error values that name the line and column, what was expected and what
// was found, quote the source line with a caret under the column, and give a
// hint for common mistakes.
package parser
