package parser

import "fmt"

// Position is a place in the SQL text: Line and Col count from 1 (Col in
// characters, not bytes), Offset is the byte offset from the start of the
// text, counting from 0.
type Position struct {
	Line   int
	Col    int
	Offset int
}

// String renders the position as "line L, column C".
func (p Position) String() string {
	return fmt.Sprintf("line %d, column %d", p.Line, p.Col)
}

// Node is anything in the syntax tree: it knows where its text starts.
type Node interface {
	// Pos is the position of the first character of the node's text.
	Pos() Position
}
