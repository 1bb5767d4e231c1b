package lakehouse

import (
	"strconv"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
)

// Atlas's own maintenance table properties. Iceberg's properties govern
// what Iceberg defines (metadata retention, snapshot age, manifest merging);
// these add the switches and schedules Iceberg leaves to the engine. Each
// is read from the table on every run, so ALTER TABLE ... SET TBLPROPERTIES
// takes effect on the next one.
const (
	// PropMaintenanceEnabled turns every automatic maintenance action of the
	// server off ("false") for the table; `atlas maintain` still runs.
	// Default true.
	PropMaintenanceEnabled = "atlas.maintenance.enabled"
	// PropExpireEnabled turns automatic snapshot expiry off. Default true.
	PropExpireEnabled = "atlas.maintenance.expire.enabled"
	// PropMaxSnapshots bounds the snapshots a table written by a stream
	// keeps, whatever their age: once it holds a fifth more, the oldest are
	// expired down to this count (Iceberg's history.expire.* properties
	// bound by age only, and a stream commits a snapshot per micro-batch).
	// Default 100; 0 turns the bound off (then only the age applies).
	PropMaxSnapshots = "atlas.history.expire.max-snapshots"
	// PropCompactEnabled turns automatic compaction (bin-packing small data
	// files, folding delete files) off. Default true.
	PropCompactEnabled = "atlas.maintenance.compact.enabled"
	// PropCompactEveryCommits is how many streaming commits pass between two
	// automatic compactions. Default 100.
	PropCompactEveryCommits = "atlas.maintenance.compact.every-commits"
	// PropCompactMinInputFiles is how many small files of one size tier a
	// compaction needs before it rewrites them (the min-input-files option
	// of Iceberg's rewrite_data_files, default 5 there and here).
	PropCompactMinInputFiles = "atlas.maintenance.compact.min-input-files"
	// PropOrphansEnabled turns the automatic removal of orphan files off.
	// Default true.
	PropOrphansEnabled = "atlas.maintenance.orphans.enabled"
	// PropOrphansOlderThanMs is the age in milliseconds below which a file
	// that no snapshot references is never deleted (a writer may be about to
	// commit it). Default 3 days, the default of Iceberg's
	// remove_orphan_files.
	PropOrphansOlderThanMs = "atlas.maintenance.orphans.older-than-ms"
	// PropLastMaintenance is written by each maintenance run that changed
	// something: when it ran and what it did, as "key=value" pairs (see
	// MaintainResult.String). `atlas status` shows it.
	PropLastMaintenance = "atlas.maintenance.last"
)

// Maintenance defaults (see the properties).
const (
	DefaultMaxSnapshots         = 100
	DefaultCompactEveryCommits  = 100
	DefaultCompactMinInputFiles = 5
	DefaultOrphansOlderThan     = 72 * time.Hour
)

// maintenanceProps are a table's maintenance settings, defaults filled.
type maintenanceProps struct {
	enabled, expire, compact, orphans bool
	// manifestMerge and minManifests are Iceberg's
	// commit.manifest-merge.enabled and commit.manifest.min-count-to-merge.
	manifestMerge bool
	minManifests  int
	maxSnapshots  int
	compactEvery  int
	minInputFiles int
	orphanAge     time.Duration
	// gc is Iceberg's gc.enabled: false forbids deleting any file.
	gc bool
}

// readMaintenanceProps reads the settings from table properties p.
func readMaintenanceProps(p map[string]string) maintenanceProps {
	return maintenanceProps{
		enabled:       propBool(p, PropMaintenanceEnabled, true),
		expire:        propBool(p, PropExpireEnabled, true),
		compact:       propBool(p, PropCompactEnabled, true),
		orphans:       propBool(p, PropOrphansEnabled, true),
		manifestMerge: propBool(p, table.ManifestMergeEnabledKey, table.ManifestMergeEnabledDefault),
		minManifests:  propInt(p, table.ManifestMinMergeCountKey, table.ManifestMinMergeCountDefault),
		maxSnapshots:  propInt(p, PropMaxSnapshots, DefaultMaxSnapshots),
		compactEvery:  max(1, propInt(p, PropCompactEveryCommits, DefaultCompactEveryCommits)),
		minInputFiles: max(2, propInt(p, PropCompactMinInputFiles, DefaultCompactMinInputFiles)),
		orphanAge:     time.Duration(propInt(p, PropOrphansOlderThanMs, int(DefaultOrphansOlderThan.Milliseconds()))) * time.Millisecond,
		gc:            propBool(p, table.GCEnabledKey, table.GCEnabledDefault),
	}
}

func propBool(p map[string]string, key string, def bool) bool {
	v, ok := p[key]
	if !ok {
		return def
	}
	b, err := strconv.ParseBool(strings.TrimSpace(v))
	if err != nil {
		return def
	}
	return b
}

func propInt(p map[string]string, key string, def int) int {
	v, ok := p[key]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(v))
	if err != nil {
		return def
	}
	return n
}
