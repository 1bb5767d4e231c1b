package checkpoint

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
)

// batchFormKey records the server-side foreachBatch a checkpoint was
// started with (BatchForm), beside the identity.
const batchFormKey = atlasPrefix + "foreachbatch.json"

// ErrBatchFormMismatch is returned by CheckBatchForm when a query starts
// from a checkpoint recorded for a different server-side foreachBatch.
var ErrBatchFormMismatch = errors.New("checkpoint belongs to a different foreachBatch")

// BatchForm is a server-side SQL foreachBatch: the view each micro-batch is
// published as and the statements run over it. A checkpoint records the
// first one started from it, so that another start from it (the notebook
// and `atlas run cdc` share one) runs the same work: a batch the first
// form committed is then never redone, nor skipped, by different code.
type BatchForm struct {
	// View is the temp view name of the micro-batch.
	View string `json:"view"`
	// Statements run in order for every micro-batch.
	Statements []string `json:"statements"`
}

// equal compares forms; statements compare without surrounding space.
func (f BatchForm) equal(o BatchForm) bool {
	trim := func(ss []string) []string {
		out := make([]string, len(ss))
		for i, s := range ss {
			out[i] = strings.TrimSpace(s)
		}
		return out
	}
	return strings.EqualFold(f.View, o.View) && slices.Equal(trim(f.Statements), trim(o.Statements))
}

// describe names the form in messages: its view and its first statement's
// first line.
func (f BatchForm) describe() string {
	first := ""
	if len(f.Statements) > 0 {
		first, _, _ = strings.Cut(strings.TrimSpace(f.Statements[0]), "\n")
	}
	return fmt.Sprintf("SQL over the view %s, %d statement(s) starting %q", f.View, len(f.Statements), first)
}

// CheckBatchForm checks a query's foreachBatch against the checkpoint's
// record: form is the SQL foreachBatch the query starts with, nil for any
// other sink (a Go ForeachBatch function, a table, files). A checkpoint
// with no record takes form as its record (nil records nothing); one with
// a record refuses any other form with ErrBatchFormMismatch naming both
// and the fix.
func (c *Checkpoint) CheckBatchForm(ctx context.Context, form *BatchForm) error {
	if err := c.checkLease(ctx); err != nil {
		return err
	}
	var cur BatchForm
	ok, err := readJSON(ctx, c.bucket, batchFormKey, &cur)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.location, err)
	}
	if ok {
		if form != nil && form.equal(cur) {
			return nil
		}
		this := "a sink that is not a server-side SQL foreachBatch (a Go ForeachBatch function, a table or files)"
		if form != nil {
			this = "a different server-side foreachBatch (" + form.describe() + ")"
		}
		return fmt.Errorf("%w: checkpoint %s was started by a server-side foreachBatch (%s); this query starts from it with %s. Start it with the same view and statements (the notebook and `atlas run cdc` share scenarios.MergeLatestChanges), or give a changed query its own QueryName or checkpointLocation; to adopt the change deliberately, stop the query and delete %s there",
			ErrBatchFormMismatch, c.location, cur.describe(), this, batchFormKey)
	}
	if form == nil {
		return nil
	}
	data, err := json.Marshal(form)
	if err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.location, err)
	}
	if err := c.store().createIfAbsent(ctx, batchFormKey, data); err != nil {
		return fmt.Errorf("checkpoint %s: record its foreachBatch: %w; run it again", c.location, err)
	}
	return nil
}
