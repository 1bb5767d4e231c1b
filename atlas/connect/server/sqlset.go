package server

import (
	"maps"
	"slices"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/memory"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/planner"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	"github.com/atlas-lakehouse/atlas/atlas/internal/sql/parser"
)

// undefinedConf is what Spark's SET key shows for a key with no value.
const undefinedConf = "<undefined>"

// confStatement runs SET and RESET against the session's settings, the
// same ones spark.conf.get/set/unset reach, and returns Spark's result:
// the rows key, value of SET and no rows for RESET. ok is false for any
// other statement.
func confStatement(sess *session, stmt parser.Statement) (rel *pb.Relation, ok bool, err error) {
	switch st := stmt.(type) {
	case *parser.SetConfig:
		rows, err := sess.setStatement(st)
		if err != nil {
			return nil, true, err
		}
		rel, err := keyValueRelation(rows)
		return rel, true, err
	case *parser.ResetConfig:
		if err := sess.resetStatement(st); err != nil {
			return nil, true, err
		}
		data, err := planner.WriteIPC(arrow.NewSchema(nil, nil), nil)
		if err != nil {
			return nil, true, err
		}
		return &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}, true, nil
	}
	return nil, false, nil
}

// setStatement applies SET and returns its rows: the pair set, the one
// read (<undefined> when it has no value), or every setting the session
// holds.
func (sess *session) setStatement(st *parser.SetConfig) ([][2]string, error) {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	switch {
	case st.HasValue:
		if err := sess.setConfLocked(st.Key, st.Value); err != nil {
			return nil, err
		}
		return [][2]string{{st.Key, st.Value}}, nil
	case st.Key != "":
		v, ok := sess.confLocked(st.Key)
		if !ok {
			v = undefinedConf
		}
		return [][2]string{{st.Key, v}}, nil
	}
	rows := [][2]string{}
	for _, k := range slices.Sorted(maps.Keys(sess.conf)) {
		rows = append(rows, [2]string{k, sess.conf[k]})
	}
	return rows, nil
}

// resetStatement forgets the session's value of one setting, or of all.
func (sess *session) resetStatement(st *parser.ResetConfig) error {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	if st.Key != "" {
		return sess.unsetConfLocked(st.Key)
	}
	for _, k := range slices.Sorted(maps.Keys(sess.conf)) {
		if err := sess.unsetConfLocked(k); err != nil {
			return err
		}
	}
	return nil
}

// keyValueSchema is the schema of SET's result, as Spark's SetCommand.
var keyValueSchema = arrow.NewSchema([]arrow.Field{
	{Name: "key", Type: arrow.BinaryTypes.String, Nullable: false},
	{Name: "value", Type: arrow.BinaryTypes.String, Nullable: false},
}, nil)

// keyValueRelation is a local relation of key, value rows.
func keyValueRelation(rows [][2]string) (*pb.Relation, error) {
	b := array.NewRecordBuilder(memory.DefaultAllocator, keyValueSchema)
	defer b.Release()
	keys, values := b.Field(0).(*array.StringBuilder), b.Field(1).(*array.StringBuilder)
	for _, r := range rows {
		keys.Append(r[0])
		values.Append(r[1])
	}
	rec := b.NewRecordBatch()
	defer rec.Release()
	data, err := planner.WriteIPC(keyValueSchema, []arrow.RecordBatch{rec})
	if err != nil {
		return nil, err
	}
	return &pb.Relation{RelType: &pb.Relation_LocalRelation{LocalRelation: &pb.LocalRelation{Data: data}}}, nil
}
