package lakehouse

import (
	"context"
	"fmt"
	"sync"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/table"
)

// noSnapshot is the snapshot id of a table without snapshots, as in
// Iceberg's metadata (current-snapshot-id -1) and iceberg-go.
const noSnapshot = -1

// pendingWrite is what a Rewrite and a RowDelta share: the table state
// they are based on, the data files Add wrote, the conflict filter of
// ValidateNoConflictingData, and whether the commit is finished. mu guards
// the fields after it, and the fields of the type embedding it.
type pendingWrite struct {
	t      *Table
	base   *table.Table // the table state the write plans from
	target *arrow.Schema
	// op and kind name the write in errors: "lakehouse: <op> <table>:
	// the <kind> is finished".
	op, kind string

	mu       sync.Mutex
	added    []iceberg.DataFile
	validate bool
	filter   iceberg.BooleanExpression
	done     bool
}

// errFinished is the error of a use after Commit or Abort.
func (p *pendingWrite) errFinished() error {
	return fmt.Errorf("lakehouse: %s %s: the %s is finished", p.op, p.t.name, p.kind)
}

// BaseSnapshotID returns the id of the snapshot the write is based on, -1
// when the table had none (Iceberg's "no snapshot"): the id its commit
// compares the table's current snapshot with.
func (p *pendingWrite) BaseSnapshotID() int64 { return snapshotID(p.base) }

// PlanFiles is Table.PlanFiles on the write's base state.
func (p *pendingWrite) PlanFiles(ctx context.Context, filter iceberg.BooleanExpression) ([]DataFile, error) {
	return p.t.planFiles(ctx, p.base, filter)
}

// Add writes rec (aligned to the table schema as AppendBatch does) as its
// own data file now: one per partition it spans, rolling at the target file
// size. Give it the new content of one rewritten file, or the inserted rows
// sorted by key, so that each file keeps a narrow key range and later
// rewrites stay proportional to the keys they touch. An empty record writes
// nothing. rec is not released.
func (p *pendingWrite) Add(ctx context.Context, rec arrow.RecordBatch) error {
	_, err := p.add(ctx, rec)
	return err
}

// add is Add returning the files it wrote.
func (p *pendingWrite) add(ctx context.Context, rec arrow.RecordBatch) ([]iceberg.DataFile, error) {
	if p.isDone() {
		return nil, p.errFinished()
	}
	files, err := p.write(ctx, rec)
	if err != nil {
		return nil, err
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done { // aborted meanwhile
		p.t.removeFiles(files)
		return nil, p.errFinished()
	}
	p.added = append(p.added, files...)
	return files, nil
}

// write writes rec as Add does, without recording the files.
func (p *pendingWrite) write(ctx context.Context, rec arrow.RecordBatch) ([]iceberg.DataFile, error) {
	aligned, err := alignRecords(ctx, p.t.name, p.target, []arrow.RecordBatch{rec})
	if err != nil {
		return nil, fmt.Errorf("lakehouse: %s %s: %w", p.op, p.t.name, err)
	}
	files, err := p.t.writeRecords(ctx, p.base, p.target, aligned)
	if err != nil {
		return nil, fmt.Errorf("lakehouse: %s %s: write data files: %w", p.op, p.t.name, err)
	}
	return files, nil
}

// ValidateNoConflictingData makes the write serializable for rows matching
// filter (nil: every row), as Iceberg Java's OverwriteFiles and RowDelta
// with conflictDetectionFilter(filter) and validateNoConflictingData():
// when Commit finds that other writers committed since the base snapshot,
// it fails with ErrConflict if any data file they added could hold a row
// matching filter (by partition values and column statistics). A MERGE
// passes its key filter: a concurrent writer that inserted one of the
// merge's keys makes the merge recompute instead of inserting it again.
func (p *pendingWrite) ValidateNoConflictingData(filter iceberg.BooleanExpression) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.validate, p.filter = true, filter
}

// Abort deletes the files Add wrote and finishes the write without
// committing. It is a no-op after Commit.
func (p *pendingWrite) Abort() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.done {
		return
	}
	p.done = true
	p.t.removeFiles(p.added)
	p.added = nil
}

func (p *pendingWrite) isDone() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.done
}
