package engine

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
	"github.com/atlas-lakehouse/atlas/atlas/internal/ckpath"
	"github.com/atlas-lakehouse/atlas/atlas/internal/fsroots"
	"github.com/atlas-lakehouse/atlas/atlas/internal/lakehouse"
	"github.com/atlas-lakehouse/atlas/atlas/internal/merge"
	mem "github.com/atlas-lakehouse/atlas/atlas/internal/source/memory"
)

// Session is the entry point, as SparkSession: it reads streams, runs SQL
// and knows the lakehouse catalog. Configuration comes from Config calls,
// then the ATLAS_* environment, then the embedded defaults (broker on
// 127.0.0.1:9092, sqlite catalog and warehouse under $ATLAS_HOME).
type Session struct {
	appName string
	conf    map[string]string
	// files limits the paths the session reads and writes (files.go).
	files *fsroots.Policy

	mu sync.Mutex
	// runtime holds what SetConf set (spark.conf.set), over conf.
	runtime map[string]string
	lh      *lakehouse.Lakehouse
	views   map[string]*DataFrame
	global  *GlobalViews
	streams map[string]*mem.Stream
	tables  map[string]*memoryTable
	batch   *batchContext
	// streamsMgr is spark.streams, made on first use.
	streamsMgr *StreamingQueryManager
	// keyIndexes caches the key indexes of merge-on-read MERGEs.
	keyIndexes *merge.KeyIndexCache
	// callbackMu runs one foreachBatch callback at a time per session, so
	// batch (which keys the callback's table writes for exactly-once) is
	// never shared by two queries' callbacks.
	callbackMu sync.Mutex
}

// Session configuration keys.
const (
	// ConfHome is the Atlas home directory (default $ATLAS_HOME or ~/.atlas).
	ConfHome = "atlas.home"
	// ConfKafkaBrokers is the default kafka.bootstrap.servers.
	ConfKafkaBrokers = "atlas.kafka.brokers"
	// ConfCatalogURI is the Iceberg catalog URI.
	ConfCatalogURI = "atlas.catalog.uri"
	// ConfCatalogType is the Iceberg catalog type (sql, rest, ...).
	ConfCatalogType = "atlas.catalog.type"
	// ConfWarehouse is the warehouse location.
	ConfWarehouse = "atlas.warehouse"
	// ConfCatalogProps are the catalog properties, "k=v,k2=v2" as
	// $ATLAS_CATALOG_PROPS (which they replace): a server passes the
	// secrets it took out of its environment this way.
	ConfCatalogProps = "atlas.catalog.props"
	// ConfCheckpointRoot is where queries named with QueryName keep their
	// checkpoints: a directory or s3://bucket/prefix (default
	// $ATLAS_CHECKPOINT_ROOT, else $ATLAS_HOME/checkpoints). An s3:// root
	// is reached with the catalog's S3 settings (ATLAS_CATALOG_PROPS).
	ConfCheckpointRoot = "atlas.checkpoint.root"
)

// EnvCheckpointRoot is the environment variable behind ConfCheckpointRoot.
const EnvCheckpointRoot = "ATLAS_CHECKPOINT_ROOT"

// SessionBuilder configures a Session, as SparkSession.builder.
type SessionBuilder struct {
	appName string
	conf    map[string]string
	global  *GlobalViews
}

// Builder starts configuring a session.
func Builder() *SessionBuilder { return &SessionBuilder{conf: map[string]string{}} }

// AppName names the application (shown in progress and logs).
func (b *SessionBuilder) AppName(name string) *SessionBuilder { b.appName = name; return b }

// Config sets a configuration key (see the Conf* constants).
func (b *SessionBuilder) Config(key, value string) *SessionBuilder {
	b.conf[key] = value
	return b
}

// Master is accepted for familiarity with PySpark and ignored: Atlas runs
// in the calling process.
func (b *SessionBuilder) Master(string) *SessionBuilder { return b }

// GetOrCreate returns a new session. Nothing is contacted until used.
func (b *SessionBuilder) GetOrCreate() *Session {
	conf := map[string]string{}
	for k, v := range b.conf {
		conf[k] = v
	}
	global := b.global
	if global == nil {
		global = NewGlobalViews()
	}
	return &Session{appName: b.appName, conf: conf, files: filePolicy(conf), views: map[string]*DataFrame{}, global: global}
}

// NewSession returns a session with the default configuration.
func NewSession() *Session { return Builder().GetOrCreate() }

// AppName returns the application name.
func (s *Session) AppName() string { return s.appName }

// Home returns the Atlas home directory.
func (s *Session) Home() string {
	if h := s.conf[ConfHome]; h != "" {
		abs, _ := filepath.Abs(h)
		return abs
	}
	return lakehouse.Home()
}

// Brokers returns the Kafka bootstrap servers used when a reader or writer
// names none: the session's [ConfKafkaBrokers], which whoever starts the
// engine (the CLI, the Spark Connect server) sets. The engine never looks
// for a running broker itself; with none set, Kafka sources and sinks ask
// for kafka.bootstrap.servers.
func (s *Session) Brokers() string { return s.conf[ConfKafkaBrokers] }

// LakehouseConfig returns the catalog configuration.
func (s *Session) LakehouseConfig() lakehouse.Config {
	c := lakehouse.ConfigFromEnv(s.Home())
	if v := s.conf[ConfCatalogURI]; v != "" {
		c.URI = v
	}
	if v := s.conf[ConfCatalogType]; v != "" {
		c.Type = v
	}
	if v := s.conf[ConfWarehouse]; v != "" {
		c.Warehouse = v
	}
	if v := s.conf[ConfCatalogProps]; v != "" {
		c.Properties = lakehouse.ParseProps(v)
	}
	return c
}

// Lakehouse opens (once) and returns the Iceberg catalog.
func (s *Session) Lakehouse(ctx context.Context) (*lakehouse.Lakehouse, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lh != nil {
		return s.lh, nil
	}
	lh, err := lakehouse.Open(ctx, s.LakehouseConfig())
	if err != nil {
		return nil, err
	}
	// The tables the session's streams write are kept bounded in the
	// background (snapshot expiry, manifest merging, compaction); table
	// properties turn it off (see lakehouse.Table.Maintain).
	lh.StartMaintenance(lakehouse.MaintenanceOptions{})
	s.lh = lh
	return lh, nil
}

// Stop releases the catalog.
func (s *Session) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.lh != nil {
		s.lh.Close()
		s.lh = nil
	}
}

// ReadStream starts describing a streaming source.
func (s *Session) ReadStream() *DataStreamReader {
	return &DataStreamReader{s: s, opts: map[string]string{}}
}

// CheckpointRoot returns where queries named with QueryName keep their
// checkpoints: Spark's spark.sql.streaming.checkpointLocation when set on
// the session, else ConfCheckpointRoot, else $ATLAS_CHECKPOINT_ROOT, else
// $ATLAS_HOME/checkpoints. A URL (s3://bucket/prefix) stays a URL.
func (s *Session) CheckpointRoot() string {
	if root := s.confValue(ConfSparkCheckpointLocation); root != "" {
		return root
	}
	if root := s.conf[ConfCheckpointRoot]; root != "" {
		return root
	}
	if root := os.Getenv(EnvCheckpointRoot); root != "" {
		return root
	}
	return filepath.Join(s.Home(), "checkpoints")
}

// ConfSparkCheckpointLocation is Spark's setting of the root under which
// a query named with QueryName checkpoints (at <root>/<query name>).
const ConfSparkCheckpointLocation = "spark.sql.streaming.checkpointLocation"

// CheckpointDir returns the default checkpoint location for a query name,
// under CheckpointRoot (ckpath.QueryDir: the rule the client, the server
// and the CLI share).
func (s *Session) CheckpointDir(name string) string {
	return ckpath.QueryDir(s.CheckpointRoot(), name)
}

// checkpointOptions are the options the session's queries open their
// checkpoints with: the catalog's S3 settings for s3:// locations.
func (s *Session) checkpointOptions() checkpoint.Options {
	return checkpoint.Options{S3: s.checkpointS3()}
}

// checkpointS3 returns the catalog's S3 settings (ATLAS_CATALOG_PROPS), by
// which an s3:// checkpoint location without URL parameters is reached.
func (s *Session) checkpointS3() *checkpoint.S3Settings {
	return checkpoint.S3SettingsFromProps(s.LakehouseConfig().Properties)
}

// registerView names a DataFrame for SQL (CreateOrReplaceTempView).
func (s *Session) registerView(name string, df *DataFrame) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.views[strings.ToLower(name)] = df
}

func (s *Session) view(name string) (*DataFrame, bool) {
	if df, ok := s.globalView(name); ok {
		return df, true
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	df, ok := s.views[strings.ToLower(name)]
	return df, ok
}

// CreateOrReplaceTempView names the DataFrame so SQL can read it
// (a micro-batch as the source of MERGE INTO, for example). Views live in
// the session only.
func (df *DataFrame) CreateOrReplaceTempView(name string) error {
	if err := df.Err(); err != nil {
		return err
	}
	if df.IsStreaming() {
		return fmt.Errorf("createOrReplaceTempView(%q): streaming views are not supported; use it on the batch inside ForeachBatch", name)
	}
	df.s.registerView(name, df)
	return nil
}
