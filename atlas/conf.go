package atlas

import (
	"context"
	"fmt"

	pb "github.com/atlas-lakehouse/atlas/atlas/internal/connect/sparklite"
)

// RuntimeConfig reads and sets the server session's configuration, as
// spark.conf.
type RuntimeConfig struct{ s *Session }

// Conf returns the session's runtime configuration.
func (s *Session) Conf() RuntimeConfig { return RuntimeConfig{s} }

// Get returns key's value, or def when the server has none.
func (c RuntimeConfig) Get(key, def string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	if err := c.s.ready(ctx); err != nil { // the builder's settings first
		return "", fmt.Errorf("conf get %s: %w", key, err)
	}
	resp, err := c.s.config(ctx, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_GetWithDefault{
		GetWithDefault: &pb.ConfigRequest_GetWithDefault{Pairs: []*pb.KeyValue{{Key: key, Value: ptr(def)}}},
	}})
	if err != nil {
		return "", fmt.Errorf("conf get %s: %w", key, err)
	}
	if len(resp.GetPairs()) != 1 {
		return def, nil
	}
	return resp.GetPairs()[0].GetValue(), nil
}

// Set sets key to value in the server session.
func (c RuntimeConfig) Set(key, value string) error {
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	if err := c.s.ready(ctx); err != nil { // the builder's settings first, so this one wins
		return fmt.Errorf("conf set %s: %w", key, err)
	}
	_, err := c.s.config(ctx, &pb.ConfigRequest_Operation{OpType: &pb.ConfigRequest_Operation_Set{
		Set: &pb.ConfigRequest_Set{Pairs: []*pb.KeyValue{{Key: key, Value: ptr(value)}}},
	}})
	if err != nil {
		return fmt.Errorf("conf set %s: %w", key, err)
	}
	return nil
}
