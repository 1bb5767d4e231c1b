package e2e_test

import "github.com/atlas-lakehouse/atlas/atlas/internal/enginetest"

// The helpers shared with the engine's tests.
var (
	mustSQL   = enginetest.MustSQL
	rowsOf    = enginetest.Rows
	render    = enginetest.Render
	sameLines = enginetest.SameLines
)

const contractSchema = enginetest.PaymentContractSchema

var (
	kvSchema = enginetest.KVSchema
	kvRecord = enginetest.KVRecord
	kvRows   = enginetest.KVRows
)
