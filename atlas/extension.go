package atlas

import (
	"fmt"

	anypb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/anylite"
)

// packExtension wraps an atlas.connect message in the google.protobuf.Any
// of a Spark Connect extension field: encoded and err are the message's
// MarshalVT results (called by the caller on its concrete type, see
// transport.go), typeURL its type URL. The bytes are those google's
// anypb.New writes and the server unpacks.
func packExtension(typeURL string, encoded []byte, err error) (*anypb.Any, error) {
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", typeURL, err)
	}
	return &anypb.Any{TypeUrl: typeURL, Value: encoded}, nil
}

// unpackExtension decodes the message of ext with decode (the UnmarshalVT
// of a new message of the type typeURL names).
func unpackExtension(ext *anypb.Any, typeURL string, decode func([]byte) error) error {
	if got := ext.GetTypeUrl(); got != typeURL {
		return fmt.Errorf("an extension of type %q, want %q", got, typeURL)
	}
	if err := decode(ext.GetValue()); err != nil {
		return fmt.Errorf("decode %s: %w", typeURL, err)
	}
	return nil
}
