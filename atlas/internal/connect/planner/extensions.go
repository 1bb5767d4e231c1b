package planner

import (
	"context"
	"fmt"

	"google.golang.org/protobuf/types/known/anypb"

	"github.com/atlas-lakehouse/atlas/atlas/internal/connect/atlaspb"
	engine "github.com/atlas-lakehouse/atlas/atlas/internal/engine"
)

// extension plans an Atlas extension relation (Relation.extension holding
// an atlas.connect message).
func (p *Planner) extension(ctx context.Context, ext *anypb.Any) (*engine.DataFrame, error) {
	latest := &atlaspb.LatestPerKey{}
	if ext.MessageIs(latest) {
		if err := ext.UnmarshalTo(latest); err != nil {
			return nil, fmt.Errorf("latestPerKey: %w", err)
		}
		in, err := p.Relation(ctx, latest.GetInput())
		if err != nil {
			return nil, err
		}
		return in.LatestPerKey(latest.GetKeys(), latest.GetOrderBy()), nil
	}
	return nil, unsupported("relation extension "+ext.GetTypeUrl(), "Atlas's relation extensions are atlas.connect.LatestPerKey")
}
