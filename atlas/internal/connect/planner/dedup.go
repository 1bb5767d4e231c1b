package planner

import (
	"context"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// deduplicate is df.dropDuplicates(subset) and
// df.dropDuplicatesWithinWatermark(subset): PySpark sends
// all_columns_as_keys without a subset, column_names with one, and
// within_watermark for the second.
func (p *Planner) deduplicate(ctx context.Context, d *pb.Deduplicate) (*engine.DataFrame, error) {
	in, err := p.Relation(ctx, d.GetInput())
	if err != nil {
		return nil, err
	}
	cols := d.GetColumnNames()
	if d.GetAllColumnsAsKeys() {
		cols = nil
	}
	if d.GetWithinWatermark() {
		return in.DropDuplicatesWithinWatermark(cols...), nil
	}
	return in.DropDuplicates(cols...), nil
}
