// Package s3test gives tests a bucket of their own on the S3 server named
// by ATLAS_TEST_S3_ENDPOINT (CI builds and starts MinIO on 127.0.0.1, see
// .ci/minio.sh), with the credentials of ATLAS_TEST_S3_ACCESS_KEY and
// ATLAS_TEST_S3_SECRET_KEY, and lists its objects with the AWS SDK,
// independently of the code under test. The bucket is emptied and removed
// when the test ends.
package s3test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
)

// Environment variables naming the test server.
const (
	// EnvEndpoint is the server's URL, http://127.0.0.1:port.
	EnvEndpoint = "ATLAS_TEST_S3_ENDPOINT"
	// EnvAccessKey is the access key id.
	EnvAccessKey = "ATLAS_TEST_S3_ACCESS_KEY"
	// EnvSecretKey is the secret access key.
	EnvSecretKey = "ATLAS_TEST_S3_SECRET_KEY"
)

// Region is the region the test server is addressed with.
const Region = "us-east-1"

// Bucket is one test's bucket.
type Bucket struct {
	// Name is the bucket name.
	Name string
	// Endpoint is the server URL.
	Endpoint string
	// AccessKey and SecretKey are the credentials (never print SecretKey).
	AccessKey, SecretKey string
	client               *s3.Client
}

// New creates a fresh bucket on the test server. Without
// ATLAS_TEST_S3_ENDPOINT the test is skipped, except under CI=true, where
// it fails: CI must run it.
func New(t testing.TB) *Bucket {
	t.Helper()
	ep := os.Getenv(EnvEndpoint)
	if ep == "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s is not set under CI=true: .ci/run starts MinIO and must export it", EnvEndpoint)
		}
		t.Skipf("%s not set: no S3 server to test against (.ci/minio.sh starts one)", EnvEndpoint)
	}
	b := &Bucket{Endpoint: ep, AccessKey: os.Getenv(EnvAccessKey), SecretKey: os.Getenv(EnvSecretKey)}
	b.client = s3.New(s3.Options{
		Region:       Region,
		BaseEndpoint: aws.String(ep),
		UsePathStyle: true,
		Credentials:  credentials.NewStaticCredentialsProvider(b.AccessKey, b.SecretKey, ""),
	})
	var r [5]byte
	rand.Read(r[:])
	b.Name = "atlas-test-" + hex.EncodeToString(r[:])
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := b.client.CreateBucket(ctx, &s3.CreateBucketInput{Bucket: aws.String(b.Name)}); err != nil {
		t.Fatalf("create bucket %s on %s: %v", b.Name, ep, err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		for _, k := range b.keys(ctx, t, "") {
			b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: aws.String(b.Name), Key: aws.String(k)})
		}
		if _, err := b.client.DeleteBucket(ctx, &s3.DeleteBucketInput{Bucket: aws.String(b.Name)}); err != nil {
			t.Logf("delete bucket %s: %v", b.Name, err)
		}
	})
	return b
}

// Keys lists the bucket's object keys under prefix, sorted.
func (b *Bucket) Keys(t testing.TB, prefix string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return b.keys(ctx, t, prefix)
}

func (b *Bucket) keys(ctx context.Context, t testing.TB, prefix string) []string {
	var out []string
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: aws.String(b.Name), Prefix: aws.String(prefix)})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			t.Fatalf("list %s/%s: %v", b.Name, prefix, err)
		}
		for _, o := range page.Contents {
			out = append(out, aws.ToString(o.Key))
		}
	}
	slices.Sort(out)
	return out
}

// CatalogProps is ATLAS_CATALOG_PROPS for iceberg-go's S3 IO on this
// server: endpoint, region, path-style addressing, credentials.
func (b *Bucket) CatalogProps() string {
	return "s3.endpoint=" + b.Endpoint + ",s3.region=" + Region + ",s3.access-key-id=" + b.AccessKey + ",s3.secret-access-key=" + b.SecretKey
}

// BlobURL is a gocloud s3blob URL for path under the bucket (a checkpoint
// location); credentials come from the AWS_* environment (SetAWSEnv).
func (b *Bucket) BlobURL(path string) string {
	q := url.Values{"endpoint": {b.Endpoint}, "region": {Region}, "use_path_style": {"true"}}
	return "s3://" + b.Name + "/" + path + "?" + q.Encode()
}

// BucketURL is the gocloud s3blob URL of the bucket itself.
func (b *Bucket) BucketURL() string {
	q := url.Values{"endpoint": {b.Endpoint}, "region": {Region}, "use_path_style": {"true"}}
	return "s3://" + b.Name + "?" + q.Encode()
}

// SetAWSEnv sets the AWS_* variables gocloud's S3 driver reads for the
// test's duration.
func (b *Bucket) SetAWSEnv(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", b.AccessKey)
	t.Setenv("AWS_SECRET_ACCESS_KEY", b.SecretKey)
	t.Setenv("AWS_REGION", Region)
	t.Setenv("AWS_EC2_METADATA_DISABLED", "true")
}
