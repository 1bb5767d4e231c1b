package lakehouse

import (
	"context"
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/apache/iceberg-go/table"
)

// cleanUncommitted deletes the manifests the commit of snap wrote but did
// not commit, as Iceberg Java's SnapshotProducer does after every
// successful commit (cleanUncommitted: every manifest the producer wrote
// that the committed manifest list does not name is deleted).
//
// iceberg-go v0.7.0 leaves one behind each time a merge append merges: the
// append writes the new files' manifest (<commit uuid>-m1.avro), the
// manifest merge (commit.manifest-merge.enabled) folds it into a merged
// manifest (-m2) and the snapshot lists only that one. No snapshot ever
// names -m1, so neither expiry nor anything but orphan removal (after its
// 3 days) deletes it: a stream leaked one manifest per
// commit.manifest.min-count-to-merge commits, ~400 B a batch in the soak
// run, the only part of its metadata growing with the batch count.
//
// The producer names every manifest it writes <commit uuid>-m<n>.avro
// with n counting from 1, and its manifest list snap-<id>-<attempt>-<commit
// uuid>.avro; no other commit writes under that uuid, so the names 1..n
// that the list does not hold, n the highest it holds, are the
// uncommitted ones. A name that does not exist is skipped. Best effort: a
// failure leaves the file to orphan removal.
func cleanUncommitted(ctx context.Context, tbl *table.Table, snap *table.Snapshot) (removed int, err error) {
	if snap == nil || snap.ManifestList == "" {
		return 0, nil
	}
	base := path.Base(snap.ManifestList)
	if !strings.HasPrefix(base, "snap-") || !strings.HasSuffix(base, ".avro") || len(base) < len("snap-.avro")+36 {
		return 0, nil
	}
	commitUUID := strings.TrimSuffix(base, ".avro")
	commitUUID = commitUUID[len(commitUUID)-36:]
	fs, err := tbl.FS(ctx)
	if err != nil {
		return 0, fmt.Errorf("open the table's files: %w", err)
	}
	mans, err := snap.Manifests(fs)
	if err != nil {
		return 0, fmt.Errorf("read the manifest list %s: %w", snap.ManifestList, err)
	}
	dir := snap.ManifestList[:len(snap.ManifestList)-len(base)]
	held, highest := map[int]bool{}, 0
	for _, m := range mans {
		n, ok := manifestNumber(m.FilePath(), commitUUID)
		if ok && strings.HasPrefix(m.FilePath(), dir) {
			held[n] = true
			highest = max(highest, n)
		}
	}
	for n := 1; n < highest; n++ {
		if held[n] {
			continue
		}
		if fs.Remove(dir+commitUUID+"-m"+strconv.Itoa(n)+".avro") == nil {
			removed++
		}
	}
	return removed, nil
}

// manifestNumber returns n of a manifest named <commitUUID>-m<n>.avro.
func manifestNumber(p, commitUUID string) (int, bool) {
	rest, ok := strings.CutPrefix(path.Base(p), commitUUID+"-m")
	if !ok {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(rest, ".avro"))
	return n, err == nil && n > 0 && strings.HasSuffix(rest, ".avro")
}
