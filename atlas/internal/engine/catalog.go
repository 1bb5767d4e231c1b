package engine

import (
	"context"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/apache/arrow-go/v18/arrow"

	"github.com/atlas-lakehouse/atlas/atlas/internal/sparkerr"
	"github.com/atlas-lakehouse/atlas/atlas/internal/types"
)

// Catalog is spark.catalog over the session: its lakehouse catalog (whose
// namespaces are the databases) and its temp views. Each method answers a
// DataFrame with the columns of Spark Connect's answer.
type Catalog struct{ s *Session }

// Catalog returns the session's catalog functions.
func (s *Session) Catalog() *Catalog { return &Catalog{s: s} }

// defaultDatabase is the current database: Atlas has no USE, and Spark's
// default database is "default".
const defaultDatabase = "default"

// CurrentCatalog is the lakehouse catalog's name.
func (c *Catalog) CurrentCatalog() string { return c.s.LakehouseConfig().Name }

// CurrentDatabase is "default".
func (c *Catalog) CurrentDatabase() string { return defaultDatabase }

// like compiles a catalog pattern (* for any characters, | between
// alternatives, case-insensitive); "" matches everything.
func like(p string) *regexp.Regexp {
	if p == "" {
		return nil
	}
	alts := strings.Split(p, "|")
	for i, a := range alts {
		alts[i] = strings.ReplaceAll(regexp.QuoteMeta(strings.TrimSpace(a)), `\*`, ".*")
	}
	return regexp.MustCompile("(?i)^(" + strings.Join(alts, "|") + ")$")
}

func matches(re *regexp.Regexp, s string) bool { return re == nil || re.MatchString(s) }

var (
	stringType = arrow.BinaryTypes.String
	boolType   = arrow.FixedWidthTypes.Boolean
)

func fieldsOf(spec ...any) *arrow.Schema {
	var fs []arrow.Field
	for i := 0; i < len(spec); i += 2 {
		fs = append(fs, arrow.Field{Name: spec[i].(string), Type: spec[i+1].(arrow.DataType), Nullable: true})
	}
	return arrow.NewSchema(fs, nil)
}

// ListDatabases lists the lakehouse namespaces, as
// spark.catalog.listDatabases(pattern): name, catalog, description,
// locationUri.
func (c *Catalog) ListDatabases(ctx context.Context, pattern string) *DataFrame {
	lh, err := c.s.Lakehouse(ctx)
	if err != nil {
		return &DataFrame{s: c.s, err: err}
	}
	nss, err := lh.ListNamespaces(ctx)
	if err != nil {
		return &DataFrame{s: c.s, err: err}
	}
	re := like(pattern)
	var rows [][]any
	for _, ns := range nss {
		if matches(re, ns) {
			rows = append(rows, []any{ns, lh.Config().Name, nil, nil})
		}
	}
	return c.s.rowsFrame(fieldsOf("name", stringType, "catalog", stringType, "description", stringType, "locationUri", stringType), rows)
}

// DatabaseExists tells whether the namespace exists.
func (c *Catalog) DatabaseExists(ctx context.Context, db string) (bool, error) {
	lh, err := c.s.Lakehouse(ctx)
	if err != nil {
		return false, err
	}
	nss, err := lh.ListNamespaces(ctx)
	if err != nil {
		return false, err
	}
	db = c.stripCatalog(db)
	return slices.ContainsFunc(nss, func(n string) bool { return strings.EqualFold(n, db) }), nil
}

func (c *Catalog) stripCatalog(name string) string {
	if cat, rest, ok := strings.Cut(name, "."); ok && strings.EqualFold(cat, c.CurrentCatalog()) {
		return rest
	}
	return name
}

// ListTables lists the tables of a namespace and the temp views, as
// spark.catalog.listTables(dbName, pattern): name, catalog, namespace
// (array<string>), description, tableType, isTemporary.
func (c *Catalog) ListTables(ctx context.Context, db, pattern string) *DataFrame {
	re := like(pattern)
	var rows [][]any
	if db != "" && !strings.EqualFold(db, defaultDatabase) {
		lh, err := c.s.Lakehouse(ctx)
		if err != nil {
			return &DataFrame{s: c.s, err: err}
		}
		ns := c.stripCatalog(db)
		tables, err := lh.ListTables(ctx, ns)
		if err != nil {
			return &DataFrame{s: c.s, err: err}
		}
		for _, t := range tables {
			name := t[strings.LastIndexByte(t, '.')+1:]
			if matches(re, name) {
				rows = append(rows, []any{name, lh.Config().Name, []any{ns}, nil, "MANAGED", false})
			}
		}
	}
	for _, v := range c.s.TempViews() {
		if matches(re, v) {
			rows = append(rows, []any{v, nil, []any{}, nil, "TEMPORARY", true})
		}
	}
	return c.s.rowsFrame(fieldsOf("name", stringType, "catalog", stringType, "namespace", arrow.ListOf(stringType),
		"description", stringType, "tableType", stringType, "isTemporary", boolType), rows)
}

// qualified is the name of table in db ("" or default: table as given).
func qualified(table, db string) string {
	if db == "" || strings.EqualFold(db, defaultDatabase) {
		return table
	}
	return db + "." + table
}

// TableExists tells whether a temp view, memory table or lakehouse table
// of that name exists.
func (c *Catalog) TableExists(ctx context.Context, table, db string) (bool, error) {
	name := qualified(table, db)
	if _, ok := c.s.view(name); ok {
		return true, nil
	}
	if !strings.Contains(name, ".") {
		_, err := c.s.table(ctx, name)
		return err == nil, nil
	}
	lh, err := c.s.Lakehouse(ctx)
	if err != nil {
		return false, err
	}
	name = c.stripCatalog(name)
	ns, tbl := name[:max(strings.LastIndexByte(name, '.'), 0)], name[strings.LastIndexByte(name, '.')+1:]
	tables, err := lh.ListTables(ctx, ns)
	if err != nil {
		return false, nil // no such namespace
	}
	return slices.ContainsFunc(tables, func(t string) bool { return strings.EqualFold(t, ns+"."+tbl) }), nil
}

// ListColumns lists a table's columns, as spark.catalog.listColumns: name,
// description, dataType, nullable, isPartition, isBucket, isCluster.
func (c *Catalog) ListColumns(ctx context.Context, table, db string) *DataFrame {
	df, err := c.s.table(ctx, qualified(table, db))
	if err != nil {
		return &DataFrame{s: c.s, err: err}
	}
	var rows [][]any
	for _, f := range df.node.Schema().Fields() {
		rows = append(rows, []any{f.Name, nil, types.SQLName(f.Type), f.Nullable, false, false, false})
	}
	return c.s.rowsFrame(fieldsOf("name", stringType, "description", stringType, "dataType", stringType,
		"nullable", boolType, "isPartition", boolType, "isBucket", boolType, "isCluster", boolType), rows)
}

// TempViews lists the session's temp view names, sorted.
func (s *Session) TempViews() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for v := range s.views {
		if !strings.HasPrefix(v, hiddenViewPrefix) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// DropTempView drops a temp view, telling whether there was one.
func (s *Session) DropTempView(name string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	_, ok := s.views[strings.ToLower(name)]
	delete(s.views, strings.ToLower(name))
	return ok
}

// boolFrame is a DataFrame of one boolean, as the catalog's yes/no answers.
func (s *Session) boolFrame(v bool) *DataFrame {
	return s.rowsFrame(fieldsOf("value", boolType), [][]any{{v}})
}

// stringFrame is a DataFrame of one string.
func (s *Session) stringFrame(v string) *DataFrame {
	return s.rowsFrame(fieldsOf("value", stringType), [][]any{{v}})
}

// Answer is a catalog answer that is one value (tableExists,
// currentDatabase, ...) as a DataFrame of one row and one column, value.
func (c *Catalog) Answer(v any) *DataFrame {
	switch x := v.(type) {
	case bool:
		return c.s.boolFrame(x)
	case string:
		return c.s.stringFrame(x)
	case nil:
		return c.s.rowsFrame(fieldsOf("value", stringType), nil)
	}
	return &DataFrame{s: c.s, err: fmt.Errorf("catalog answer of type %T", v)}
}

// TableNotFound is Spark's TABLE_OR_VIEW_NOT_FOUND for name.
func TableNotFound(name string) error {
	return sparkerr.WithParams("TABLE_OR_VIEW_NOT_FOUND", map[string]string{"relationName": "`" + strings.ReplaceAll(name, ".", "`.`") + "`"},
		"The table or view `%s` cannot be found. Verify the spelling and correctness of the schema and catalog.", strings.ReplaceAll(name, ".", "`.`"))
}
