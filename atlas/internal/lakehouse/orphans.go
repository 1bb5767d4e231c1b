package lakehouse

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/apache/iceberg-go/table"
)

// OrphanFilesResult says what RemoveOrphanFiles found.
type OrphanFilesResult struct {
	// Locations are the orphan files, sorted: deleted, or on a dry run
	// the ones that would be (Spark's orphan_file_location column).
	Locations []string
	// Bytes is their total size.
	Bytes int64
	// DryRun tells that nothing was deleted.
	DryRun bool
}

// RemoveOrphanFiles deletes the files under the table's location that no
// snapshot references and that were last modified before olderThan:
// Iceberg's remove_orphan_files (iceberg-go's DeleteOrphanFiles). Every
// file under the location (data/ and metadata/) is listed through the
// table's IO, local or object store, and kept when any snapshot's manifest
// list, manifests, data or delete files, a metadata.json of the metadata
// log or a statistics file names it. With dryRun nothing is deleted and
// the result lists what would be.
//
// Orphans are what a crash leaves: the data files of a commit that never
// happened (a writer killed between writing and committing), or the files
// of snapshots an expire removed from the metadata but was killed before
// deleting (a later expire no longer sees them). A file younger than
// olderThan is never touched: a writer may be about to commit it. Keep the
// bound well behind the longest write (Iceberg's default is 3 days);
// anything a writer wrote before the bound and has not committed yet would
// be deleted under it.
func (t *Table) RemoveOrphanFiles(ctx context.Context, olderThan time.Time, dryRun bool) (OrphanFilesResult, error) {
	age := time.Since(olderThan)
	if age < 0 {
		return OrphanFilesResult{}, fmt.Errorf("lakehouse: remove orphan files of %s: older than %s is in the future; "+
			"files being written now would be deleted (use a bound in the past, such as 3 days ago)", t.name, olderThan.Format(time.RFC3339))
	}
	// Every snapshot committed so far, read without holding writeMu: the
	// listing may take long, and writers of this Table must not wait for it.
	cur, err := t.lh.cat.LoadTable(ctx, t.ident)
	if err != nil {
		return OrphanFilesResult{}, fmt.Errorf("lakehouse: remove orphan files of %s: %w", t.name, t.lh.explainLoadError(ctx, t.ident, err))
	}
	res, err := cur.DeleteOrphanFiles(ctx, table.WithFilesOlderThan(age), table.WithDryRun(dryRun))
	if err != nil {
		return OrphanFilesResult{}, fmt.Errorf("lakehouse: remove orphan files of %s: %w", t.name, err)
	}
	out := OrphanFilesResult{Bytes: res.TotalSizeBytes, DryRun: dryRun}
	local := strings.HasPrefix(cur.Location(), "file:")
	for _, l := range res.OrphanFileLocations {
		if local && strings.HasPrefix(l, "/") {
			l = "file://" + l // spelled as the table's own file locations
		}
		out.Locations = append(out.Locations, l)
	}
	slices.Sort(out.Locations)
	return out, nil
}
