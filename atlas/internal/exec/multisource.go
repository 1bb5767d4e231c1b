package exec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/source"
	"github.com/atlas-lakehouse/atlas/atlas/progress"
)

// multiSource reads the sources of a query with more than one (the two
// sides of a stream-stream join) as one: its offset is the JSON array of
// theirs, split back into one line per source in the offsets log, as
// Spark's OffsetSeq holds one offset per source.
type multiSource struct {
	srcs []source.Source
}

func (m *multiSource) split(o source.Offset) ([]source.Offset, error) {
	out := make([]source.Offset, len(m.srcs))
	if o == "" {
		return out, nil
	}
	var parts []string
	if err := json.Unmarshal([]byte(o), &parts); err != nil || len(parts) != len(m.srcs) {
		return nil, fmt.Errorf("offset %s is not an offset of %d sources", o, len(m.srcs))
	}
	for i, p := range parts {
		out[i] = source.Offset(p)
	}
	return out, nil
}

func (m *multiSource) combine(parts []source.Offset) source.Offset {
	all := true
	strs := make([]string, len(parts))
	for i, p := range parts {
		strs[i] = string(p)
		all = all && p == ""
	}
	if all {
		return ""
	}
	b, _ := json.Marshal(strs)
	return source.Offset(b)
}

// logOffsets is the offsets log's lines for o, one per source.
func (m *multiSource) logOffsets(o source.Offset) ([]source.Offset, error) { return m.split(o) }

func (m *multiSource) Description() string {
	d := make([]string, len(m.srcs))
	for i, s := range m.srcs {
		d[i] = s.Description()
	}
	return strings.Join(d, ", ")
}

func (m *multiSource) Schema() *arrow.Schema { return m.srcs[0].Schema() }

func (m *multiSource) each(ctx context.Context, o source.Offset, fn func(i int, s source.Source, o source.Offset) (source.Offset, error)) (source.Offset, error) {
	parts, err := m.split(o)
	if err != nil {
		return "", err
	}
	out := make([]source.Offset, len(parts))
	for i, s := range m.srcs {
		if out[i], err = fn(i, s, parts[i]); err != nil {
			return "", err
		}
	}
	return m.combine(out), nil
}

func (m *multiSource) InitialOffset(ctx context.Context) (source.Offset, error) {
	return m.each(ctx, "", func(_ int, s source.Source, _ source.Offset) (source.Offset, error) { return s.InitialOffset(ctx) })
}

func (m *multiSource) LatestOffset(ctx context.Context, start source.Offset) (source.Offset, error) {
	return m.each(ctx, start, func(_ int, s source.Source, o source.Offset) (source.Offset, error) { return s.LatestOffset(ctx, o) })
}

func (m *multiSource) AvailableOffset(ctx context.Context) (source.Offset, error) {
	return m.each(ctx, "", func(_ int, s source.Source, _ source.Offset) (source.Offset, error) { return s.AvailableOffset(ctx) })
}

// GetBatch is not used: the join reads each side with getSides.
func (m *multiSource) GetBatch(context.Context, source.Offset, source.Offset, func(arrow.RecordBatch) error) error {
	return errors.New("a query over several sources reads them side by side")
}

// getSides reads [start, end) of every source, source by source.
func (m *multiSource) getSides(ctx context.Context, start, end source.Offset, fn func(side int, rec arrow.RecordBatch) error) error {
	s, err := m.split(start)
	if err != nil {
		return err
	}
	e, err := m.split(end)
	if err != nil {
		return err
	}
	for i, src := range m.srcs {
		if s[i] == e[i] {
			continue
		}
		if err := src.GetBatch(ctx, s[i], e[i], func(rec arrow.RecordBatch) error { return fn(i, rec) }); err != nil {
			return fmt.Errorf("%s: %w", src.Description(), err)
		}
	}
	return nil
}

func (m *multiSource) Commit(ctx context.Context, end source.Offset) error {
	_, err := m.each(ctx, end, func(_ int, s source.Source, o source.Offset) (source.Offset, error) {
		if o == "" {
			return o, nil
		}
		return o, s.Commit(ctx, o)
	})
	return err
}

func (m *multiSource) Close() error {
	var errs []error
	for _, s := range m.srcs {
		errs = append(errs, s.Close())
	}
	return errors.Join(errs...)
}

// PrepareForAvailableNow pins every source that supports it.
func (m *multiSource) PrepareForAvailableNow(ctx context.Context) error {
	for _, s := range m.srcs {
		if an, ok := s.(source.AvailableNow); ok {
			if err := an.PrepareForAvailableNow(ctx); err != nil {
				return err
			}
		}
	}
	return nil
}

// DataLoss gathers what the sources skipped.
func (m *multiSource) DataLoss() []progress.DataLoss {
	var out []progress.DataLoss
	for _, s := range m.srcs {
		if r, ok := s.(source.DataLossReporter); ok {
			out = append(out, r.DataLoss()...)
		}
	}
	return out
}

// sourceProgress is one progress entry per source.
func (m *multiSource) sourceProgress(start, end, latest source.Offset, rows []int64) []progress.SourceProgress {
	s, _ := m.split(start)
	e, _ := m.split(end)
	l, _ := m.split(latest)
	out := make([]progress.SourceProgress, len(m.srcs))
	for i, src := range m.srcs {
		shown := func(o source.Offset) source.Offset { return o }
		if po, ok := src.(source.ProgressOffsets); ok {
			shown = po.ProgressOffset
		}
		at := func(parts []source.Offset) source.Offset {
			if parts == nil {
				return ""
			}
			return shown(parts[i])
		}
		out[i] = progress.SourceProgress{
			Description:  src.Description(),
			StartOffset:  jsonOrNull(at(s)),
			EndOffset:    jsonOrNull(at(e)),
			LatestOffset: jsonOrNull(at(l)),
			NumInputRows: rows[i],
		}
		if pm, ok := src.(source.ProgressMetrics); ok && e != nil && l != nil {
			out[i].Metrics = pm.ProgressMetrics(e[i], l[i])
		}
	}
	return out
}
