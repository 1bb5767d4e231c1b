package lakehouse

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"
)

// ErrNoSuchTable is returned (wrapped) when a named table does not exist.
var ErrNoSuchTable = catalog.ErrNoSuchTable

// ErrTableExists is returned (wrapped) by CreateTable when the table already
// exists and CreateOptions.IfNotExists is false.
var ErrTableExists = catalog.ErrTableAlreadyExists

// DefaultTableProperties returns the properties set on every table
// CreateTable makes, before CreateOptions.Properties (which may override
// them): format version 2, manifest merging so that a stream of small
// appends does not pile up manifests, and bounded metadata: write.metadata.delete-after-commit.enabled=true with
// write.metadata.previous-versions-max=100 (Iceberg 1.x's default count), so
// each commit deletes the metadata.json files that fall off the metadata
// log. iceberg-go v0.7.0 does that deletion itself after every successful
// commit (Table.doCommit's deleteOldMetadata), and trims the log to
// previous-versions-max (MetadataBuilder.Build), for any table that sets
// the properties; every Atlas commit goes through Transaction.Commit, so it
// applies to all of them. Without it a stream keeps every metadata.json,
// each listing every snapshot: disk grows with the square of the batches.
//
// commit.retry.num-retries is left to its Iceberg default (4 in Java
// engines): it is read by every engine that writes the table, and pinning
// it to 0 made a Spark or Trino commit fail at its first conflict. Atlas's
// own retry policy lives in Table.commit, with an exactly-once re-check;
// its transactions pin the branch head (AssertRefSnapshotID), so
// iceberg-go never replays one by itself, whatever the property says.
func DefaultTableProperties() map[string]string {
	return map[string]string{
		table.PropertyFormatVersion:               "2",
		table.ManifestMergeEnabledKey:             "true",
		table.MetadataDeleteAfterCommitEnabledKey: "true",
		table.MetadataPreviousVersionsMaxKey:      strconv.Itoa(table.MetadataPreviousVersionsMaxDefault),
	}
}

// CreateOptions tune CreateTable.
type CreateOptions struct {
	// IfNotExists makes CreateTable load and return an existing table
	// instead of failing with ErrTableExists. The existing table's schema is
	// kept as it is.
	IfNotExists bool
	// PartitionBy lists Spark-style partition expressions: a column name
	// (identity), years(col), months(col), days(col), hours(col),
	// bucket(n, col) or truncate(n, col).
	PartitionBy []string
	// Properties are extra Iceberg table properties; they override
	// DefaultTableProperties().
	Properties map[string]string
	// Location overrides the table location (default: chosen by the
	// catalog under the warehouse).
	Location string
}

// Table is an Iceberg table of the lakehouse. It caches the table's current
// metadata: its own commits move the cache forward, and Refresh picks up
// other writers' commits. Writes through the Tables of one Lakehouse on the
// same Iceberg table are serialized (they take turns on its commit); any
// number of Tables in other processes may write it too, each commit being
// an atomic compare-and-swap in the catalog.
//
// A Table is safe for concurrent use.
type Table struct {
	lh    *Lakehouse
	name  string
	ident table.Identifier

	// writeMu serializes writes and refreshes of every Table of this
	// lakehouse on the same Iceberg table (Lakehouse.writeLock).
	writeMu *sync.Mutex
	cur     atomic.Pointer[table.Table] // the cached iceberg table
	// maxAttempts bounds a commit's attempts; 0 means maxCommitAttempts.
	maxAttempts int
	// chained counts the commits whose returned table was cached since
	// the cache was last loaded from the catalog (see adopt); guarded by
	// writeMu.
	chained int
}

func (l *Lakehouse) newTable(name string, ident table.Identifier, t *table.Table) *Table {
	tb := &Table{lh: l, name: name, ident: ident, writeMu: l.writeLock(ident)}
	tb.cur.Store(t)
	return tb
}

// CreateTable creates the Iceberg table name (see ParseIdent) with the given
// Arrow schema, creating its namespace when missing. Field ids are assigned
// fresh; Arrow types map to Iceberg types the Iceberg way: string → string,
// int64 → long, int32/int16/int8 → int, float64 → double, bool → boolean,
// date32 → date, timestamp[us, UTC] → timestamptz, timestamp[us] (no zone) →
// timestamp, timestamp[ns] → microseconds. A nullable Arrow field becomes an
// optional Iceberg field, a non-nullable one a required field.
func (l *Lakehouse) CreateTable(ctx context.Context, name string, schema *arrow.Schema, opts CreateOptions) (*Table, error) {
	ident, full, err := l.resolve(name)
	if err != nil {
		return nil, err
	}
	if schema == nil || schema.NumFields() == 0 {
		return nil, fmt.Errorf("lakehouse: create table %s: the schema has no columns", full)
	}
	if opts.IfNotExists {
		if t, err := l.loadIdent(ctx, full, ident); err == nil {
			return t, nil
		} else if !errors.Is(err, catalog.ErrNoSuchTable) {
			return nil, err
		}
	}
	isc, err := table.ArrowSchemaToIcebergWithFreshIDs(schema, true)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: create table %s: convert schema %v: %w", full, schema, err)
	}
	spec, err := partitionSpec(opts.PartitionBy, isc)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: create table %s: %w", full, err)
	}
	props := iceberg.Properties(DefaultTableProperties())
	maps.Copy(props, opts.Properties)
	if err := l.EnsureNamespaces(ctx, strings.Join(catalog.NamespaceFromIdent(ident), ".")); err != nil {
		return nil, fmt.Errorf("lakehouse: create table %s: %w", full, err)
	}
	copts := []catalog.CreateTableOpt{catalog.WithPartitionSpec(&spec), catalog.WithProperties(props)}
	if opts.Location != "" {
		copts = append(copts, catalog.WithLocation(opts.Location))
	}
	t, err := l.cat.CreateTable(ctx, ident, isc, copts...)
	if err != nil {
		if opts.IfNotExists && errors.Is(err, catalog.ErrTableAlreadyExists) {
			return l.loadIdent(ctx, full, ident) // created concurrently
		}
		return nil, fmt.Errorf("lakehouse: create table %s: %w", full, err)
	}
	return l.newTable(full, ident, t), nil
}

// LoadTable loads the table name (see ParseIdent) from the catalog. The
// error wraps ErrNoSuchTable when it does not exist. Load a table once and
// keep the *Table: it stays current with its own commits.
func (l *Lakehouse) LoadTable(ctx context.Context, name string) (*Table, error) {
	ident, full, err := l.resolve(name)
	if err != nil {
		return nil, err
	}
	return l.loadIdent(ctx, full, ident)
}

func (l *Lakehouse) loadIdent(ctx context.Context, full string, ident table.Identifier) (*Table, error) {
	t, err := l.cat.LoadTable(ctx, ident)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: load table %s: %w", full, l.explainLoadError(ctx, ident, err))
	}
	return l.newTable(full, ident, t), nil
}

// TableExists reports whether the table name exists.
func (l *Lakehouse) TableExists(ctx context.Context, name string) (bool, error) {
	ident, full, err := l.resolve(name)
	if err != nil {
		return false, err
	}
	ok, err := l.cat.CheckTableExists(ctx, ident)
	if err != nil {
		return false, fmt.Errorf("lakehouse: check table %s: %w", full, err)
	}
	return ok, nil
}

// DropTable removes the table name from the catalog. With purge, its data and
// metadata files are deleted too (best effort), as DROP TABLE ... PURGE.
// Dropping a missing table returns an error wrapping ErrNoSuchTable.
func (l *Lakehouse) DropTable(ctx context.Context, name string, purge bool) error {
	ident, full, err := l.resolve(name)
	if err != nil {
		return err
	}
	if p, ok := l.cat.(catalog.PurgeableTable); ok && purge {
		err = p.PurgeTable(ctx, ident)
	} else {
		err = l.cat.DropTable(ctx, ident)
	}
	if err != nil {
		return fmt.Errorf("lakehouse: drop table %s: %w", full, err)
	}
	return nil
}

// ListTables returns the names (namespace.table, without the catalog name)
// of the tables in namespace, sorted.
func (l *Lakehouse) ListTables(ctx context.Context, namespace string) ([]string, error) {
	ns := catalog.ToIdentifier(namespace)
	var out []string
	for id, err := range l.cat.ListTables(ctx, ns) {
		if err != nil {
			return nil, fmt.Errorf("lakehouse: list tables in %s: %w", namespace, err)
		}
		out = append(out, strings.Join(id, "."))
	}
	slices.Sort(out)
	return out, nil
}

// ListNamespaces returns the top-level namespaces of the catalog, sorted.
func (l *Lakehouse) ListNamespaces(ctx context.Context) ([]string, error) {
	ids, err := l.cat.ListNamespaces(ctx, nil)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: list namespaces of %s: %w", l.cfg.Name, err)
	}
	out := make([]string, len(ids))
	for i, id := range ids {
		out[i] = strings.Join(id, ".")
	}
	slices.Sort(out)
	return out, nil
}

// Name returns the table's fully qualified name, catalog.namespace.table.
func (t *Table) Name() string { return t.name }

// Identifier returns the table's Iceberg identifier (namespace parts, table).
func (t *Table) Identifier() table.Identifier { return slices.Clone(t.ident) }

// Iceberg returns the cached iceberg-go table, for operations this package
// does not wrap. Commit through Table's methods to keep exactly-once
// bookkeeping and the cache consistent.
func (t *Table) Iceberg() *table.Table { return t.cur.Load() }

// Schema returns the Arrow schema of the table's current Iceberg schema:
// timestamptz → timestamp[us, tz=UTC], long → int64, optional → nullable.
func (t *Table) Schema() *arrow.Schema {
	sc, err := arrowSchema(t.cur.Load())
	if err != nil {
		// Every schema this package creates converts; a foreign schema with
		// a type Arrow cannot express yields an empty schema.
		return arrow.NewSchema(nil, nil)
	}
	return sc
}

// arrowSchema converts the current schema of t to Arrow, without field ids.
func arrowSchema(t *table.Table) (*arrow.Schema, error) {
	sc, err := table.SchemaToArrowSchema(t.Schema(), nil, false, false)
	if err != nil {
		return nil, fmt.Errorf("convert the table schema to Arrow: %w", err)
	}
	return sc, nil
}

// Location returns the table's base location in the warehouse.
func (t *Table) Location() string { return t.cur.Load().Location() }

// Properties returns a copy of the table properties.
func (t *Table) Properties() map[string]string {
	return maps.Clone(map[string]string(t.cur.Load().Properties()))
}

// Refresh reloads the table's metadata from the catalog, picking up commits
// made by other writers.
func (t *Table) Refresh(ctx context.Context) error {
	t.writeMu.Lock()
	defer t.writeMu.Unlock()
	_, err := t.refreshLocked(ctx)
	return err
}

// refreshLocked reloads the table; the caller holds writeMu.
func (t *Table) refreshLocked(ctx context.Context) (*table.Table, error) {
	fresh, err := t.lh.cat.LoadTable(ctx, t.ident)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: refresh table %s: %w", t.name, t.lh.explainLoadError(ctx, t.ident, err))
	}
	t.cur.Store(fresh)
	t.chained = 0
	return fresh, nil
}

// SnapshotInfo describes one snapshot of a table.
type SnapshotInfo struct {
	// ID is the snapshot id.
	ID int64
	// ParentID is the parent snapshot id, 0 for the first snapshot.
	ParentID int64
	// SequenceNumber is the snapshot's data sequence number.
	SequenceNumber int64
	// TimestampMs is the commit time in milliseconds since the epoch.
	TimestampMs int64
	// Operation is append, overwrite, replace or delete.
	Operation string
	// Summary holds the summary properties: Iceberg's counters
	// (added-records, total-records, ...) and the writer's properties
	// (atlas.query.id, atlas.batch.id, spark.sql.streaming.queryId, ...).
	Summary map[string]string
	// Current reports whether this is the table's current snapshot.
	Current bool
}

// QueryID returns the streaming query id recorded in the summary, or "".
func (s SnapshotInfo) QueryID() string { return queryIDOf(s.Summary) }

// BatchID returns the micro-batch id recorded in the summary.
func (s SnapshotInfo) BatchID() (int64, bool) { return batchIDOf(s.Summary) }

// Snapshots returns the table's snapshots in commit order (as cached; call
// Refresh first to see other writers' commits).
func (t *Table) Snapshots() []SnapshotInfo {
	meta := t.cur.Load().Metadata()
	var curID int64
	if c := meta.CurrentSnapshot(); c != nil {
		curID = c.SnapshotID
	}
	snaps := meta.Snapshots()
	out := make([]SnapshotInfo, 0, len(snaps))
	for _, s := range snaps {
		out = append(out, snapshotInfo(s, curID))
	}
	slices.SortStableFunc(out, func(a, b SnapshotInfo) int {
		if c := cmp.Compare(a.SequenceNumber, b.SequenceNumber); c != 0 {
			return c
		}
		return cmp.Compare(a.TimestampMs, b.TimestampMs)
	})
	return out
}

// CurrentSnapshot returns the current snapshot, or false when the table has
// none (it was never written).
func (t *Table) CurrentSnapshot() (SnapshotInfo, bool) {
	s := t.cur.Load().CurrentSnapshot()
	if s == nil {
		return SnapshotInfo{}, false
	}
	return snapshotInfo(*s, s.SnapshotID), true
}

func snapshotInfo(s table.Snapshot, currentID int64) SnapshotInfo {
	info := SnapshotInfo{
		ID:             s.SnapshotID,
		SequenceNumber: s.SequenceNumber,
		TimestampMs:    s.TimestampMs,
		Current:        s.SnapshotID == currentID,
	}
	if s.ParentSnapshotID != nil {
		info.ParentID = *s.ParentSnapshotID
	}
	if s.Summary != nil {
		info.Operation = string(s.Summary.Operation)
		info.Summary = maps.Clone(map[string]string(s.Summary.Properties))
	}
	return info
}
