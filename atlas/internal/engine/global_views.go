package engine

import (
	"fmt"
	"strings"
	"sync"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
)

// GlobalTempDatabase is the database global temp views live in, as
// Spark's spark.sql.globalTempDatabase: SELECT * FROM global_temp.v.
const GlobalTempDatabase = "global_temp"

// GlobalViews holds the global temp views of every session that shares it
// (the sessions of one server), as Spark's GlobalTempViewManager.
type GlobalViews struct {
	mu    sync.Mutex
	views map[string]*DataFrame
}

// NewGlobalViews returns an empty registry.
func NewGlobalViews() *GlobalViews { return &GlobalViews{views: map[string]*DataFrame{}} }

func (g *GlobalViews) get(name string) (*DataFrame, bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	df, ok := g.views[strings.ToLower(name)]
	return df, ok
}

// Drop drops a global temp view, telling whether there was one.
func (g *GlobalViews) Drop(name string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	_, ok := g.views[strings.ToLower(name)]
	delete(g.views, strings.ToLower(name))
	return ok
}

// GlobalViews makes the sessions built share g (else each session has its
// own).
func (b *SessionBuilder) GlobalViews(g *GlobalViews) *SessionBuilder { b.global = g; return b }

// globalView finds global_temp.name.
func (s *Session) globalView(name string) (*DataFrame, bool) {
	db, view, ok := strings.Cut(name, ".")
	if !ok || !strings.EqualFold(db, GlobalTempDatabase) || s.global == nil {
		return nil, false
	}
	return s.global.get(view)
}

// CreateGlobalTempView names the DataFrame for every session of the
// server, as global_temp.name (createGlobalTempView; replace for
// createOrReplaceGlobalTempView).
func (df *DataFrame) CreateGlobalTempView(name string, replace bool) error {
	if err := df.Err(); err != nil {
		return err
	}
	if df.IsStreaming() {
		return fmt.Errorf("createGlobalTempView(%q): streaming views are not supported; use it on the batch inside ForeachBatch", name)
	}
	if name == "" || strings.Contains(name, ".") {
		return sparkerr.New("INVALID_PARAMETER_VALUE", "global temp view name %q: a view name is one identifier", name)
	}
	g := df.s.global
	g.mu.Lock()
	defer g.mu.Unlock()
	key := strings.ToLower(name)
	if _, ok := g.views[key]; ok && !replace {
		return sparkerr.WithParams("TEMP_TABLE_OR_VIEW_ALREADY_EXISTS", map[string]string{"relationName": "`" + GlobalTempDatabase + "`.`" + name + "`"},
			"Cannot create the temporary view `%s`.`%s` because it already exists. Choose a different name, drop or replace the existing view, or add the IF NOT EXISTS clause to tolerate pre-existing views.", GlobalTempDatabase, name)
	}
	g.views[key] = df
	return nil
}

// DropGlobalTempView drops global_temp.name, telling whether there was one.
func (s *Session) DropGlobalTempView(name string) bool { return s.global.Drop(name) }
