package exec

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
)

// opState locates one version of an operator's state in the checkpoint
// (state/<dir>/<version>). Every stateful operator writes and reads its
// versions through save and restore, so they all time their commits and
// name a missing version the same way.
type opState struct {
	ck      *checkpoint.Checkpoint
	dir     string
	version int64
}

// save writes what encode returns as state version s.version and returns
// how long both took, in ms (the operator's commitTimeMs).
func (s opState) save(ctx context.Context, encode func() ([]byte, error)) (int64, error) {
	t := time.Now()
	data, err := encode()
	if err != nil {
		return 0, err
	}
	if err := s.ck.WriteState(ctx, s.dir, s.version, data); err != nil {
		return 0, err
	}
	return since(t), nil
}

// restore hands decode a reader of the operator's state versions, for it
// to load version s.version from (the version itself, or a full copy and
// the changes after it). A missing version is an error saying that the
// checkpoint was written by a query without the operator (without names
// it: "this aggregation"); decode's own errors name the checkpoint.
func (s opState) restore(ctx context.Context, without string, decode func(read func(v int64) ([]byte, error)) error) error {
	var readErr error
	read := func(v int64) ([]byte, error) {
		data, ok, err := s.ck.ReadState(ctx, s.dir, v)
		if err == nil && !ok {
			err = fmt.Errorf("checkpoint %s: state version %d of %s is missing; the checkpoint was written by a query without %s: use a new checkpointLocation", s.ck.Location(), v, s.dir, without)
		}
		if err != nil {
			readErr = err
			return nil, err
		}
		return data, nil
	}
	err := decode(read)
	if err == nil || (readErr != nil && errors.Is(err, readErr)) {
		return err
	}
	return fmt.Errorf("checkpoint %s: %w", s.ck.Location(), err)
}

// restoreWhole is restore for an operator whose every version is a whole
// copy of its state: load gets version s.version, or empty (the state
// before batch 0) for version -1.
func (s opState) restoreWhole(ctx context.Context, empty []byte, without string, load func([]byte) error) error {
	return s.restore(ctx, without, func(read func(int64) ([]byte, error)) error {
		data := empty
		if s.version >= 0 {
			d, err := read(s.version)
			if err != nil {
				return err
			}
			data = d
		}
		return load(data)
	})
}
