package atlas_test

import (
	"bytes"
	"fmt"
	"testing"

	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	// The Any payloads the client sends are atlas.connect messages: their
	// types must be in the registry checkWire resolves type URLs with.
	_ "github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
)

// wireCodec is the fake server's gRPC codec: google.golang.org/protobuf,
// as the real server's, plus checkWire on the raw bytes of every request,
// which the client encoded with its protobuf-go-lite code (sparklite).
type wireCodec struct{ t *testing.T }

func (wireCodec) Name() string { return "proto" }

func (wireCodec) Marshal(v any) ([]byte, error) { return proto.Marshal(v.(proto.Message)) }

func (c wireCodec) Unmarshal(data []byte, v any) error {
	m := v.(proto.Message)
	if err := proto.Unmarshal(data, m); err != nil {
		c.t.Errorf("the server cannot decode the client's %T: %v", m, err)
		return err
	}
	if err := checkWire(data, m); err != nil {
		c.t.Errorf("the client's %T differs on the wire from the server's encoding: %v", m, err)
		return err
	}
	return nil
}

// checkWire checks that raw, a message the client encoded, is what the
// server's generated code (sparkpb, atlaspb) encodes for m, its decoding:
// no field the server does not know (a wrong number or wire type lands in
// the unknown fields), the same size, and the same bytes in protobuf-go's
// deterministic order (protobuf-go-lite writes map entries in Go's map
// order: a message with a map of two or more entries is compared by size).
// Any payloads are unpacked with google's anypb and checked the same way.
func checkWire(raw []byte, m proto.Message) error {
	if err := noUnknown(m.ProtoReflect(), string(m.ProtoReflect().Descriptor().FullName())); err != nil {
		return err
	}
	if n := proto.Size(m); n != len(raw) {
		return fmt.Errorf("%d bytes, the server encodes %d", len(raw), n)
	}
	if !hasMultiEntryMap(m.ProtoReflect()) {
		want, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
		if err != nil {
			return err
		}
		if !bytes.Equal(raw, want) {
			return fmt.Errorf("bytes\n %x\nthe server encodes\n %x", raw, want)
		}
	}
	return nil
}

// noUnknown reports the first unknown field in m or its sub-messages,
// unpacking google.protobuf.Any values.
func noUnknown(m protoreflect.Message, path string) error {
	if u := m.GetUnknown(); len(u) > 0 {
		return fmt.Errorf("%s has %d bytes of fields the server does not know: %x", path, len(u), []byte(u))
	}
	if m.Descriptor().FullName() == "google.protobuf.Any" {
		a := m.Interface().(*anypb.Any)
		inner, err := a.UnmarshalNew()
		if err != nil {
			return fmt.Errorf("%s: the server cannot unpack %s: %w", path, a.GetTypeUrl(), err)
		}
		if err := checkWire(a.GetValue(), inner); err != nil {
			return fmt.Errorf("%s (%s): %w", path, a.GetTypeUrl(), err)
		}
		return nil
	}
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		p := path + "." + string(fd.Name())
		switch {
		case fd.IsMap():
			if fd.MapValue().Message() != nil {
				v.Map().Range(func(k protoreflect.MapKey, mv protoreflect.Value) bool {
					err = noUnknown(mv.Message(), p+"["+k.String()+"]")
					return err == nil
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := 0; i < v.List().Len() && err == nil; i++ {
					err = noUnknown(v.List().Get(i).Message(), fmt.Sprintf("%s[%d]", p, i))
				}
			}
		case fd.Message() != nil:
			err = noUnknown(v.Message(), p)
		}
		return err == nil
	})
	return err
}

// hasMultiEntryMap reports whether m or a sub-message has a map field with
// two or more entries.
func hasMultiEntryMap(m protoreflect.Message) bool {
	found := false
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		switch {
		case fd.IsMap():
			found = v.Map().Len() > 1
			if !found && fd.MapValue().Message() != nil {
				v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool {
					found = hasMultiEntryMap(mv.Message())
					return !found
				})
			}
		case fd.IsList():
			if fd.Message() != nil {
				for i := 0; i < v.List().Len() && !found; i++ {
					found = hasMultiEntryMap(v.List().Get(i).Message())
				}
			}
		case fd.Message() != nil:
			found = hasMultiEntryMap(v.Message())
		}
		return !found
	})
	return found
}
