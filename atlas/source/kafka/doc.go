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
// Reading uses one long-lived franz-go client in direct partition
// consumption mode. Consecutive batches are one continuous fetch stream:
// records fetched beyond a batch's end stay buffered for the next batch, and
// the client is repositioned only when a batch does not start where the
// previous one ended (a restart or a replay).
//
// Isolation: the source reads with read_uncommitted by default, as Spark's
// consumer does, and ends batches at the high watermark. With the option
// kafka.isolation.level=read_committed it fetches only committed records and
// ends batches at the last stable offset instead.
package kafka
