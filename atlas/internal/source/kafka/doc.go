// Package kafka is Atlas's Kafka source, the counterpart of Spark's
// "kafka" data source (KafkaV2 in progress reports). It subscribes to a list
// of topics, says how far each partition goes as Spark-style offset JSON
// ({"events":{"0":120,"1":98}}), and reads exactly the records in a
// [start, end) offset range as Apache Arrow record batches with Spark's fixed
// Kafka schema (key, value, topic, partition, offset, timestamp,
// timestampType).
//
// The source never commits to a consumer group: as in Spark, the query's
// offsets log is the only record of progress, and replaying a range after a
// crash reads the same records again.
//
// Reading uses one long-lived franz-go client for connections, request
// versions and metadata, and Atlas's own fetch loop (fetcher.go): Fetch
// requests to each partition's leader, their record batches decoded
// straight into Arrow (decode.go) without a kgo.Record per record.
// Consecutive batches are one continuous fetch stream: records fetched
// beyond a batch's end stay buffered for the next batch, and a partition is
// repositioned only when a batch does not start where the previous one
// ended (a restart or a replay). A leader saying its log diverged below
// what was fetched (KIP-320, an unclean leader election) is data loss for
// what batches had read there.
//
// Topic ids: beside the offsets the source records each topic's id
// (KIP-516) under a side field no topic can be called,
// {"events":{"0":120},"@topicIds":{"events":"<id>"}}; offsets without it
// (Spark's format, older checkpoints) still read, and progress reports show
// Spark's format. A topic deleted and created again gets a new id, which
// every batch checks, whatever the trigger: with failOnDataLoss (the
// default) the query stops naming the topic, both ids and the offsets;
// without it the new topic is read from its earliest offsets and the
// progress's sources[].dataLoss says what of the old topic was not read.
//
// Unavailable brokers: errors that say the brokers cannot be reached for
// now (refused or cut connections, timeouts, retriable Kafka error codes)
// come back as source.UnavailableError, on which a query waits and retries;
// brokerUnavailableTimeout (default 30s) bounds the wait of a query that
// must end (Trigger.AvailableNow or Once).
//
// Isolation: the source reads with read_uncommitted by default, as Spark's
// consumer does, and ends batches at the high watermark. With the option
// kafka.isolation.level=read_committed it fetches only committed records and
// ends batches at the last stable offset instead.
package kafka
