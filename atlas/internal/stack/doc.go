// Package stack runs Atlas's local services: an embedded Kafka-protocol
// broker (franz-go's kfake with on-disk persistence) started as a detached
// daemon, and the initialisation of the Iceberg catalog "lakehouse" with its
// medallion namespaces. It backs the CLI commands `atlas up`, `atlas down`
// and `atlas status`, and gives the rest of Atlas the Kafka helpers it needs:
// [Brokers] (where clients connect), [NewClient], [EnsureTopic], and
// [NewBroker], an in-process broker for tests.
//
// Everything lives under one home directory (ATLAS_HOME, default
// $HOME/.atlas):
//
//	broker/            the broker's data directory (topics, offsets, groups)
//	run/broker.pid     the daemon's pid
//	run/broker.json    the daemon's state: pid, address, data dir, start time
//	logs/broker.log    the daemon's log
//	catalog/, warehouse/  the embedded Iceberg catalog and table data
//
// When ATLAS_KAFKA_BROKERS names a Kafka cluster other than the embedded
// listen address, the stack starts nothing and only talks to that cluster.
package stack
