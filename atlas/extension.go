package atlas

import (
	"context"
	"errors"
	"fmt"

	anypb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/anylite"
	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
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

// errNoExtensionResult is runExtension's error when the server's answer
// holds no extension of the result type.
var errNoExtensionResult = errors.New("the server answered without a result")

// runExtension runs an Atlas command extension, typeURL with its MarshalVT
// results encoded and err, and decodes with decode (the UnmarshalVT of a
// new message of that type) the last extension of type resultURL the
// server answers with.
func (s *Session) runExtension(ctx context.Context, typeURL string, encoded []byte, err error, resultURL string, decode func([]byte) error) error {
	ext, err := packExtension(typeURL, encoded, err)
	if err != nil {
		return err
	}
	resps, err := s.command(ctx, &pb.Command{CommandType: &pb.Command_Extension{Extension: ext}})
	if err != nil {
		return err
	}
	var result *anypb.Any
	for _, r := range resps {
		if e := r.GetExtension(); e != nil && e.GetTypeUrl() == resultURL {
			result = e
		}
	}
	if result == nil {
		return errNoExtensionResult
	}
	return unpackExtension(result, resultURL, decode)
}
