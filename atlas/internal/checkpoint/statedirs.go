package checkpoint

import (
	"context"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"

	"gocloud.dev/blob"
)

// StateDirs lists the operators (the op of WriteState, "0/aggregate")
// that hold a state version for batch version, sorted.
func (c *Checkpoint) StateDirs(ctx context.Context, version int64) ([]string, error) {
	want := "/" + strconv.FormatInt(version, 10)
	seen := map[string]bool{}
	it := c.bucket.List(&blob.ListOptions{Prefix: "state/"})
	for {
		obj, err := it.Next(ctx)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("checkpoint %s: list state/: %w", c.location, err)
		}
		if dir, ok := strings.CutSuffix(strings.TrimPrefix(obj.Key, "state/"), want); ok && dir != "" && !strings.HasSuffix(dir, "/") {
			seen[dir] = true
		}
	}
	out := make([]string, 0, len(seen))
	for d := range seen {
		out = append(out, d)
	}
	sort.Strings(out)
	return out, nil
}
