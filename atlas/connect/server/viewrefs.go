package server

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
)

// A streaming plan may read session state a restart loses: temp views
// (the static side of a stream-static join) and memory-sink tables. The
// server keeps the relation each createOrReplaceTempView gave, so a query
// record can carry the definitions of the views its plan reads and a
// resume creates them again before it plans the query.

// setViewDef remembers the definition of temp view name.
func (s *session) setViewDef(name string, rel *pb.Relation) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.viewDefs == nil {
		s.viewDefs = map[string]*pb.Relation{}
	}
	s.viewDefs[strings.ToLower(name)] = proto.Clone(rel).(*pb.Relation)
}

// viewsFor returns the definitions of the temp views rel reads, each after
// the views it reads itself, or why the plan reads session state a restart
// cannot rebuild.
func (s *session) viewsFor(rel *pb.Relation) ([]viewRecord, string, error) {
	s.mu.Lock()
	defs := make(map[string]*pb.Relation, len(s.viewDefs))
	for k, v := range s.viewDefs {
		defs[k] = v
	}
	s.mu.Unlock()
	var (
		out     []viewRecord
		done    = map[string]bool{}
		visit   func(m proto.Message, path []string) (string, error)
		sqlWord = func(sql, name string) bool {
			return regexp.MustCompile(`(?i)(^|[^\w.])` + regexp.QuoteMeta(name) + `($|[^\w.])`).MatchString(sql)
		}
	)
	visit = func(m proto.Message, path []string) (string, error) {
		tables, sqls := relationRefs(m)
		var names []string
		for _, t := range tables {
			if strings.Contains(t, ".") {
				continue // a lakehouse table: durable
			}
			n := strings.ToLower(strings.Trim(t, "`"))
			if defs[n] == nil {
				return fmt.Sprintf("its plan reads %q, a memory-sink table or a temp view the server has no definition of, which a restart does not bring back", t), nil
			}
			names = append(names, n)
		}
		for n := range defs {
			for _, q := range sqls {
				if sqlWord(q, n) {
					names = append(names, n)
					break
				}
			}
		}
		sort.Strings(names)
		for _, n := range names {
			if done[n] {
				continue
			}
			for _, p := range path {
				if p == n {
					return "", fmt.Errorf("temp view %s reads itself", n)
				}
			}
			if why, err := visit(defs[n], append(path, n)); why != "" || err != nil {
				return why, err
			}
			data, err := proto.Marshal(defs[n])
			if err != nil {
				return "", fmt.Errorf("encode temp view %s: %w", n, err)
			}
			done[n] = true
			out = append(out, viewRecord{Name: n, Relation: data})
		}
		return "", nil
	}
	why, err := visit(rel, nil)
	if why != "" || err != nil {
		return nil, why, err
	}
	return out, "", nil
}

// relationRefs lists the table names a plan reads (spark.table) and the
// SQL texts it holds, wherever they are in the message tree.
func relationRefs(m proto.Message) (tables, sqls []string) {
	var walk func(protoreflect.Message)
	walk = func(msg protoreflect.Message) {
		switch v := msg.Interface().(type) {
		case *pb.Read_NamedTable:
			tables = append(tables, v.GetUnparsedIdentifier())
		case *pb.SQL:
			sqls = append(sqls, v.GetQuery())
		}
		msg.Range(func(fd protoreflect.FieldDescriptor, val protoreflect.Value) bool {
			switch {
			case fd.IsList() && fd.Message() != nil:
				l := val.List()
				for i := range l.Len() {
					walk(l.Get(i).Message())
				}
			case fd.IsMap() && fd.MapValue().Message() != nil:
				val.Map().Range(func(_ protoreflect.MapKey, v protoreflect.Value) bool {
					walk(v.Message())
					return true
				})
			case !fd.IsList() && !fd.IsMap() && fd.Message() != nil:
				walk(val.Message())
			}
			return true
		})
	}
	if m != nil {
		walk(m.ProtoReflect())
	}
	return tables, sqls
}
