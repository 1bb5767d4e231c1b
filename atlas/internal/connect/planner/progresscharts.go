package planner

import (
	"encoding/json"
	"fmt"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
	"github.com/atlas-lakehouse/atlas/atlas/internal/progresschart"
)

// ProgressCharts answers the atlas.connect.ProgressCharts extension: sq's
// recent progress and the charts drawn from exactly those batches, built
// here with go-echarts so that the client links no chart library.
func ProgressCharts(sq *engine.StreamingQuery) (*atlaspb.ProgressChartsResult, error) {
	ps := sq.RecentProgress()
	out := &atlaspb.ProgressChartsResult{}
	for _, p := range ps {
		js, err := json.Marshal(p)
		if err != nil {
			return nil, fmt.Errorf("encode progress of batch %d: %w", p.BatchID, err)
		}
		out.RecentProgressJson = append(out.RecentProgressJson, string(js))
	}
	if len(ps) == 0 {
		return out, nil
	}
	charts, err := progresschart.Build(ps)
	if err != nil {
		return nil, fmt.Errorf("progress charts of query %s: %w", sq.ID(), err)
	}
	for _, c := range charts {
		out.Charts = append(out.Charts, &atlaspb.ProgressChart{Title: c.Title, OptionJson: c.Option, TimeY: c.TimeY})
	}
	return out, nil
}
