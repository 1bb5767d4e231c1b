package drivers

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"gocloud.dev/blob"
	"gocloud.dev/blob/s3blob"

	"github.com/atlas-lakehouse/atlas/atlas/internal/checkpoint"
)

func init() { checkpoint.RegisterS3Opener(openS3Checkpoint) }

// openS3Checkpoint opens an S3 bucket for checkpoints with the catalog's
// S3 settings: its endpoint and addressing, and its static credentials
// when it has them, else the AWS SDK's default chain.
func openS3Checkpoint(ctx context.Context, bucket string, s checkpoint.S3Settings) (*blob.Bucket, error) {
	cfg, err := config.LoadDefaultConfig(ctx)
	if err != nil {
		return nil, err
	}
	if s.Region != "" {
		cfg.Region = s.Region
	}
	if cfg.Region == "" {
		cfg.Region = "us-east-1"
	}
	if s.AccessKeyID != "" {
		cfg.Credentials = credentials.NewStaticCredentialsProvider(s.AccessKeyID, s.SecretAccessKey, s.SessionToken)
	}
	client := s3.NewFromConfig(cfg, func(o *s3.Options) {
		if s.Endpoint != "" {
			o.BaseEndpoint = aws.String(s.Endpoint)
		}
		o.UsePathStyle = !s.VirtualHosted
	})
	return s3blob.OpenBucket(ctx, client, bucket, nil)
}
