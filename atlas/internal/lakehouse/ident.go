package lakehouse

import (
	"fmt"
	"strings"

	"github.com/apache/iceberg-go/table"
)

// ParseIdent splits a table name as Spark SQL writes it into the catalog name
// and the Iceberg identifier (namespace parts then table name):
//
//	lakehouse.gold.event_windows  → "lakehouse", [gold event_windows]
//	gold.event_windows            → DefaultCatalogName, [gold event_windows]
//
// Names with four or more parts are catalog.ns1.ns2...table. A part may be
// quoted with backticks (`gold`.`event windows`); unquoted parts may not hold
// spaces. A single part (no namespace) is an error: Iceberg tables always live
// in a namespace.
func ParseIdent(name string) (catalogName string, ident table.Identifier, err error) {
	parts, err := splitIdent(name)
	if err != nil {
		return "", nil, err
	}
	switch len(parts) {
	case 1:
		return "", nil, fmt.Errorf("lakehouse: table name %q has no namespace: write it as namespace.table, for example gold.%s", name, parts[0])
	case 2:
		return DefaultCatalogName, table.Identifier(parts), nil
	default:
		return parts[0], table.Identifier(parts[1:]), nil
	}
}

// splitIdent splits a dotted name into its parts, honouring backtick quotes.
func splitIdent(name string) ([]string, error) {
	s := strings.TrimSpace(name)
	if s == "" {
		return nil, fmt.Errorf("lakehouse: empty table name")
	}
	var (
		parts  []string
		cur    strings.Builder
		quoted bool // inside `...`
		wasQ   bool // the current part was quoted
	)
	flush := func() error {
		p := cur.String()
		if !wasQ {
			p = strings.TrimSpace(p)
		}
		if p == "" {
			return fmt.Errorf("lakehouse: table name %q has an empty part", name)
		}
		if !wasQ && strings.ContainsAny(p, " \t\n`") {
			return fmt.Errorf("lakehouse: table name %q: part %q holds a space; quote it with backticks", name, p)
		}
		if strings.ContainsAny(p, "/\\") {
			return fmt.Errorf("lakehouse: table name %q: part %q may not hold a path separator", name, p)
		}
		parts = append(parts, p)
		cur.Reset()
		wasQ = false
		return nil
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '`':
			if quoted && i+1 < len(s) && s[i+1] == '`' { // `` is an escaped backtick
				cur.WriteByte('`')
				i++
				continue
			}
			if !quoted && strings.TrimSpace(cur.String()) != "" {
				return nil, fmt.Errorf("lakehouse: table name %q: backtick inside a part", name)
			}
			if !quoted {
				cur.Reset()
			}
			quoted = !quoted
			wasQ = true
		case c == '.' && !quoted:
			if err := flush(); err != nil {
				return nil, err
			}
		default:
			if wasQ && !quoted && c != ' ' {
				return nil, fmt.Errorf("lakehouse: table name %q: text after a closing backtick", name)
			}
			if !(wasQ && !quoted) {
				cur.WriteByte(c)
			}
		}
	}
	if quoted {
		return nil, fmt.Errorf("lakehouse: table name %q: unclosed backtick", name)
	}
	if err := flush(); err != nil {
		return nil, err
	}
	return parts, nil
}

// resolve parses name and checks that it names a table of this catalog. It
// returns the identifier and the fully qualified display name.
func (l *Lakehouse) resolve(name string) (table.Identifier, string, error) {
	cat, ident, err := ParseIdent(name)
	if err != nil {
		return nil, "", err
	}
	// A two-part name means "this catalog", whatever it is called.
	if parts, _ := splitIdent(name); len(parts) == 2 {
		cat = l.cfg.Name
	}
	if !strings.EqualFold(cat, l.cfg.Name) {
		return nil, "", fmt.Errorf("lakehouse: table %q is in catalog %q, but this lakehouse is catalog %q", name, cat, l.cfg.Name)
	}
	return ident, l.cfg.Name + "." + strings.Join(ident, "."), nil
}
