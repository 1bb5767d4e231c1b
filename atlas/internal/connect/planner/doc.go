// Package planner translates Spark Connect plans (package spark.connect,
// generated in sparkpb) into calls on the Atlas engine: relations become
// DataFrames, expressions become Columns, with Spark's function names.
//
// It is the only place that knows both the protocol and the engine's API,
// so moving the engine (today the public atlas package) changes this
// package's imports and nothing else.
package planner
