package lakehouse

import (
	"context"
	"fmt"
	"strconv"

	"github.com/apache/iceberg-go"
)

// Health is what a table's current state costs its readers and writers:
// the numbers maintenance keeps bounded.
type Health struct {
	// Snapshots is the number of snapshots in the metadata.
	Snapshots int
	// MetadataLog is the number of previous metadata files the metadata
	// log lists (at most write.metadata.previous-versions-max).
	MetadataLog int
	// DataManifests and DeleteManifests are the manifests of the current
	// snapshot: every scan and commit reads them.
	DataManifests, DeleteManifests int
	// DataFiles, DeleteFiles and Rows are the current snapshot's
	// total-data-files, total-delete-files and total-records.
	DataFiles, DeleteFiles, Rows int64
}

// Health reads the table's health from its cached metadata and the current
// snapshot's manifest list (Refresh first to see other writers' commits).
func (t *Table) Health(ctx context.Context) (Health, error) {
	cur := t.cur.Load()
	meta := cur.Metadata()
	h := Health{Snapshots: len(meta.Snapshots())}
	for range meta.PreviousFiles() {
		h.MetadataLog++
	}
	snap := cur.CurrentSnapshot()
	if snap == nil {
		return h, nil
	}
	if snap.Summary != nil {
		n := func(k string) int64 { v, _ := strconv.ParseInt(snap.Summary.Properties[k], 10, 64); return v }
		h.DataFiles, h.DeleteFiles, h.Rows = n("total-data-files"), n("total-delete-files"), n("total-records")
	}
	fs, err := cur.FS(ctx)
	if err != nil {
		return h, fmt.Errorf("lakehouse: health of %s: %w", t.name, err)
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		return h, fmt.Errorf("lakehouse: health of %s: read the manifest list: %w", t.name, err)
	}
	for _, m := range mans {
		if m.ManifestContent() == iceberg.ManifestContentData {
			h.DataManifests++
		} else {
			h.DeleteManifests++
		}
	}
	return h, nil
}
