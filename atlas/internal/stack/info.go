package stack

import (
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
)

// Info describes the stack of one home directory: the broker and the
// catalog. [Status] fills it; [Up] and [EnsureUp] return it after starting.
type Info struct {
	// Home is the Atlas home directory.
	Home string `json:"home"`
	// Brokers are the seed brokers clients use ([Brokers]).
	Brokers []string `json:"brokers"`
	// External is true when Brokers name a cluster this package does not
	// manage (ATLAS_KAFKA_BROKERS): Addr and DataDir are then empty, and
	// PID and LogFile are those of the daemon that runs the services
	// against that cluster (`atlas up`), if one runs.
	External bool `json:"external,omitempty"`
	// Running is true when the daemon process recorded in Home/run lives.
	Running bool `json:"running"`
	// Reachable is true when a broker answered a metadata request.
	Reachable bool `json:"reachable"`
	// BrokerError says why the broker is not reachable, if it is not.
	BrokerError string `json:"broker_error,omitempty"`
	// PID is the daemon's process id.
	PID int `json:"pid,omitempty"`
	// Addr is the address the daemon listens on.
	Addr string `json:"addr,omitempty"`
	// DataDir is the broker's data directory.
	DataDir string `json:"data_dir,omitempty"`
	// LogFile is the daemon's log.
	LogFile string `json:"log_file,omitempty"`
	// Partitions is the partition count of auto-created topics.
	Partitions int `json:"partitions,omitempty"`
	// StartedAt is when the daemon started.
	StartedAt time.Time `json:"started_at,omitzero"`
	// Services maps the services the daemon runs beside the broker
	// ("connect", the Spark Connect server) to their addresses, or to
	// "error: ..." when one failed to start.
	Services map[string]string `json:"services,omitempty"`
	// Topics are the broker's topics, sorted by name (internal topics
	// left out).
	Topics []TopicInfo `json:"topics,omitempty"`

	// Catalog describes the Iceberg catalog.
	Catalog CatalogInfo `json:"catalog"`

	// Started is true when this call started the daemon.
	Started bool `json:"started,omitempty"`
	// StalePID is the pid of a dead daemon whose leftover pid file
	// Status found or Up removed, or 0.
	StalePID int `json:"stale_pid,omitempty"`
	// Crash is where the dead daemon's log says why it died (its panic or
	// fatal-error line, "FILE:LINE: text"), or that it says nothing.
	Crash string `json:"crash,omitempty"`
	// Notes are remarks for the user (an address request that was
	// ignored because a daemon already runs, and the like).
	Notes []string `json:"notes,omitempty"`
}

// TopicInfo describes one topic.
type TopicInfo struct {
	// Name is the topic name.
	Name string `json:"name"`
	// Partitions is the partition count.
	Partitions int32 `json:"partitions"`
	// EndOffsets holds each partition's end offset (high watermark),
	// indexed by partition.
	EndOffsets []int64 `json:"end_offsets"`
	// Records is the number of records held: the sum over partitions of
	// end offset minus start offset.
	Records int64 `json:"records"`
}

// CatalogInfo describes the Iceberg catalog.
type CatalogInfo struct {
	// Name is the catalog name tables are qualified with.
	Name string `json:"name"`
	// Type is the iceberg-go catalog type ("sql", "rest", ...).
	Type string `json:"type"`
	// URI is the catalog URI, its secrets (passwords, keys, tokens)
	// masked.
	URI string `json:"uri"`
	// Warehouse is where table data goes.
	Warehouse string `json:"warehouse"`
	// Namespaces are the namespaces with their tables, sorted by name.
	Namespaces []NamespaceInfo `json:"namespaces,omitempty"`
	// Error says why the catalog could not be read, if it could not.
	Error string `json:"error,omitempty"`
	// Damaged is true when the embedded sqlite catalog file failed its
	// integrity check (Error says which file and what to do).
	Damaged bool `json:"damaged,omitempty"`
}

// NamespaceInfo describes one catalog namespace.
type NamespaceInfo struct {
	// Name is the namespace, dot-separated.
	Name string `json:"name"`
	// Tables are the namespace's tables, sorted by name.
	Tables []TableInfo `json:"tables,omitempty"`
}

// TableInfo describes one Iceberg table.
type TableInfo struct {
	// Name is the table name within its namespace.
	Name string `json:"name"`
	// Snapshots is the number of snapshots in the table's metadata.
	Snapshots int `json:"snapshots"`
	// CurrentSnapshotID is the current snapshot's id, 0 when the table
	// is empty.
	CurrentSnapshotID int64 `json:"current_snapshot_id,omitempty"`
	// Health is what the table's state costs readers and writers (files,
	// manifests), the numbers maintenance keeps bounded.
	Health *lakehouse.Health `json:"health,omitempty"`
	// LastMaintenance is the table's atlas.maintenance.last record: when
	// the server's (or `atlas maintain`'s) last run that changed something
	// ran, and what it did; "" when none did.
	LastMaintenance string `json:"last_maintenance,omitempty"`
	// Error says why the table could not be loaded, if it could not.
	Error string `json:"error,omitempty"`
}
