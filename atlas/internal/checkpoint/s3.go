package checkpoint

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"sync"

	"gocloud.dev/blob"
)

// S3Settings say how to reach an S3 checkpoint when its URL does not: the
// catalog's S3 settings (ATLAS_CATALOG_PROPS s3.endpoint, s3.region,
// s3.force-virtual-addressing, s3.access-key-id, s3.secret-access-key,
// s3.session-token), so that one configuration serves the warehouse and
// the checkpoints.
type S3Settings struct {
	// Endpoint is the server URL (MinIO, another S3-compatible store).
	Endpoint string
	// Region is the bucket's region.
	Region string
	// VirtualHosted addresses buckets as bucket.host instead of host/bucket.
	VirtualHosted bool
	// AccessKeyID, SecretAccessKey and SessionToken are static
	// credentials; empty means the AWS SDK's default chain (AWS_* variables,
	// profiles, instance roles).
	AccessKeyID, SecretAccessKey, SessionToken string
}

// S3SettingsFromProps reads the S3 settings from Iceberg catalog
// properties (s3.endpoint, s3.region, s3.force-virtual-addressing,
// s3.access-key-id, s3.secret-access-key, s3.session-token).
func S3SettingsFromProps(p map[string]string) *S3Settings {
	s := S3Settings{
		Endpoint:        p["s3.endpoint"],
		Region:          p["s3.region"],
		AccessKeyID:     p["s3.access-key-id"],
		SecretAccessKey: p["s3.secret-access-key"],
		SessionToken:    p["s3.session-token"],
	}
	s.VirtualHosted, _ = strconv.ParseBool(p["s3.force-virtual-addressing"])
	return &s
}

// empty reports whether no setting is given.
func (s *S3Settings) empty() bool { return s == nil || *s == S3Settings{} }

// S3Opener opens bucket with the settings. The drivers package (which
// links the AWS SDK) registers one with RegisterS3Opener.
type S3Opener func(ctx context.Context, bucket string, s S3Settings) (*blob.Bucket, error)

// s3Openers holds the registered opener, as database/sql holds its drivers:
// set once from an init function of the package that links the SDK.
var s3Openers struct {
	sync.Mutex
	open S3Opener
}

// RegisterS3Opener makes open the way S3 checkpoints with S3Settings are
// opened. The drivers package calls it from init.
func RegisterS3Opener(open S3Opener) {
	s3Openers.Lock()
	defer s3Openers.Unlock()
	s3Openers.open = open
}

// openS3 opens the bucket of an s3:// URL with the settings.
func openS3(ctx context.Context, u *url.URL, s *S3Settings, location string) (*blob.Bucket, error) {
	s3Openers.Lock()
	open := s3Openers.open
	s3Openers.Unlock()
	if open == nil {
		return nil, fmt.Errorf("checkpoint %s: %w", location, errNoS3Opener)
	}
	b, err := open(ctx, u.Host, *s)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: open: %w", location, err)
	}
	return b, nil
}

var errNoS3Opener = errors.New(`S3 checkpoints with the catalog's S3 settings need the AWS SDK: import _ "github.com/atlas-lakehouse/atlas/atlas/drivers" (the atlas CLI and its Spark Connect server do)`)
