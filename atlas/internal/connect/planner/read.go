package planner

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparkpb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// read plans spark.table(name) and spark.read...; streaming reads come
// through readStream.
func (p *Planner) read(ctx context.Context, r *pb.Read) (*engine.DataFrame, error) {
	switch t := r.GetReadType().(type) {
	case *pb.Read_NamedTable_:
		if r.GetIsStreaming() {
			return nil, unsupported("readStream.table", "read a stream from Kafka: readStream.format(\"kafka\")")
		}
		if len(t.NamedTable.GetOptions()) > 0 {
			return nil, unsupported("options on spark.table", "")
		}
		return p.Session.Table(t.NamedTable.GetUnparsedIdentifier()), nil
	case *pb.Read_DataSource_:
		if r.GetIsStreaming() {
			return p.readStream(t.DataSource)
		}
		return p.readFiles(t.DataSource)
	}
	return nil, fmt.Errorf("read: neither a named table nor a data source")
}

// localRelation is a DataFrame the client sent as Arrow IPC stream bytes
// (spark.createDataFrame, and the results of eager SQL commands).
func (p *Planner) localRelation(l *pb.LocalRelation) (*engine.DataFrame, error) {
	if len(l.GetData()) == 0 {
		return nil, unsupported("a local relation without data (schema only)", "")
	}
	schema, recs, err := ReadIPC(l.GetData())
	if err != nil {
		return nil, fmt.Errorf("local relation: %w", err)
	}
	defer func() {
		for _, r := range recs {
			r.Release()
		}
	}()
	schema, norm, err := normalizeTimestamps(context.Background(), schema, recs)
	if err != nil {
		return nil, err
	}
	defer func() {
		for _, r := range norm {
			r.Release()
		}
	}()
	return p.Session.CreateDataFrame(schema, norm), nil
}

// readFiles plans spark.read.format(...).schema(...).options(...).load(paths)
// for the file formats (json, csv, parquet); the files are read now.
func (p *Planner) readFiles(ds *pb.Read_DataSource) (*engine.DataFrame, error) {
	if len(ds.GetPredicates()) > 0 {
		return nil, unsupported("spark.read with predicates (JDBC)", "")
	}
	switch strings.ToLower(ds.GetFormat()) {
	case "json", "csv", "parquet", "kafka":
	default:
		return nil, unsupported("batch spark.read of format "+ds.GetFormat(), "read json, csv or parquet files, Kafka with format(\"kafka\"), or lakehouse tables with spark.table or SQL")
	}
	r := p.Session.Read().Format(ds.GetFormat()).Options(ds.GetOptions())
	if s := ds.GetSchema(); s != "" {
		ddl, err := schemaDDL(s)
		if err != nil {
			return nil, err
		}
		r = r.Schema(ddl)
	}
	df := r.Load(ds.GetPaths()...)
	for _, w := range r.Warnings() {
		p.warnf("spark.read.format(%q): %s", ds.GetFormat(), w)
	}
	return df, df.Err()
}

// schemaDDL accepts a schema as PySpark sends it: a DDL string, or the
// JSON of a StructType (schema.json()), which it turns into DDL.
func schemaDDL(s string) (string, error) {
	if !strings.HasPrefix(strings.TrimSpace(s), "{") {
		return s, nil
	}
	var st jsonType
	if err := json.Unmarshal([]byte(s), &st); err != nil {
		return "", fmt.Errorf("schema: %w", err)
	}
	if st.Type != "struct" {
		return "", fmt.Errorf("schema: want a struct type, got %q", st.Type)
	}
	fields, err := st.fieldsDDL(" ", ", ")
	if err != nil {
		return "", fmt.Errorf("schema: %w", err)
	}
	return fields, nil
}

// jsonType is a Spark DataType as DataType.json writes it: a type name
// string, or an object (struct, array, map).
type jsonType struct {
	Name   string
	Type   string `json:"type"`
	Fields []struct {
		Name string          `json:"name"`
		Type json.RawMessage `json:"type"`
	} `json:"fields"`
	ElementType json.RawMessage `json:"elementType"`
}

func (t *jsonType) fieldsDDL(sep, join string) (string, error) {
	var parts []string
	for _, f := range t.Fields {
		ft, err := jsonTypeDDL(f.Type)
		if err != nil {
			return "", fmt.Errorf("field %s: %w", f.Name, err)
		}
		parts = append(parts, "`"+strings.ReplaceAll(f.Name, "`", "``")+"`"+sep+ft)
	}
	return strings.Join(parts, join), nil
}

func jsonTypeDDL(raw json.RawMessage) (string, error) {
	var name string
	if err := json.Unmarshal(raw, &name); err == nil {
		switch name {
		case "integer":
			return "int", nil
		case "long":
			return "bigint", nil
		case "short":
			return "smallint", nil
		case "byte":
			return "tinyint", nil
		}
		return name, nil
	}
	var t jsonType
	if err := json.Unmarshal(raw, &t); err != nil {
		return "", err
	}
	switch t.Type {
	case "struct":
		f, err := t.fieldsDDL(":", ",")
		return "struct<" + f + ">", err
	case "array":
		e, err := jsonTypeDDL(t.ElementType)
		return "array<" + e + ">", err
	}
	return "", fmt.Errorf("type %s is not supported in a schema", t.Type)
}
