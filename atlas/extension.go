package atlas

import (
	"fmt"

	protolite "github.com/aperturerobotics/protobuf-go-lite"

	anypb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/anylite"
)

// packExtension wraps m, an atlas.connect message, in the
// google.protobuf.Any of a Spark Connect extension field: its encoding under
// typeURL, the bytes google's anypb.New writes and the server unpacks.
func packExtension(m protolite.Message, typeURL string) (*anypb.Any, error) {
	b, err := m.MarshalVT()
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", typeURL, err)
	}
	return &anypb.Any{TypeUrl: typeURL, Value: b}, nil
}

// unpackExtension decodes the message of ext into m, which must be the
// message typeURL names.
func unpackExtension(ext *anypb.Any, m protolite.Message, typeURL string) error {
	if got := ext.GetTypeUrl(); got != typeURL {
		return fmt.Errorf("an extension of type %q, want %q", got, typeURL)
	}
	m.Reset()
	if err := m.UnmarshalVT(ext.GetValue()); err != nil {
		return fmt.Errorf("decode %s: %w", typeURL, err)
	}
	return nil
}
