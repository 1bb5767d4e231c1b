package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"
)

// The server records every streaming query it runs in a file of its state
// directory (queries/<query id>.json), written when the query starts and
// removed when it stops for any reason but the server going down. A
// server that starts restarts the recorded queries it can (see resume.go)
// and reports the others. The file's content is queryRecord in JSON; the
// plan is the protobuf encoding of the WriteStreamOperationStart command.

// EnvResume names the environment variable that turns the resuming of
// streaming queries off ("0", "false" or "off"): the server then neither
// records its queries nor restarts recorded ones, and leaves their records
// for a later start.
const EnvResume = "ATLAS_CONNECT_RESUME"

// recordVersion is the layout version of a query record.
const recordVersion = 1

// StateDir is where a server serving the Atlas home keeps its state: the
// records of its streaming queries and the report of its last resume.
func StateDir(home string) string { return filepath.Join(home, "run", "connect") }

// queryRecord is what a server needs to restart a streaming query.
type queryRecord struct {
	Version int `json:"version"`
	// Principal, User and Session are the session key the query runs
	// in: the authenticated principal (empty for a server without
	// authentication), the user id and the session id.
	Principal string `json:"principal,omitempty"`
	User      string `json:"user"`
	Session   string `json:"session"`
	QueryID   string `json:"queryId"`
	RunID     string `json:"runId"`
	// EarlierRuns are the runs RunID continues (resumed after restarts,
	// oldest first, at most maxEarlierRuns): their handles still reach it.
	EarlierRuns []string `json:"earlierRuns,omitempty"`
	Name        string   `json:"name,omitempty"`
	// Sink and Checkpoint describe the query for people reading the file.
	Sink       string    `json:"sink"`
	Checkpoint string    `json:"checkpoint,omitempty"`
	StartedAt  time.Time `json:"startedAt"`
	// NotResumable, when set, is why the query cannot be restarted: the
	// next start reports it and forgets the record.
	NotResumable string `json:"notResumable,omitempty"`
	// Command is the WriteStreamOperationStart (protobuf), its checkpoint
	// location made explicit.
	Command []byte `json:"command,omitempty"`
	// ForeachBatchSQL, when set, is the server-side foreachBatch the query
	// runs (atlas.connect.SqlForeachBatchStart): Command carries the rest.
	ForeachBatchSQL *sqlBatchRecord `json:"foreachBatchSql,omitempty"`
	// Views are the session's temp views the plan reads, in the order to
	// create them again.
	Views []viewRecord `json:"views,omitempty"`
	// Conf is the session's Spark configuration (spark.conf.set).
	Conf map[string]string `json:"conf,omitempty"`
	// LastError is why the last attempt to resume failed, at LastAttempt.
	LastError   string    `json:"lastError,omitempty"`
	LastAttempt time.Time `json:"lastAttempt,omitzero"`
}

// viewRecord is a temp view's definition: the relation given to
// createOrReplaceTempView (protobuf).
type viewRecord struct {
	Name     string `json:"name"`
	Relation []byte `json:"relation"`
}

// label names the query in messages: its name, else its id.
func (r *queryRecord) label() string {
	if r.Name != "" {
		return fmt.Sprintf("%s (id %s)", r.Name, r.QueryID)
	}
	return "id " + r.QueryID
}

// sessionTag names the record's session in log lines.
func (r *queryRecord) sessionTag() string { return sessionTag(r.Principal, r.User, r.Session) }

// queryStore keeps query records in dir/queries.
type queryStore struct {
	dir string

	mu sync.Mutex // serializes writes and conditional removals
}

func newQueryStore(stateDir string) *queryStore {
	return &queryStore{dir: filepath.Join(stateDir, "queries")}
}

func (st *queryStore) path(queryID string) string {
	return filepath.Join(st.dir, queryID+".json")
}

// put writes rec atomically (temp file, fsync, rename), replacing the
// record of the same query.
func (st *queryStore) put(rec *queryRecord) error {
	if rec.QueryID == "" || strings.ContainsAny(rec.QueryID, `/\`) || strings.HasPrefix(rec.QueryID, ".") {
		return fmt.Errorf("record query: invalid query id %q", rec.QueryID)
	}
	rec.Version = recordVersion
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return fmt.Errorf("record query %s: %w", rec.QueryID, err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return writeAtomic(st.path(rec.QueryID), append(data, '\n'))
}

// forget removes the record of queryID when it is the record of run runID
// (a later run of the same query keeps its own), and reports whether it did.
func (st *queryStore) forget(queryID, runID string) (bool, error) {
	st.mu.Lock()
	defer st.mu.Unlock()
	rec, err := readRecord(st.path(queryID))
	if errors.Is(err, fs.ErrNotExist) {
		return false, nil
	}
	if err == nil && rec.RunID != runID {
		return false, nil
	}
	// An unreadable record of this id is removed too: it is this query's.
	if err := os.Remove(st.path(queryID)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return false, fmt.Errorf("forget query %s: %w", queryID, err)
	}
	return true, nil
}

// list reads every record, oldest start first; files it cannot read are
// returned with their error, never deleted.
func (st *queryStore) list() ([]*queryRecord, map[string]error) {
	entries, err := os.ReadDir(st.dir)
	bad := map[string]error{}
	if err != nil {
		if !errors.Is(err, fs.ErrNotExist) {
			bad[st.dir] = err
		}
		return nil, bad
	}
	var out []*queryRecord
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		p := filepath.Join(st.dir, e.Name())
		rec, err := readRecord(p)
		if err != nil {
			bad[p] = err
			continue
		}
		out = append(out, rec)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].StartedAt.Before(out[j].StartedAt) })
	return out, bad
}

func readRecord(path string) (*queryRecord, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	rec := &queryRecord{}
	if err := json.Unmarshal(data, rec); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if rec.Version != recordVersion {
		return nil, fmt.Errorf("%s: record version %d, this server reads version %d", path, rec.Version, recordVersion)
	}
	if rec.QueryID+".json" != filepath.Base(path) {
		return nil, fmt.Errorf("%s: the record is of query %q", path, rec.QueryID)
	}
	return rec, nil
}

// writeAtomic replaces path with data: a crash leaves the old file or the
// new one, never a part.
func writeAtomic(path string, data []byte) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	tmp := f.Name()
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write %s: %w", path, err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // the rename survives a power loss
		d.Close()
	}
	return nil
}

// ResumeReport is what a server did at its last start with the streaming
// queries its previous run left: which it restarted and which it could
// not, with the reason. The server writes it to StateDir/resume.json;
// `atlas status` shows it.
type ResumeReport struct {
	// At is when the server started.
	At time.Time `json:"at"`
	// Disabled is set when $ATLAS_CONNECT_RESUME turned resuming off.
	Disabled bool `json:"disabled,omitempty"`
	// Resumed are the queries restarted from their checkpoints.
	Resumed []ResumedQuery `json:"resumed,omitempty"`
	// NotResumed are the queries that were not, with the reason.
	NotResumed []ResumedQuery `json:"notResumed,omitempty"`
}

// ResumedQuery is one query of a ResumeReport.
type ResumedQuery struct {
	Session string `json:"session"`
	Name    string `json:"name,omitempty"`
	ID      string `json:"id"`
	// RunID is the new run of a resumed query.
	RunID string `json:"runId,omitempty"`
	// Reason is why the query was not resumed.
	Reason string `json:"reason,omitempty"`
	// Record is the record kept for the next start to try again, "" when
	// the query is forgotten (it cannot be resumed at all).
	Record string `json:"record,omitempty"`
}

// reportFile is the report's file name in the state directory.
const reportFile = "resume.json"

// ReadResumeReport reads the report of the last start of the server whose
// state directory is stateDir (see StateDir); ok is false when there is none.
func ReadResumeReport(stateDir string) (r ResumeReport, ok bool, err error) {
	data, err := os.ReadFile(filepath.Join(stateDir, reportFile))
	if errors.Is(err, fs.ErrNotExist) {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("read resume report: %w", err)
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return r, false, fmt.Errorf("read resume report %s: %w", filepath.Join(stateDir, reportFile), err)
	}
	return r, true, nil
}

func writeReport(stateDir string, r ResumeReport) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("resume report: %w", err)
	}
	return writeAtomic(filepath.Join(stateDir, reportFile), append(data, '\n'))
}

// RecordedCheckpoints returns the checkpoint locations named by the
// resume records of the server serving home (location -> record file),
// read from disk whether or not the server runs: checkpoint retention
// keeps them, since the server resumes their queries at its next start.
// A record it cannot read is an error, since it may name any checkpoint.
func RecordedCheckpoints(home string) (map[string]string, error) {
	st := newQueryStore(StateDir(home))
	recs, bad := st.list()
	for p, err := range bad {
		return nil, fmt.Errorf("resume record %s: %w", p, err)
	}
	out := map[string]string{}
	for _, rec := range recs {
		if rec.Checkpoint != "" {
			out[rec.Checkpoint] = st.path(rec.QueryID)
		}
	}
	return out, nil
}
