// Package lakehouse is Atlas's door to Apache Iceberg: catalog
// configuration, table creation and loading, exactly-once appends and
// overwrites keyed by (query id, batch id), copy-on-write merges and scans,
// all on iceberg-go. The embedded default is iceberg-go's SQL catalog on a
// sqlite file and a local warehouse directory; any other catalog or object
// store is a matter of configuration (environment variables or Config
// fields), never of code.
package lakehouse

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/apache/iceberg-go"
	"github.com/apache/iceberg-go/catalog"
	"github.com/apache/iceberg-go/table"

	// The SQL catalog registers itself with catalog.Load.
	_ "github.com/apache/iceberg-go/catalog/sql"
	// Pure-Go sqlite driver for the SQL catalog ("sqliteshim").
	_ "github.com/uptrace/bun/driver/sqliteshim"

	"github.com/atlas-lakehouse/atlas/atlas/internal/home"
)

// DefaultCatalogName is the catalog every table name starts with, as in
// lakehouse.gold.event_windows.
const DefaultCatalogName = "lakehouse"

// DefaultNamespaces are created by the embedded stack: the medallion layers.
var DefaultNamespaces = []string{"bronze", "silver", "gold"}

// Environment variables that configure the lakehouse.
const (
	// EnvHome is the root of all local state (broker data, catalog,
	// warehouse, checkpoints). Default: $HOME/.atlas.
	EnvHome = home.Env
	// EnvCatalogType selects the iceberg-go catalog type: "sql" (default),
	// "rest", "glue", "hive".
	EnvCatalogType = "ATLAS_CATALOG_TYPE"
	// EnvCatalogURI is the catalog URI: a sqlite or Postgres DSN for "sql",
	// the server URL for "rest".
	EnvCatalogURI = "ATLAS_CATALOG_URI"
	// EnvWarehouse is where table data goes: file:///abs/dir or s3://bucket/prefix.
	EnvWarehouse = "ATLAS_WAREHOUSE"
	// EnvCatalogProps adds catalog properties, "k=v,k2=v2" (for example
	// s3.endpoint=http://127.0.0.1:9000,s3.region=us-east-1).
	EnvCatalogProps = "ATLAS_CATALOG_PROPS"
)

// Home returns the Atlas home directory: $ATLAS_HOME, else $HOME/.atlas.
func Home() string { return home.Dir() }

// Config says which Iceberg catalog to use and where its data lives.
type Config struct {
	// Name is the catalog name tables are qualified with. Default "lakehouse".
	Name string
	// Type is the iceberg-go catalog type. Default "sql".
	Type string
	// URI is the catalog URI. Default: a sqlite file under Home()/catalog.
	URI string
	// Warehouse is the warehouse location. Default: file://Home()/warehouse.
	Warehouse string
	// Properties are extra catalog properties passed through to iceberg-go.
	Properties map[string]string
}

// ConfigFromEnv builds a Config from the ATLAS_* environment variables,
// filling the embedded defaults under home (Home() when empty).
func ConfigFromEnv(home string) Config {
	if home == "" {
		home = Home()
	}
	c := Config{
		Name:      DefaultCatalogName,
		Type:      os.Getenv(EnvCatalogType),
		URI:       os.Getenv(EnvCatalogURI),
		Warehouse: os.Getenv(EnvWarehouse),
	}
	if p := os.Getenv(EnvCatalogProps); p != "" {
		c.Properties = ParseProps(p)
	}
	return c.withDefaults(home)
}

// ParseProps parses catalog properties written as $ATLAS_CATALOG_PROPS
// is: "k=v,k2=v2".
func ParseProps(p string) map[string]string {
	props := map[string]string{}
	for _, kv := range strings.Split(p, ",") {
		if k, v, ok := strings.Cut(kv, "="); ok {
			props[strings.TrimSpace(k)] = strings.TrimSpace(v)
		}
	}
	return props
}

func (c Config) withDefaults(home string) Config {
	if c.Name == "" {
		c.Name = DefaultCatalogName
	}
	if c.Type == "" {
		c.Type = "sql"
	}
	if c.Type == "sql" && c.URI == "" {
		c.URI = SQLiteURI(filepath.Join(home, "catalog", "catalog.db"))
	}
	if c.Warehouse == "" {
		c.Warehouse = (&url.URL{Scheme: "file", Path: filepath.Join(home, "warehouse")}).String()
	}
	return c
}

// SQLiteURI returns the sqlite DSN for a catalog file, with the busy timeout
// and WAL journal that let several processes (notebook cells) share it.
func SQLiteURI(path string) string {
	return "file:" + path + "?_pragma=busy_timeout(10000)&_pragma=journal_mode(WAL)"
}

// properties turns the Config into iceberg-go catalog properties.
func (c Config) properties() iceberg.Properties {
	p := iceberg.Properties{"type": c.Type, "uri": c.URI, "warehouse": c.Warehouse}
	if c.Type == "sql" {
		if strings.HasPrefix(c.URI, "file:") || strings.HasSuffix(c.URI, ".db") {
			p["sql.driver"] = "sqliteshim"
			p["sql.dialect"] = "sqlite"
		} else if strings.HasPrefix(c.URI, "postgres") {
			p["sql.driver"] = "pgx"
			p["sql.dialect"] = "postgres"
		}
		p["init_catalog_tables"] = "true"
	}
	for k, v := range c.Properties {
		p[k] = v
	}
	return p
}

// String describes the catalog for status lines, secrets masked.
func (c Config) String() string {
	r := c.Redacted()
	return fmt.Sprintf("%s (%s catalog at %s, warehouse %s)", r.Name, r.Type, r.URI, r.Warehouse)
}

// localDirs returns the local directories the config needs to exist.
func (c Config) localDirs() []string {
	var dirs []string
	if strings.HasPrefix(c.URI, "file:") {
		p := strings.TrimPrefix(c.URI, "file:")
		if i := strings.IndexByte(p, '?'); i >= 0 {
			p = p[:i]
		}
		dirs = append(dirs, filepath.Dir(p))
	}
	if u, err := url.Parse(c.Warehouse); err == nil && u.Scheme == "file" {
		dirs = append(dirs, u.Path)
	}
	return dirs
}

// Open loads the catalog described by c, creating local directories of the
// embedded default when they are missing.
func Open(ctx context.Context, c Config) (*Lakehouse, error) {
	c = c.withDefaults(Home())
	for _, d := range c.localDirs() {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, c.RedactError(fmt.Errorf("lakehouse: create %s: %w", d, err))
		}
	}
	cat, err := catalog.Load(ctx, c.Name, c.properties())
	if err != nil {
		// The driver's message may quote the DSN: mask its secrets.
		if strings.Contains(err.Error(), "not registered") || strings.Contains(err.Error(), "unknown driver") {
			// Only the embedded SQL catalog on sqlite is linked by default.
			return nil, c.RedactError(fmt.Errorf("lakehouse: open catalog %s: %w (link the other catalogs and object stores: import _ \"github.com/atlas-lakehouse/atlas/atlas/drivers\"; the atlas CLI does)", c, err))
		}
		return nil, c.RedactError(fmt.Errorf("lakehouse: open catalog %s: %w", c, err))
	}
	return &Lakehouse{cfg: c, cat: cat, deletes: newDeleteCache()}, nil
}

// Lakehouse is an open catalog.
type Lakehouse struct {
	cfg Config
	cat catalog.Catalog
	// deletes caches decoded merge-on-read delete files.
	deletes *deleteCache
	// auto is the automatic maintenance, nil until StartMaintenance.
	auto atomic.Pointer[autoMaintenance]
	// writeLocks holds a *sync.Mutex per table identifier (writeLock).
	writeLocks sync.Map
}

// writeLock returns the lock every Table of this lakehouse on ident
// commits and refreshes under. A stream's sink, the SQL MERGE of its
// foreachBatch and the automatic maintenance each load their own Table;
// sharing the lock makes their commits take turns instead of racing, so a
// compaction that folds the deletes of concurrent MERGEs at commit
// (Rewrite.Commit) cannot lose to a MERGE committing meanwhile
// (apache/iceberg#1286).
func (l *Lakehouse) writeLock(ident table.Identifier) *sync.Mutex {
	key := strings.Join(ident, "\x00")
	if mu, ok := l.writeLocks.Load(key); ok {
		return mu.(*sync.Mutex)
	}
	mu, _ := l.writeLocks.LoadOrStore(key, &sync.Mutex{})
	return mu.(*sync.Mutex)
}

// Config returns the configuration the catalog was opened with.
func (l *Lakehouse) Config() Config { return l.cfg }

// Catalog returns the underlying iceberg-go catalog.
func (l *Lakehouse) Catalog() catalog.Catalog { return l.cat }

// Close stops the automatic maintenance (see StartMaintenance), waiting
// for a run in progress to give up, and releases the catalog's resources
// (the sqlite handle).
func (l *Lakehouse) Close() error {
	if m := l.auto.Load(); m != nil {
		m.stop()
	}
	if c, ok := l.cat.(catalog.Closer); ok {
		return c.Close()
	}
	return nil
}

// EnsureNamespaces creates the namespaces that do not exist yet.
func (l *Lakehouse) EnsureNamespaces(ctx context.Context, names ...string) error {
	for _, n := range names {
		ident := catalog.ToIdentifier(n)
		ok, err := l.cat.CheckNamespaceExists(ctx, ident)
		if err != nil {
			return fmt.Errorf("lakehouse: check namespace %s: %w", n, err)
		}
		if ok {
			continue
		}
		if err := l.cat.CreateNamespace(ctx, ident, nil); err != nil {
			if ok2, _ := l.cat.CheckNamespaceExists(ctx, ident); ok2 {
				continue // created concurrently
			}
			return fmt.Errorf("lakehouse: create namespace %s: %w", n, err)
		}
	}
	return nil
}
