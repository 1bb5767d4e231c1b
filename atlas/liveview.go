package atlas

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	atlaspb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaslite"
	"github.com/atlas-lakehouse/atlas/atlas/internal/view"
)

// noChartsNote is shown over the numbers table when the server does not
// draw progress charts (an Atlas server older than the ProgressCharts
// extension, or another Spark Connect server).
const noChartsNote = "The server does not draw progress charts (it lacks Atlas's ProgressCharts extension): the latest batches' numbers instead. Upgrade the server (atlas up) for charts."

// liveView drives view.LiveView from the server's progress. In a notebook
// it asks the server for the progress together with its charts (the
// atlas.connect.ProgressCharts extension: the server builds the echarts
// options, so a cell links no chart library); in a terminal, or without
// the echarts bundle, it asks for recentProgress only.
type liveView struct {
	q    *StreamingQuery
	view *view.LiveView
	snap view.Snapshot
	// noCharts is set once the server answered that it lacks the
	// extension: from then on the view asks for recentProgress.
	noCharts bool
}

func newLiveView(q *StreamingQuery) *liveView {
	title := q.name
	if title == "" {
		title = q.s.appName
	}
	return &liveView{q: q, view: view.NewLiveView(title)}
}

func (v *liveView) refresh(ctx context.Context) {
	ctx, cancel := context.WithTimeout(ctx, pollInterval)
	defer cancel()
	snap, err := v.fetch(ctx)
	if err != nil {
		return // the view lags; the wait reports real failures
	}
	v.snap = snap
	v.view.Update(snap)
}

// fetch asks the server for what the next frame shows.
func (v *liveView) fetch(ctx context.Context) (view.Snapshot, error) {
	if v.view.WantsCharts() && !v.noCharts {
		snap, err := v.q.progressCharts(ctx)
		if err == nil || !lacksExtension(err) {
			return snap, err
		}
		v.noCharts = true
	}
	ps, err := v.q.progressList(ctx, false)
	if err != nil {
		return view.Snapshot{}, err
	}
	snap := view.Snapshot{Progress: ps}
	if v.noCharts {
		snap.NoCharts = noChartsNote
	}
	return snap, nil
}

// lacksExtension reports whether err is a server's answer that it does not
// know the ProgressCharts extension: an Atlas server before it answers
// UNIMPLEMENTED ("command extension ... is not supported"), Apache Spark an
// error about the unknown extension.
func lacksExtension(err error) bool {
	var se *ServerError
	if !errors.As(err, &se) {
		return false
	}
	return se.Code == CodeUnimplemented || strings.Contains(se.Message, "extension")
}

// progressCharts runs the atlas.connect.ProgressCharts extension: the
// query's recent progress and the charts the server drew from it.
func (q *StreamingQuery) progressCharts(ctx context.Context) (view.Snapshot, error) {
	b, err := (&atlaspb.ProgressCharts{QueryId: q.id}).MarshalVT()
	res := &atlaspb.ProgressChartsResult{}
	if err := q.s.runExtension(ctx, atlaspb.TypeURLProgressCharts, b, err, atlaspb.TypeURLProgressChartsResult, res.UnmarshalVT); err != nil {
		return view.Snapshot{}, fmt.Errorf("query %s: progress charts: %w", q.displayName(), err)
	}
	var snap view.Snapshot
	for i, js := range res.GetRecentProgressJson() {
		var p StreamingQueryProgress
		if err := json.Unmarshal([]byte(js), &p); err != nil {
			return view.Snapshot{}, fmt.Errorf("query %s: progress %d: %w", q.displayName(), i, err)
		}
		snap.Progress = append(snap.Progress, p)
	}
	q.log.record(q.RunID(), snap.Progress)
	for _, c := range res.GetCharts() {
		snap.Charts = append(snap.Charts, view.Chart{Title: c.GetTitle(), Option: c.GetOptionJson(), TimeY: c.GetTimeY()})
	}
	return snap, nil
}

func (v *liveView) close(err error) {
	if err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) {
		v.closeStatus("failed: " + err.Error())
		return
	}
	if errors.Is(err, context.DeadlineExceeded) {
		v.view.SetStatus(watchEndedStatus(time.Now()))
	}
	v.view.Update(v.snap)
	v.view.Close()
}

// watchEndedStatus is the last frame's status when a cell stops watching
// a query that goes on: in the past tense and dated, so the saved frame
// stays true after a later cell stops the query.
func watchEndedStatus(at time.Time) string {
	return "running at " + at.UTC().Format("15:04:05") + " UTC, when this cell stopped watching (the query went on)"
}

func (v *liveView) closeStatus(status string) {
	v.view.SetStatus(status)
	v.view.Update(v.snap)
	v.view.Close()
}
