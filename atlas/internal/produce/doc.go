// Package produce generates seeded, reproducible test streams and writes them
// to Kafka.
//
// Two streams exist: user events for the windowed-aggregation scenario
// (JSON {"user_id","event","ts"}, with out-of-order, late, duplicate and
// malformed records mixed in at configured fractions) and Online-Retail-like
// change data capture for the MERGE INTO scenario (JSON {"op","invoice",
// "stock_code","quantity","price","CustomerID","Country","ts"}). The labs
// have their own: payments (Avro), an offline sample of Wikimedia edits
// (EditGenerator) and the course chapter's mobile-money transactions
// (MomoGenerator: {"txn_id","district","amount","ts"}, some out of order
// and a few uploaded hours late).
//
// Generation is a pure function of its config: GenerateEvents and GenerateCDC
// (or the streaming EventGenerator and CDCGenerator) return the exact key and
// value bytes, in order, that ProduceEvents and ProduceCDC send. A test in
// another package can therefore compute its reference result from the same
// generated records without reading Kafka, and the records it reads back from
// Kafka are byte-identical to them. Records are keyed (user_id for events,
// invoice|stock_code for CDC) so every key lands in one partition in
// generation order.
package produce
