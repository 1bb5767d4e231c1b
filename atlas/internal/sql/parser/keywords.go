package parser

import "strings"

// reserved holds the words that can never be a bare identifier: they begin
// or separate clauses, so reading them as names would be ambiguous. They may
// still name things inside backticks, and after a dot (t.order). Every other
// keyword (count, window, start, end, timestamp, date, key, value, partition,
// offset, table, ...) is an identifier wherever the grammar expects a name.
var reserved = map[string]bool{
	"ALL": true, "AND": true, "ANTI": true, "AS": true, "BETWEEN": true,
	"CASE": true, "CROSS": true, "DISTINCT": true, "ELSE": true,
	"EXCEPT": true, "FALSE": true, "FROM": true, "FULL": true, "GROUP": true,
	"HAVING": true, "IN": true, "INNER": true, "INTERSECT": true, "IS": true,
	"JOIN": true, "LATERAL": true, "LEFT": true, "LIKE": true, "LIMIT": true,
	"MINUS": true, "NATURAL": true, "NOT": true, "NULL": true, "ON": true,
	"OR": true, "ORDER": true, "OUTER": true, "RIGHT": true, "SELECT": true,
	"SEMI": true, "THEN": true, "TRUE": true, "UNION": true, "USING": true,
	"WHEN": true, "WHERE": true, "WITH": true,
}

// notAlias holds words that end a table reference in some statement, so an
// implicit alias (one written without AS) cannot be one of them.
var notAlias = map[string]bool{"SET": true}

// reservedFunctions are reserved words that are still function names when a
// parenthesis follows: left(s, 3), right(s, 3), like(s, '_park').
var reservedFunctions = map[string]bool{"LEFT": true, "RIGHT": true, "LIKE": true}

// literalWords begin a literal or a special form when followed by the right
// token; SQL text rendered by this package quotes them when they are names.
var literalWords = map[string]bool{
	"TIMESTAMP": true, "DATE": true, "INTERVAL": true, "CAST": true,
	"TRY_CAST": true, "END": true, "CURRENT_DATE": true, "CURRENT_TIMESTAMP": true,
	"TIME": true, "CURRENT_TIME": true,
}

// statementKeywords are the words a statement may start with, as listed in
// the error for an unknown statement.
var statementKeywords = []string{
	"SELECT", "CREATE", "DROP", "MERGE", "INSERT", "DELETE", "UPDATE", "SHOW", "DESCRIBE", "CALL", "SET", "RESET",
}

// supportedStatements is the list shown for an unknown statement keyword.
const supportedStatements = "SELECT, CREATE TABLE, CREATE OR REPLACE TABLE, CREATE NAMESPACE, DROP TABLE, DROP NAMESPACE, " +
	"MERGE INTO, INSERT INTO, DELETE FROM, UPDATE, SHOW TABLES, SHOW NAMESPACES, DESCRIBE, CALL, SET, RESET"

func isReserved(word string) bool {
	return reserved[strings.ToUpper(word)]
}

// quoteIdent renders a name so that the parser reads it back as the same
// name: bare when it is a plain word that is not a keyword, in backticks
// otherwise.
func quoteIdent(name string) string {
	plain := name != ""
	for i, r := range name {
		if !(r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (i > 0 && r >= '0' && r <= '9')) {
			plain = false
			break
		}
	}
	up := strings.ToUpper(name)
	if plain && !reserved[up] && !notAlias[up] && !literalWords[up] {
		return name
	}
	return "`" + strings.ReplaceAll(name, "`", "``") + "`"
}

// quoteParts renders a dotted name with each part quoted as needed.
func quoteParts(parts []string) string {
	q := make([]string, len(parts))
	for i, p := range parts {
		q[i] = quoteIdent(p)
	}
	return strings.Join(q, ".")
}

// editDistance is the Levenshtein distance between a and b, used to suggest
// the keyword a misspelt word was meant to be.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(rb)]
}

// suggest returns the candidate closest to word when it is within two edits.
func suggest(word string, candidates []string) string {
	best, bestD := "", 3
	up := strings.ToUpper(word)
	for _, c := range candidates {
		if d := editDistance(up, c); d < bestD {
			best, bestD = c, d
		}
	}
	return best
}
